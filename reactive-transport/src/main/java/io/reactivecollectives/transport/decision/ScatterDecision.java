package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.algorithms.BinomialTreeScatter;
import io.reactivecollectives.transport.algorithms.DirectScatter;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.Region;
import reactor.core.publisher.Mono;

/**
 * Scatter from a root: the binomial tree up to {@link GroupShape#smallBroadcastBytes()} scattered
 * in all, the root sending to every rank directly above (the tree at any size in a group above
 * {@code rc.mesh.fullUpTo} ranks, whose root is not connected to every rank).
 */
public final class ScatterDecision {

    /** A scatter's body: {@code root}'s {@code inputs}, one to each rank's {@code output}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param root   the rank that sends
         * @param inputs one region per rank on the root, null elsewhere
         * @param output this rank's part
         * @return completes when done
         */
        Mono<Void> run(Peers p, int root, Region[] inputs, Region output);
    }

    /** The algorithms that implement scatter, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.BINOMIAL_TREE, BinomialTreeScatter::run)
            .row(Algorithm.DIRECT, DirectScatter::run);

    private ScatterDecision() {
    }

    /**
     * The algorithm for a scatter of {@code totalBytes} in all.
     *
     * @param forced     the call's algorithm
     * @param totalBytes every rank's part together
     * @param g          the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement scatter
     */
    public static Chosen<Body> decide(Algorithm forced, long totalBytes, GroupShape g) {
        // above rc.mesh.fullUpTo the root is connected to the ranks a power of two away only: the tree
        // keeps to them, where sending directly would connect the root to every rank
        return TABLE.decide(OpType.SCATTER, forced, totalBytes <= g.smallBroadcastBytes()
                || g.sparseMesh() ? Algorithm.BINOMIAL_TREE : Algorithm.DIRECT);
    }
}
