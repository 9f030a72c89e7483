package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.algorithms.BinomialTreeReduce;
import io.reactivecollectives.transport.algorithms.Peers;
import reactor.core.publisher.Mono;

/** Reduce to a root: the segmented binomial tree, at every size. */
public final class ReduceDecision {

    /** A reduce's body: every rank's {@code tensor} reduced into {@code root}'s. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param tensor this rank's part; the result on the root
         * @param root   the rank that receives the result
         * @param op     the reduction (its pre- and post-scaling are the caller's)
         * @return completes when done
         */
        Mono<Void> run(Peers p, Tensor tensor, int root, ReduceOp op);
    }

    /** The algorithm that implements reduce, with its body. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.BINOMIAL_TREE, BinomialTreeReduce::run);

    private ReduceDecision() {
    }

    /**
     * The algorithm for a reduce.
     *
     * @param forced the call's algorithm
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement reduce
     */
    public static Chosen<Body> decide(Algorithm forced) {
        return TABLE.decide(OpType.REDUCE, forced, Algorithm.BINOMIAL_TREE);
    }
}
