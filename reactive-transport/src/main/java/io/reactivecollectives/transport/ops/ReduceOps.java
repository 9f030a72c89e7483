package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.decision.ReduceDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

/** Reduce to a root: what {@link ReduceDecision} chose (the segmented binomial tree), once per call. */
public final class ReduceOps {

    private final CollectiveRunner runner;

    public ReduceOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions options) {
        String name = OpType.REDUCE.displayName();
        int size = runner.runtime().size();
        return runner.run(new CollectiveCall<>(OpType.REDUCE, options, () -> {
            CollectiveArguments.requireRoot(name, root, size);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireWritable(name, tensor, "tensor");
            CollectiveArguments.requireReduceOp(name, op, tensor.dtype());
            return ReduceDecision.decide(options.algorithm());
        }, seq -> CollectiveFingerprint.of(OpType.REDUCE, seq, tensor, root, op), (ch, chosen) -> Mono.defer(() -> {
            if (ch.rank() != root) {
                ch.requestReceipts();
            }
            ReduceKernels.preprocess(op, tensor);
            return chosen.body().run(ch, tensor, root, op)
                    .then(Mono.fromRunnable(() -> {
                        if (ch.rank() == root) {
                            ReduceKernels.postprocess(op, tensor, size);
                        }
                    }))
                    .then(ch.receipts())
                    .thenReturn(tensor);
        })).using(tensor));
    }
}
