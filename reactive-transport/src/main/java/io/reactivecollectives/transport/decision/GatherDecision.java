package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.algorithms.BinomialTreeGather;
import io.reactivecollectives.transport.algorithms.DirectGather;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.Region;
import reactor.core.publisher.Mono;

/**
 * Gather to a root: the binomial tree up to {@link GroupShape#smallBroadcastBytes()} gathered in
 * all, every rank sending to the root directly above (the tree at any size in a group above
 * {@code rc.mesh.fullUpTo} ranks, whose root is not connected to every rank).
 */
public final class GatherDecision {

    /** A gather's body: every rank's {@code local} into {@code root}'s {@code outputs}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p       the ranks
         * @param root    the rank that receives
         * @param local   this rank's part
         * @param outputs one region per rank on the root, null elsewhere
         * @return completes when done
         */
        Mono<Void> run(Peers p, int root, Region local, Region[] outputs);
    }

    /** The algorithms that implement gather, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.BINOMIAL_TREE, BinomialTreeGather::run)
            .row(Algorithm.DIRECT, DirectGather::run);

    private GatherDecision() {
    }

    /**
     * The algorithm for a gather of {@code totalBytes} in all.
     *
     * @param forced     the call's algorithm
     * @param totalBytes every rank's part together
     * @param g          the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement gather
     */
    public static Chosen<Body> decide(Algorithm forced, long totalBytes, GroupShape g) {
        // above rc.mesh.fullUpTo the root is connected to the ranks a power of two away only: the tree
        // keeps to them, where sending directly would connect the root to every rank
        return TABLE.decide(OpType.GATHER, forced, totalBytes <= g.smallBroadcastBytes()
                || g.sparseMesh() ? Algorithm.BINOMIAL_TREE : Algorithm.DIRECT);
    }
}
