package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * A barrier between phases: every rank does a phase of work taking a different time (rank r takes
 * {@code 100 * r} ms), meets the others at {@code barrier()}, then starts phase two. No rank starts
 * phase two before the slowest has finished phase one.
 *
 * <pre>bin/collectives-run --nproc-per-node 3 -- io.reactivecollectives.samples.examples.BarrierBetweenPhases</pre>
 */
public final class BarrierBetweenPhases {

    private BarrierBetweenPhases() {
    }

    /** When each phase ended or began on this rank, in epoch milliseconds. */
    public record Phases(long phaseOneEnd, long phaseTwoStart) {
    }

    /** Runs both phases; emits this rank's timestamps. */
    public static Mono<Phases> run(ProcessGroup group, Duration perRank) {
        return Mono.delay(perRank.multipliedBy(group.rank()))
                .map(x -> System.currentTimeMillis())
                .flatMap(end -> group.barrier().then(Mono.fromCallable(() -> new Phases(end, System.currentTimeMillis()))));
    }

    public static void main(String[] args) {
        Ranks.run(group -> run(group, Duration.ofMillis(100)).doOnNext(p -> System.out.println(
                "phase one done at +" + (p.phaseOneEnd() % 100_000) + " ms, phase two started at +"
                        + (p.phaseTwoStart() % 100_000) + " ms")));
    }
}
