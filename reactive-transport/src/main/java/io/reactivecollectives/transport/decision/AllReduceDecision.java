package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.algorithms.AlgorithmChoice;
import io.reactivecollectives.transport.algorithms.HierarchicalAllReduce;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.RecursiveDoublingAllReduce;
import io.reactivecollectives.transport.algorithms.RingAllReduce;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * All-reduce (of one tensor, of a list, of a stream's chunks): recursive doubling up to
 * {@link AlgorithmChoice#recursiveDoublingLimit} bytes, above it the ring, or two levels where
 * several hosts run the same number of ranks, more than one.
 */
public final class AllReduceDecision {

    /** An all-reduce's body: reduces {@code tensor} in place over {@code p}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p      the ranks
         * @param tensor the tensor, reduced in place
         * @param op     the reduction (its pre- and post-scaling are the caller's)
         * @return completes when done
         */
        Mono<Void> run(Peers p, Tensor tensor, ReduceOp op);
    }

    /** The algorithms that implement all-reduce, with their bodies. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.RING, RingAllReduce::run)
            .row(Algorithm.RECURSIVE_DOUBLING, RecursiveDoublingAllReduce::run)
            .row(Algorithm.HIERARCHICAL, HierarchicalAllReduce::run);

    private AllReduceDecision() {
    }

    /**
     * The algorithm for an all-reduce of {@code nbytes}.
     *
     * @param op     the collective ({@link OpType#ALLREDUCE}, {@link OpType#ALLREDUCE_COALESCED})
     * @param forced the call's algorithm
     * @param nbytes the tensor's bytes
     * @param g      the group
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement all-reduce
     */
    public static Chosen<Body> decide(OpType op, Algorithm forced, long nbytes, GroupShape g) {
        return TABLE.decide(op, forced, nbytes <= g.recursiveDoublingLimit()
                ? Algorithm.RECURSIVE_DOUBLING
                : g.multiHostMultiRank() ? Algorithm.HIERARCHICAL : Algorithm.RING);
    }

    /**
     * A coalesced all-reduce's plan: lists of more than one tensor up to
     * {@link GroupShape#smallAllReduceBytes()} in all go as one flat exchange (one choice for the
     * whole), others tensor by tensor (one choice per tensor).
     *
     * @param flat  the flat exchange's choice, null when tensor by tensor
     * @param each  one choice per tensor, empty when flat
     */
    public record Coalesced(Chosen<Body> flat, List<Chosen<Body>> each) implements Plan {

        /** The flat exchange's code; tensor by tensor, not compared (0). */
        @Override
        public int agreementCode() {
            return flat != null ? flat.agreementCode() : 0;
        }

        /** The flat exchange's algorithm, else the tensors' distinct algorithms joined by {@code +}. */
        @Override
        public String recordedName() {
            if (flat != null) {
                return flat.recordedName();
            }
            List<String> names = new ArrayList<>();
            for (Chosen<Body> c : each) {
                if (!names.contains(c.recordedName())) {
                    names.add(c.recordedName());
                }
            }
            return String.join("+", names);
        }
    }

    /**
     * The plan for a coalesced all-reduce of {@code tensors}.
     *
     * @param forced  the call's algorithm
     * @param tensors the tensors (not empty)
     * @param g       the group
     * @return the plan
     * @throws IllegalArgumentException when {@code forced} does not implement all-reduce
     */
    public static Coalesced decideCoalesced(Algorithm forced, List<Tensor> tensors, GroupShape g) {
        long total = 0;
        for (Tensor t : tensors) {
            total += t.nbytes();
        }
        if (tensors.size() > 1 && total <= g.smallAllReduceBytes()) {
            return new Coalesced(decide(OpType.ALLREDUCE_COALESCED, forced, total, g), List.of());
        }
        List<Chosen<Body>> each = new ArrayList<>(tensors.size());
        for (Tensor t : tensors) {
            each.add(decide(OpType.ALLREDUCE_COALESCED, forced, t.nbytes(), g));
        }
        return new Coalesced(null, List.copyOf(each));
    }
}
