package io.reactivecollectives.transport;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.Store;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * N ranks of a {@link MeshProcessGroup} in this JVM, meeting through an in-memory {@link HashStore}
 * and connected over loopback TCP exactly as separate processes would be: for tests, samples and
 * users' own tests.
 *
 * <pre>{@code
 * LocalCluster cluster = LocalCluster.start(4).block();
 * try {
 *     List<Tensor> out = cluster.run(g -> g.allReduce(tensorFor(g.rank()), ReduceOp.SUM)).block();
 * } finally {
 *     cluster.close();
 * }
 * }</pre>
 *
 * <p>A cluster started without a group id of its own (with {@link GroupOptions#defaults()}'s
 * {@code "default"}) gets a unique one, {@code local-<n>}: two clusters in one JVM then keep apart
 * their store keys, flight-recorder dumps and meters (which are tagged with the group id).
 */
public final class LocalCluster implements AutoCloseable {

    /** The group id {@link GroupOptions#defaults()} carries, replaced by {@code local-<n>} here. */
    static final String DEFAULT_GROUP_ID = "default";
    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    private final Store store;
    private final List<MeshProcessGroup> groups;

    private LocalCluster(Store store, List<MeshProcessGroup> groups) {
        this.store = store;
        this.groups = groups;
    }

    /**
     * Starts {@code worldSize} ranks with {@link GroupOptions#defaults()} under a group id of their
     * own ({@code local-<n>}); emits once all are connected.
     *
     * @param worldSize the number of ranks, at least 1
     * @return a cold {@code Mono} emitting the connected cluster
     */
    public static Mono<LocalCluster> start(int worldSize) {
        return start(worldSize, GroupOptions.defaults());
    }

    /**
     * Starts {@code worldSize} ranks with {@code options}; emits once all are connected. When
     * {@code options} carry the default group id ({@code "default"}), each subscription uses a
     * unique one, {@code local-<n>}, instead.
     *
     * @param worldSize the number of ranks, at least 1
     * @param given     the settings every rank uses
     * @return a cold {@code Mono} emitting the connected cluster; on failure the ranks already connected are closed
     */
    public static Mono<LocalCluster> start(int worldSize, GroupOptions given) {
        return start(worldSize, given, options -> new HashStore(options.connectTimeout()));
    }

    /**
     * {@link #start(int, GroupOptions)} meeting through the store {@code storeFor} makes from the
     * settings the ranks use (for instance a {@link io.reactivecollectives.core.rendezvous.MeteredStore}
     * over a {@link HashStore}, to count the store operations of the start-up); the cluster closes
     * that store with itself, or when the start fails.
     *
     * @param worldSize the number of ranks, at least 1
     * @param given     the settings every rank uses
     * @param storeFor  makes the store the ranks meet through, once per subscription
     * @return a cold {@code Mono} emitting the connected cluster; on failure the ranks already connected are closed
     */
    public static Mono<LocalCluster> start(int worldSize, GroupOptions given, Function<GroupOptions, Store> storeFor) {
        return Mono.defer(() -> {
            if (worldSize < 1) {
                throw new IllegalArgumentException("LocalCluster: world size must be >= 1, got " + worldSize);
            }
            GroupOptions options = DEFAULT_GROUP_ID.equals(given.groupId())
                    ? given.withGroupId("local-" + CLUSTERS.incrementAndGet()) : given;
            Store store = storeFor.apply(options);
            List<MeshProcessGroup> started = Collections.synchronizedList(new ArrayList<>());
            return Flux.range(0, worldSize)
                    .flatMap(r -> MeshProcessGroup.connect(store, r, worldSize, options).doOnNext(started::add), worldSize)
                    .collectSortedList(Comparator.comparingInt(MeshProcessGroup::rank))
                    .map(list -> new LocalCluster(store, List.copyOf(list)))
                    .onErrorMap(LocalCluster::firstOfSeveral)
                    .doOnError(e -> {
                        synchronized (started) {
                            started.forEach(MeshProcessGroup::close);
                        }
                        store.close();
                    });
        });
    }

    /**
     * When several ranks failed at once (Reactor's "Multiple exceptions" composite, whose message
     * says nothing), the first rank's error with the others suppressed under it.
     */
    private static Throwable firstOfSeveral(Throwable e) {
        List<Throwable> all = reactor.core.Exceptions.unwrapMultiple(e);
        if (all.size() < 2) {
            return e;
        }
        Throwable first = all.get(0);
        for (int i = 1; i < all.size(); i++) {
            if (all.get(i) != first) {
                first.addSuppressed(all.get(i));
            }
        }
        return first;
    }

    /** {@return the number of ranks} */
    public int size() {
        return groups.size();
    }

    /**
     * The group of {@code rank}.
     *
     * @param rank the rank, in {@code [0, size())}
     * @return that rank's group
     */
    public MeshProcessGroup group(int rank) {
        return groups.get(rank);
    }

    /** {@return all groups, by rank (unmodifiable)} */
    public List<MeshProcessGroup> groups() {
        return groups;
    }

    /** {@return the store the ranks met through} */
    public Store store() {
        return store;
    }

    /**
     * Runs {@code body} on every rank concurrently and emits the results in rank order; ranks whose
     * {@code Mono} completes empty contribute nothing. Every rank's {@code Mono} is subscribed, even
     * when an earlier rank's fails as it is subscribed (a bad argument on that rank), so every rank's
     * collectives take their sequence numbers and the cluster stays in step for the next call. Fails
     * with the first error of any rank, the later ones added as suppressed; the ranks still running
     * are then cancelled, which aborts their collectives on every rank (as any cancel does). Each
     * rank's {@code Mono} sees the subscriber's Reactor context (a tracing parent observation).
     *
     * @param <T>  what each rank's {@code Mono} emits
     * @param body the work of one rank, given its group
     * @return a cold {@code Mono} emitting the ranks' results in rank order
     */
    public <T> Mono<List<T>> run(Function<? super ProcessGroup, ? extends Mono<T>> body) {
        return Mono.create(sink -> {
            int n = groups.size();
            Object[] results = new Object[n];
            AtomicInteger left = new AtomicInteger(n + 1); // every rank, and the loop that subscribes them
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean subscribed = new AtomicBoolean();
            AtomicBoolean signalled = new AtomicBoolean();
            Disposable.Composite running = Disposables.composite();
            sink.onCancel(running);
            Runnable end = () -> {
                if (left.decrementAndGet() == 0 && failure.get() == null && signalled.compareAndSet(false, true)) {
                    sink.success(collect(results));
                }
            };
            Runnable fail = () -> { // once every rank is subscribed: no later call can overtake one of them
                if (subscribed.get() && failure.get() != null && signalled.compareAndSet(false, true)) {
                    sink.error(failure.get());
                }
            };
            for (int r = 0; r < n; r++) {
                int rank = r;
                Mono<T> one;
                try {
                    one = Mono.from(body.apply(groups.get(rank))).contextWrite(sink.contextView()); // the caller's context
                } catch (RuntimeException | Error e) {
                    one = Mono.error(e);
                }
                // subscribed before it is added: once the run failed, add cancels it at once, after it started
                running.add(one.subscribe(v -> results[rank] = v, e -> {
                    if (failure.compareAndSet(null, e)) {
                        running.dispose(); // the ranks still running are cancelled, and end with no signal
                        fail.run();
                    } else if (failure.get() != e) {
                        failure.get().addSuppressed(e);
                    }
                }, end));
            }
            subscribed.set(true);
            fail.run();
            end.run();
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> collect(Object[] results) {
        List<T> out = new ArrayList<>();
        for (Object v : results) {
            if (v != null) {
                out.add((T) v);
            }
        }
        return out;
    }

    /** Closes every rank's group and the store. */
    @Override
    public void close() {
        groups.forEach(MeshProcessGroup::close);
        store.close();
    }
}
