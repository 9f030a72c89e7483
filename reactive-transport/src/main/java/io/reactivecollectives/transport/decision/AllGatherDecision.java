package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.algorithms.HierarchicalAllGather;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.algorithms.RingAllGather;
import reactor.core.publisher.Mono;

/**
 * All-gather (into a list, into one tensor, coalesced): the ring, or two levels where several
 * hosts run the same number of ranks, more than one; at every size.
 */
public final class AllGatherDecision {

    /** An all-gather's body: every rank's block into every rank's {@code blocks}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param blocks one block per rank, this rank's filled in
         * @return completes when done
         */
        Mono<Void> run(Peers p, Region[] blocks);
    }

    /** The algorithms that implement all-gather, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.RING, RingAllGather::run)
            .row(Algorithm.HIERARCHICAL, HierarchicalAllGather::run);

    private AllGatherDecision() {
    }

    /**
     * The algorithm for an all-gather.
     *
     * @param op     the collective ({@link OpType#ALLGATHER}, {@link OpType#_ALLGATHER_BASE},
     *               {@link OpType#ALLGATHER_COALESCED})
     * @param forced the call's algorithm
     * @param g      the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement all-gather
     */
    public static Chosen<Body> decide(OpType op, Algorithm forced, GroupShape g) {
        return TABLE.decide(op, forced, g.multiHostMultiRank() ? Algorithm.HIERARCHICAL : Algorithm.RING);
    }
}
