package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.transport.decision.SparseAllReduceDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

/** The sparse all-reduce: every rank's indices and values gathered, summed locally ({@link SparseAllReduceDecision}). */
public final class SparseOps {

    private final CollectiveRunner runner;

    public SparseOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<SparseTensor> allReduceSparse(SparseTensor tensor, ReduceOp op, CollectiveOptions options) {
        return runner.run(CollectiveCall.of(OpType._ALLREDUCE_SPARSE, options, () -> {
            CollectiveArguments.allReduceSparse(tensor, op);
            return SparseAllReduceDecision.decide(options.algorithm());
        }, (ch, chosen) -> chosen.body().apply(ch, tensor)));
    }
}
