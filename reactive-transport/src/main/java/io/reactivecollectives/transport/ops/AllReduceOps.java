package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Flattening;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.HierarchicalAllReduce;
import io.reactivecollectives.transport.algorithms.RecursiveDoublingAllReduce;
import io.reactivecollectives.transport.algorithms.RingAllReduce;
import io.reactivecollectives.transport.runtime.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveChannel;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * All-reduce: of one tensor (recursive doubling for small tensors, pipelined ring above), of a
 * list (small lists flattened into one exchange, else one all-reduce per tensor under one sequence
 * number) and of a stream of chunks.
 */
public final class AllReduceOps {

    private final CollectiveRunner runner;

    public AllReduceOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions options) {
        String name = OpType.ALLREDUCE.displayName();
        return runner.run(new CollectiveCall<>(OpType.ALLREDUCE, options, () -> {
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireWritable(name, tensor, "tensor");
            CollectiveArguments.requireReduceOp(name, op, tensor.dtype());
            runner.runtime().selector().select(OpType.ALLREDUCE, options.algorithm(), tensor.nbytes());
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE, seq, tensor, -1, op),
                ch -> body(ch, tensor, op, options.algorithm()).thenReturn(tensor)).using(tensor));
    }

    /** One tensor's all-reduce inside a collective: pre-scale, the algorithm, post-scale. */
    static Mono<Void> body(CollectiveChannel ch, Tensor tensor, ReduceOp op, Algorithm forced) {
        return Mono.defer(() -> {
            ReduceKernels.preprocess(op, tensor);
            Algorithm a = ch.choose(forced, tensor.nbytes());
            Mono<Void> run = a == Algorithm.RING ? RingAllReduce.run(ch, tensor, op)
                    : a == Algorithm.HIERARCHICAL ? HierarchicalAllReduce.run(ch, tensor, op)
                    : RecursiveDoublingAllReduce.run(ch, tensor, op);
            return op.kind() != ReduceOp.Kind.AVG ? run   // only AVG has a last step (its division)
                    : run.then(Mono.fromRunnable(() -> ReduceKernels.postprocess(op, tensor, ch.size())));
        });
    }

    public Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions options) {
        String name = OpType.ALLREDUCE_COALESCED.displayName();
        return runner.run(new CollectiveCall<>(OpType.ALLREDUCE_COALESCED, options, () -> {
            CollectiveArguments.requireNonEmpty(name, tensors, "tensors");
            DType dtype = tensors.get(0).dtype();
            for (int i = 0; i < tensors.size(); i++) {
                CollectiveArguments.requireCpu(name, tensors.get(i), "tensors[" + i + "]");
                CollectiveArguments.requireWritable(name, tensors.get(i), "tensors[" + i + "]");
                CollectiveArguments.requireSameDtype(name, tensors.get(i), dtype, "tensors[" + i + "]");
            }
            CollectiveArguments.requireReduceOp(name, op, dtype);
            runner.runtime().selector().select(OpType.ALLREDUCE_COALESCED, options.algorithm(), tensors.get(0).nbytes());
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE_COALESCED, seq, tensors, -1, op), ch -> {
            long total = 0;
            for (Tensor t : tensors) {
                total += t.nbytes();
            }
            if (tensors.size() > 1 && total <= runner.runtime().settings().smallAllReduceBytes()) {
                return flat(ch, tensors, op, options.algorithm()).thenReturn(tensors);
            }
            return Flux.range(0, tensors.size())
                    .flatMap(i -> body(ch.withTag(i), tensors.get(i), op, options.algorithm()), 4)
                    .then(Mono.just(tensors));
        }).using(tensors));
    }

    /** Small tensors: one flat buffer, one exchange. */
    private static Mono<Void> flat(CollectiveChannel ch, List<Tensor> tensors, ReduceOp op, Algorithm forced) {
        return Mono.usingWhen(Mono.fromCallable(() -> Flattening.flatten(tensors)),
                flat -> body(ch, flat, op, forced).then(Mono.fromRunnable(() -> Flattening.unflatten(flat, tensors))),
                flat -> Mono.fromRunnable(flat::release));
    }

    public Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch) {
        String name = "allReduceStream";
        return runner.runStream(name, () -> {
            if (chunks == null) {
                throw new IllegalArgumentException(name + ": chunks is null");
            }
            if (op == null) {
                throw new IllegalArgumentException(name + ": reduce op is null");
            }
            if (prefetch < 1) {
                throw new IllegalArgumentException(name + ": prefetch must be >= 1, got " + prefetch);
            }
        }, ch -> chunks.flatMapSequential(chunk -> Mono.defer(() -> {
            CollectiveArguments.requireCpu(name, chunk.tensor(), "chunk " + chunk.index());
            CollectiveArguments.requireWritable(name, chunk.tensor(), "chunk " + chunk.index());
            CollectiveArguments.requireReduceOp(name, op, chunk.dtype());
            return runner.withTimeout(ch, body(ch.withTag(chunk.index()), chunk.tensor(), op, Algorithm.AUTO)
                    .thenReturn(chunk));
        }), prefetch, 1));
    }
}
