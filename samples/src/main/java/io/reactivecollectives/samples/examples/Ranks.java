package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.TcpProcessGroup;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Joins the group a launcher describes in the environment ({@code bin/collectives-run}, torchrun,
 * Slurm or Open MPI; see {@link EnvRendezvous}): rank 0 serves the TCP store, every rank connects to
 * it and then to each other through {@link TcpProcessGroup}.
 *
 * <p>For programs' {@code main} methods only: {@link #run} waits for the result on the calling
 * (main) thread.
 */
public final class Ranks {

    private Ranks() {
    }

    /**
     * Connects this rank, runs {@code body} on the group, meets the other ranks at a barrier, closes
     * the group and store, and returns {@code body}'s value. On failure prints the error and exits
     * the JVM with status 1 (so the launcher stops the other ranks).
     */
    public static <T> T run(Function<ProcessGroup, Mono<T>> body) {
        return run(UnaryOperator.identity(), body);
    }

    /** {@link #run(Function)} with the group's options adjusted by {@code options} (thresholds, timeouts). */
    public static <T> T run(UnaryOperator<GroupOptions> options, Function<ProcessGroup, Mono<T>> body) {
        try {
            return connectAndRun(System.getenv(), options, body).block();
        } catch (RuntimeException e) {
            System.err.println("failed: " + e);
            e.printStackTrace();
            System.exit(1);
            throw e;
        }
    }

    /** The cold {@code Mono} behind {@link #run}: rendezvous, group, body, barrier, teardown. */
    public static <T> Mono<T> connectAndRun(Map<String, String> env, UnaryOperator<GroupOptions> adjust,
                                            Function<ProcessGroup, Mono<T>> body) {
        return Mono.defer(() -> {
            GroupOptions options = adjust.apply(GroupOptions.defaults()
                    .withHost(EnvRendezvous.groupHost(env))
                    .withConnectTimeout(Duration.ofSeconds(120)));
            return Mono.usingWhen(
                    EnvRendezvous.connect(env),
                    rdv -> Mono.usingWhen(
                            TcpProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), options),
                            group -> body.apply(group).flatMap(result -> group.barrier().thenReturn(result)),
                            group -> Mono.fromRunnable(group::close)),
                    rdv -> Mono.fromRunnable(rdv::close));
        });
    }
}
