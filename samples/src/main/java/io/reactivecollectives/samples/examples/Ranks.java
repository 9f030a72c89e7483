package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.TcpProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import reactor.core.publisher.Mono;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.function.Function;

/**
 * Joins the group a launcher ({@code bin/collectives-run}, or torchrun-style environment) describes:
 * {@code RANK}, {@code WORLD_SIZE}, {@code MASTER_ADDR}, {@code MASTER_PORT}. Rank 0 serves the TCP
 * store on {@code MASTER_PORT}; every rank connects to it and then to each other.
 *
 * <p>For programs' {@code main} methods only: {@link #run} waits for the result on the calling
 * (main) thread.
 */
public final class Ranks {

    private Ranks() {
    }

    /** The rendezvous a launcher described in the environment. */
    public record Environment(int rank, int worldSize, String masterAddr, int masterPort) {

        /** Reads {@code RANK}, {@code WORLD_SIZE}, {@code MASTER_ADDR} (default 127.0.0.1), {@code MASTER_PORT}. */
        public static Environment fromEnv() {
            String rank = System.getenv("RANK");
            String world = System.getenv("WORLD_SIZE");
            String port = System.getenv("MASTER_PORT");
            if (rank == null || world == null || port == null) {
                throw new IllegalStateException("RANK, WORLD_SIZE and MASTER_PORT must be set; start this program with "
                        + "bin/collectives-run --nproc-per-node N -- <main class>");
            }
            String addr = System.getenv().getOrDefault("MASTER_ADDR", "127.0.0.1");
            return new Environment(Integer.parseInt(rank), Integer.parseInt(world), addr, Integer.parseInt(port));
        }
    }

    /**
     * Connects this rank, runs {@code body} on the group, meets the other ranks at a barrier, closes
     * the group and store, and returns {@code body}'s value. On failure prints the error and exits
     * the JVM with status 1 (so the launcher stops the other ranks).
     */
    public static <T> T run(Function<ProcessGroup, Mono<T>> body) {
        try {
            return connectAndRun(Environment.fromEnv(), body).block();
        } catch (RuntimeException e) {
            System.err.println("failed: " + e);
            e.printStackTrace();
            System.exit(1);
            throw e;
        }
    }

    /** The cold {@code Mono} behind {@link #run}: store, group, body, barrier, teardown. */
    public static <T> Mono<T> connectAndRun(Environment env, Function<ProcessGroup, Mono<T>> body) {
        Mono<TcpStoreServer> server = env.rank() == 0
                ? TcpStoreServer.builder().host(bindHost(env.masterAddr())).port(env.masterPort()).start()
                : Mono.empty();
        GroupOptions options = GroupOptions.defaults().withHost(groupHost(env.masterAddr()))
                .withConnectTimeout(Duration.ofSeconds(120));
        return Mono.usingWhen(
                server.map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty()),
                srv -> Mono.usingWhen(
                        TcpStore.connect(TcpStoreOptions.of(env.masterAddr(), env.masterPort())),
                        store -> Mono.usingWhen(
                                TcpProcessGroup.connect(store, env.rank(), env.worldSize(), options),
                                group -> body.apply(group).flatMap(result -> group.barrier().thenReturn(result)),
                                group -> Mono.fromRunnable(group::close)),
                        store -> Mono.fromRunnable(store::close)),
                srv -> Mono.fromRunnable(() -> srv.ifPresent(TcpStoreServer::close)));
    }

    private static boolean loopback(String addr) {
        try {
            return InetAddress.getByName(addr).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String bindHost(String masterAddr) {
        return loopback(masterAddr) ? masterAddr : "0.0.0.0";
    }

    /** The address this rank's group server binds and publishes: loopback for a local run, else this host's. */
    private static String groupHost(String masterAddr) {
        String explicit = System.getenv("RC_HOST");
        if (explicit != null) {
            return explicit;
        }
        if (loopback(masterAddr)) {
            return "127.0.0.1";
        }
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("cannot find this host's address; set RC_HOST", e);
        }
    }
}
