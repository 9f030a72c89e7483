package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.algorithms.DisseminationBarrier;
import io.reactivecollectives.transport.algorithms.MonitoredBarrier;
import io.reactivecollectives.transport.algorithms.Peers;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.function.Function;

/**
 * The barrier (dissemination, recorded as {@code "dissemination"}) and the monitored barrier
 * (rank 0 hears from every rank, recorded as {@code "monitored"}): one automatic algorithm each,
 * which no caller can force by name.
 */
public final class BarrierDecision {

    /** The monitored barrier's body. */
    @FunctionalInterface
    public interface MonitoredBody {
        /**
         * Runs the algorithm.
         *
         * @param p            the ranks
         * @param timeout      how long rank 0 waits for every rank
         * @param waitAllRanks whether rank 0 names every missing rank or the first
         * @return completes when done
         */
        Mono<Void> run(Peers p, Duration timeout, boolean waitAllRanks);
    }

    /** The barrier's algorithm, with its body. */
    public static final DecisionTable<Function<Peers, Mono<Void>>> TABLE =
            DecisionTable.<Function<Peers, Mono<Void>>>of().row(Algorithm.AUTO, "dissemination", DisseminationBarrier::run);

    /** The monitored barrier's algorithm, with its body. */
    public static final DecisionTable<MonitoredBody> MONITORED =
            DecisionTable.<MonitoredBody>of().row(Algorithm.AUTO, "monitored", MonitoredBarrier::run);

    private BarrierDecision() {
    }

    /**
     * The barrier's algorithm.
     *
     * @param forced the call's algorithm
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} is not {@link Algorithm#AUTO}
     */
    public static Chosen<Function<Peers, Mono<Void>>> decide(Algorithm forced) {
        return TABLE.decide(OpType.BARRIER, forced, Algorithm.AUTO);
    }

    /**
     * The monitored barrier's algorithm.
     *
     * @return the choice
     */
    public static Chosen<MonitoredBody> decideMonitored() {
        return MONITORED.decide(OpType.MONITORED_BARRIER, Algorithm.AUTO, Algorithm.AUTO);
    }
}
