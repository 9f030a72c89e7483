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
import io.reactivecollectives.transport.decision.AllReduceDecision;
import io.reactivecollectives.transport.decision.Chosen;
import io.reactivecollectives.transport.runtime.CollectiveChannel;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * All-reduce: of one tensor, of a list (small lists flattened into one exchange, else one
 * all-reduce per tensor under one sequence number) and of a stream of chunks; each runs what
 * {@link AllReduceDecision} chose for it (once per call; per tensor for a list not flattened, per
 * chunk for a stream).
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
            return AllReduceDecision.decide(OpType.ALLREDUCE, options.algorithm(), tensor.nbytes(),
                    runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE, seq, tensor, -1, op),
                (ch, chosen) -> body(ch, tensor, op, chosen).thenReturn(tensor)).using(tensor));
    }

    /** One tensor's all-reduce inside a collective: pre-scale, the chosen algorithm, post-scale. */
    static Mono<Void> body(CollectiveChannel ch, Tensor tensor, ReduceOp op, Chosen<AllReduceDecision.Body> chosen) {
        return Mono.defer(() -> {
            ReduceKernels.preprocess(op, tensor);
            Mono<Void> run = chosen.body().run(ch, tensor, op);
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
            return AllReduceDecision.decideCoalesced(options.algorithm(), tensors, runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE_COALESCED, seq, tensors, -1, op), (ch, plan) -> {
            if (plan.flat() != null) {
                return flat(ch, tensors, op, plan.flat()).thenReturn(tensors);
            }
            return Flux.range(0, tensors.size())
                    .flatMap(i -> body(ch.withTag(i), tensors.get(i), op, plan.each().get(i)), 4)
                    .then(Mono.just(tensors));
        }).using(tensors));
    }

    /** Small tensors: one flat buffer, one exchange. */
    private static Mono<Void> flat(CollectiveChannel ch, List<Tensor> tensors, ReduceOp op,
                                   Chosen<AllReduceDecision.Body> chosen) {
        return Mono.usingWhen(Mono.fromCallable(() -> Flattening.flatten(tensors)),
                flat -> body(ch, flat, op, chosen).then(Mono.fromRunnable(() -> Flattening.unflatten(flat, tensors))),
                flat -> Mono.fromRunnable(flat::release));
    }

    public Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch) {
        String name = "allReduceStream";
        return runner.runStream(name, op, () -> {
            if (chunks == null) {
                throw new IllegalArgumentException(name + ": chunks is null");
            }
            if (op == null) {
                throw new IllegalArgumentException(name + ": reduce op is null");
            }
            if (prefetch < 1) {
                throw new IllegalArgumentException(name + ": prefetch must be >= 1, got " + prefetch);
            }
        }, ch -> {
            int[] end = new int[1];    // the index after the highest the source emitted (one subscription: the stream's)
            return chunks.doOnNext(c -> end[0] = Math.max(end[0], c.index() + 1)).flatMapSequential(chunk -> Mono.defer(() -> {
                CollectiveArguments.requireCpu(name, chunk.tensor(), "chunk " + chunk.index());
                CollectiveArguments.requireWritable(name, chunk.tensor(), "chunk " + chunk.index());
                CollectiveArguments.requireReduceOp(name, op, chunk.dtype());
                Chosen<AllReduceDecision.Body> chosen = AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO,
                        chunk.tensor().nbytes(), runner.runtime().shape());
                ch.recordAlgorithm(chosen.recordedName());
                // a chunk holds its memory while in flight, as a collective does: chunks of one stream that
                // overlap (reduced twice, in an order that differs between ranks) or memory another call uses are refused
                Object owner = new Object();
                String inUse = runner.runtime().claims().claim(List.of(chunk.tensor()), owner, () -> name + " chunk " + chunk.index());
                if (inUse != null) {
                    throw new IllegalArgumentException(name + ": chunk " + chunk.index() + ": " + inUse);
                }
                CollectiveChannel view;
                try {
                    view = ch.forChunk(chunk.index(), chunk.dtype());   // throws on a peer's other dtype or end
                } catch (RuntimeException e) {
                    runner.runtime().claims().release(owner);
                    throw e;
                }
                return runner.withTimeout(ch, body(view, chunk.tensor(), op, chosen)
                        .doOnSuccess(x -> view.chunkEnds())
                        .thenReturn(chunk))
                        .doOnEach(signal -> runner.runtime().claims().release(owner))
                        .doOnCancel(() -> runner.runtime().claims().release(owner));
            }), prefetch, 1).concatWith(Mono.defer(() -> streamEnd(ch, end[0])));
        });
    }

    /**
     * The stream's end, after its last chunk: one all-reduce of a tiny tensor tagged as chunk
     * {@code chunks} (the index after the highest, so that it meets no chunk of a stream whose
     * indices skip some) and marked as the end, so that ranks whose streams have different numbers of
     * chunks fail at once on every rank (a chunk meets an end) instead of the longer streams
     * waiting out their timeout while the shorter ones complete. Emits nothing.
     */
    private Mono<Chunk> streamEnd(CollectiveChannel ch, int chunks) {
        CollectiveChannel view = ch.forStreamEnd(chunks);
        Chosen<AllReduceDecision.Body> chosen = AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, Long.BYTES,
                runner.runtime().shape());
        return Mono.usingWhen(Mono.fromCallable(() -> Tensor.zeros(DType.INT64, 1)),
                end -> runner.withTimeout(ch, body(view, end, ReduceOp.SUM, chosen).doOnSuccess(x -> view.chunkEnds())),
                end -> Mono.fromRunnable(end::release)).then(Mono.empty());
    }
}
