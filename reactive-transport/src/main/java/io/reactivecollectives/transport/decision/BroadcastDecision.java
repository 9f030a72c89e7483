package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.algorithms.AlgorithmChoice;
import io.reactivecollectives.transport.algorithms.BinomialTreeBroadcast;
import io.reactivecollectives.transport.algorithms.HierarchicalBroadcast;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.PipelinedChainBroadcast;
import reactor.core.publisher.Mono;

/**
 * Broadcast: the binomial tree up to {@link AlgorithmChoice#binomialTreeLimit} bytes, above it
 * the pipelined chain, or two levels across hosts.
 */
public final class BroadcastDecision {

    /** A broadcast's body: {@code root}'s {@code tensor} into every rank's. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param tensor the root's data, overwritten elsewhere
         * @param root   the rank that sends
         * @return completes when done
         */
        Mono<Void> run(Peers p, Tensor tensor, int root);
    }

    /** The algorithms that implement broadcast, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.BINOMIAL_TREE, BinomialTreeBroadcast::run)
            .row(Algorithm.PIPELINED_CHAIN, PipelinedChainBroadcast::run)
            .row(Algorithm.HIERARCHICAL, HierarchicalBroadcast::run);

    private BroadcastDecision() {
    }

    /**
     * The algorithm for a broadcast of {@code nbytes}.
     *
     * @param forced the call's algorithm
     * @param nbytes the tensor's bytes
     * @param g      the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement broadcast
     */
    public static Chosen<Body> decide(Algorithm forced, long nbytes, GroupShape g) {
        return TABLE.decide(OpType.BROADCAST, forced,
                nbytes <= g.binomialTreeLimit()
                        ? Algorithm.BINOMIAL_TREE
                        : g.multiHost() ? Algorithm.HIERARCHICAL : Algorithm.PIPELINED_CHAIN);
    }
}
