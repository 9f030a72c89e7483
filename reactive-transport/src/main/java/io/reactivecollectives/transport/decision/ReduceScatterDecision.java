package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.transport.algorithms.HierarchicalReduceScatter;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.algorithms.RingReduceScatter;
import reactor.core.publisher.Mono;

/**
 * Reduce-scatter (of a list, of one tensor): the ring, or two levels where several hosts run the
 * same number of ranks, more than one; the coalesced reduce-scatter of several pairs runs the ring
 * alone, pair after pair.
 */
public final class ReduceScatterDecision {

    /** A reduce-scatter's body: block {@code r} of every rank's {@code inputs}, reduced, into rank r's {@code output}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param op     the reduction
         * @param dtype  the elements' type
         * @param inputs one block per rank
         * @param output this rank's reduced block
         * @return completes when done
         */
        Mono<Void> run(Peers p, ReduceOp op, DType dtype, Region[] inputs, Region output);
    }

    /** The algorithms that implement reduce-scatter, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.RING, RingReduceScatter::run)
            .row(Algorithm.HIERARCHICAL, HierarchicalReduceScatter::run);

    /** The algorithm that implements the coalesced reduce-scatter, with its body. */
    public static final DecisionTable<Body> COALESCED = DecisionTable.<Body>of()
            .row(Algorithm.RING, RingReduceScatter::run);

    private ReduceScatterDecision() {
    }

    /**
     * The algorithm for a reduce-scatter.
     *
     * @param op     the collective ({@link OpType#REDUCE_SCATTER}, {@link OpType#_REDUCE_SCATTER_BASE})
     * @param forced the call's algorithm
     * @param g      the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement reduce-scatter
     */
    public static Chosen<Body> decide(OpType op, Algorithm forced, GroupShape g) {
        return TABLE.decide(op, forced, g.multiHostMultiRank() ? Algorithm.HIERARCHICAL : Algorithm.RING);
    }

    /**
     * The algorithm for a coalesced reduce-scatter (all its pairs).
     *
     * @param forced the call's algorithm
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement it
     */
    public static Chosen<Body> decideCoalesced(Algorithm forced) {
        return COALESCED.decide(OpType.REDUCE_SCATTER_TENSOR_COALESCED, forced, Algorithm.RING);
    }
}
