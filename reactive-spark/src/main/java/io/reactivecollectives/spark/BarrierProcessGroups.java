package io.reactivecollectives.spark;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * The process group of a Spark barrier task: inside {@code rdd.barrier().mapPartitions(...)} every
 * task is one rank (rank = partition id, world size = number of tasks of the stage).
 *
 * <p>Rendezvous: the task of partition 0 starts an embedded {@link TcpStoreServer} on its executor's
 * host (any free port) and every task learns its address through one
 * {@link BarrierTaskContext#allGather(String)}; then every task connects a {@link TcpStore} and the
 * {@link MeshProcessGroup}, its server bound to its own executor's host (unless the options name
 * another than the default loopback address). The options' secret authenticates the store as well
 * as the mesh, and their TLS contexts (if any) secure the store too. The whole rendezvous is bounded
 * by {@code spark.barrier.sync.timeout} (when shorter than the options' connect timeout).
 *
 * <p>Life cycle, tied to the task (see {@link TaskGuard}): when the task fails its group is aborted,
 * which fails the in-flight and later collectives of every other task at once (they then fail too,
 * and Spark retries the stage); when Spark kills the task (another task of the stage failed), the
 * group is aborted within one poll of the task's kill flag (every 50 ms); when the task ends the group, the store
 * client and the store server are closed. Callers may close the group earlier themselves.
 *
 * <p>Spark's {@code allGather} waits on the task's thread; it runs on the library's bounded
 * {@link BlockingScheduler}, never on an event loop. The task's own code may block on the returned
 * {@code Mono} (it runs on Spark's task thread).
 *
 * <pre>{@code
 * BarrierRdds.mapPartitions(rdd, rows -> {      // rdd.barrier().mapPartitions(...) in Scala
 *     MeshProcessGroup group = BarrierProcessGroups.connect(GroupOptions.defaults()).block();
 *     ... group.allReduce(t, ReduceOp.SUM).block() ...
 *     return results.iterator();
 * }).collect();
 * }</pre>
 */
public final class BarrierProcessGroups {

    /** The Spark setting that bounds every barrier synchronisation, and so the rendezvous. */
    public static final String BARRIER_SYNC_TIMEOUT = "spark.barrier.sync.timeout";

    private BarrierProcessGroups() {
    }

    /**
     * Connects the group of the barrier task running on the calling thread.
     *
     * @param options the group's options (secret, TLS, timeouts, ...); the same on every task
     * @return a cold {@code Mono} emitting this task's rank of the group; it fails with an
     *         {@link IllegalStateException} when the calling thread runs no barrier task
     */
    public static Mono<MeshProcessGroup> connect(GroupOptions options) {
        Objects.requireNonNull(options, "options");
        return Mono.defer(() -> connect(currentBarrierContext(), options));
    }

    /**
     * Connects the group of the barrier task {@code context}.
     *
     * @param context the task's context ({@link BarrierTaskContext#get()})
     * @param options the group's options (secret, TLS, timeouts, ...); the same on every task
     * @return a cold {@code Mono} emitting this task's rank of the group
     */
    public static Mono<MeshProcessGroup> connect(BarrierTaskContext context, GroupOptions options) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(options, "options");
        return Mono.defer(() -> {
            int rank = context.partitionId();
            int world = context.getTaskInfos().length;
            String host = hostOf(context.getTaskInfos()[rank].address());
            Duration timeout = rendezvousTimeout(options.connectTimeout(), sparkConf());
            GroupOptions effective = (options.host().equals(GroupOptions.defaults().host()) ? options.withHost(host) : options)
                    .withConnectTimeout(timeout);
            String where = "stage " + context.stageId() + " attempt " + context.stageAttemptNumber() + ", rank " + rank
                    + " of " + world;
            TaskGuard guard = TaskGuard.install(context);
            Mono<Optional<TcpStoreServer>> server = rank != 0 ? Mono.just(Optional.empty())
                    : storeServer(host, effective).doOnNext(guard::closeOnCompletion).map(Optional::of);
            return server
                    .flatMap(s -> exchange(context, s.map(srv -> host + ":" + srv.port()).orElse(""))
                            .map(all -> all[0]))
                    .flatMap(address -> TcpStore.connect(storeOptions(address, effective, timeout)))
                    .doOnNext(guard::closeOnCompletion)
                    .flatMap(store -> MeshProcessGroup.connect(store, rank, world, effective))
                    .doOnNext(guard::watch)
                    .timeout(timeout, Mono.error(() -> new TimeoutException("no rendezvous within " + timeout.toSeconds()
                            + " s (" + BARRIER_SYNC_TIMEOUT + " or the options' connect timeout)")))
                    .onErrorMap(e -> new IllegalStateException("barrier process group (" + where + "): rendezvous failed: "
                            + e, e));
        });
    }

    /** The barrier context of the calling thread, or a clear error naming what is wrong. */
    static BarrierTaskContext currentBarrierContext() {
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("barrier process group: no Spark task runs on this thread; connect inside "
                    + "rdd.barrier().mapPartitions(...) on an executor");
        }
        if (!(task instanceof BarrierTaskContext)) {
            throw new IllegalStateException("barrier process group: stage " + task.stageId() + " (partition "
                    + task.partitionId() + ") is not a barrier stage; its tasks are not started together, so they "
                    + "cannot form a group: use rdd.barrier().mapPartitions(...)");
        }
        return (BarrierTaskContext) task;
    }

    private static Mono<TcpStoreServer> storeServer(String host, GroupOptions options) {
        TcpStoreServer.Builder b = TcpStoreServer.builder().host(host).port(0).secret(secretBytes(options));
        if (options.tls() != null) {
            b.ssl(options.tls().server());
        }
        return b.start();
    }

    private static TcpStoreOptions storeOptions(String address, GroupOptions options, Duration timeout) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalStateException("barrier process group: partition 0 published no store address ('" + address + "')");
        }
        TcpStoreOptions o = TcpStoreOptions.of(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))
                .withTimeout(timeout).withSecret(secretBytes(options));
        return options.tls() == null ? o : o.withSsl(options.tls().client());
    }

    private static byte[] secretBytes(GroupOptions options) {
        return options.secret() == null ? null : options.secret().getBytes(StandardCharsets.UTF_8);
    }

    /** Spark's {@code allGather}, which waits for every task of the stage, on the bounded blocking scheduler. */
    private static Mono<String[]> exchange(BarrierTaskContext context, String message) {
        return Mono.fromCallable(() -> context.allGather(message)).subscribeOn(BlockingScheduler.get());
    }

    /** The host of an executor address {@code host:port} ({@code [v6]:port} too). */
    static String hostOf(String address) {
        int colon = address.lastIndexOf(':');
        String host = colon > 0 && address.indexOf(':') == colon || address.startsWith("[") && colon > 0
                ? address.substring(0, colon) : address;
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** The rendezvous' bound: the options' connect timeout, or {@value #BARRIER_SYNC_TIMEOUT} when shorter. */
    static Duration rendezvousTimeout(Duration connectTimeout, SparkConf conf) {
        if (conf == null || !conf.contains(BARRIER_SYNC_TIMEOUT)) {
            return connectTimeout;
        }
        Duration spark = Duration.ofSeconds(conf.getTimeAsSeconds(BARRIER_SYNC_TIMEOUT));
        return spark.compareTo(connectTimeout) < 0 ? spark : connectTimeout;
    }

    private static SparkConf sparkConf() {
        SparkEnv env = SparkEnv.get();
        return env == null ? null : env.conf();
    }
}
