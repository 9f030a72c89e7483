package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.transport.algorithms.AllGatherSparseAllReduce;
import io.reactivecollectives.transport.algorithms.Peers;
import reactor.core.publisher.Mono;

import java.util.function.BiFunction;

/**
 * The sparse all-reduce: every rank's indices and values gathered, summed locally (recorded as
 * {@code "allgather"}); one automatic algorithm, which no caller can force by name.
 */
public final class SparseAllReduceDecision {

    /** The sparse all-reduce's algorithm, with its body. */
    public static final DecisionTable<BiFunction<Peers, SparseTensor, Mono<SparseTensor>>> TABLE =
            DecisionTable.<BiFunction<Peers, SparseTensor, Mono<SparseTensor>>>of()
                    .row(Algorithm.AUTO, "allgather", AllGatherSparseAllReduce::run);

    private SparseAllReduceDecision() {
    }

    /**
     * The sparse all-reduce's algorithm.
     *
     * @param forced the call's algorithm
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} is not {@link Algorithm#AUTO}
     */
    public static Chosen<BiFunction<Peers, SparseTensor, Mono<SparseTensor>>> decide(Algorithm forced) {
        return TABLE.decide(OpType._ALLREDUCE_SPARSE, forced, Algorithm.AUTO);
    }
}
