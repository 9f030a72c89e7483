package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.PhasePeers;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.decision.Chosen;
import io.reactivecollectives.transport.decision.ReduceScatterDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Reduce-scatter of a list, of one tensor, and of several pairs at once: what
 * {@link ReduceScatterDecision} chose, once per call (for all the pairs of a coalesced call).
 */
public final class ReduceScatterOps {

    private final CollectiveRunner runner;

    public ReduceScatterOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    private int size() {
        return runner.runtime().size();
    }

    public Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op, CollectiveOptions options) {
        String name = OpType.REDUCE_SCATTER.displayName();
        return runner.run(new CollectiveCall<>(OpType.REDUCE_SCATTER, options, () -> {
            CollectiveArguments.reduceScatter(output, inputs, op, size());
            CollectiveArguments.requireCpu(name, output, "output");
            CollectiveArguments.requireWritable(name, output, "output");
            Layouts.requireCpu(name, inputs, "inputs");
            return ReduceScatterDecision.decide(OpType.REDUCE_SCATTER, options.algorithm(), runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.REDUCE_SCATTER, seq, output, -1, op),
                (ch, chosen) -> ofList(chosen, ch, output, inputs, op).thenReturn(output)).using(output, inputs));
    }

    public Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op, CollectiveOptions options) {
        String name = OpType._REDUCE_SCATTER_BASE.displayName();
        return runner.run(new CollectiveCall<>(OpType._REDUCE_SCATTER_BASE, options, () -> {
            CollectiveArguments.reduceScatterTensor(output, input, op, size());
            CollectiveArguments.requireCpu(name, output, "output");
            CollectiveArguments.requireWritable(name, output, "output");
            CollectiveArguments.requireCpu(name, input, "input");
            return ReduceScatterDecision.decide(OpType._REDUCE_SCATTER_BASE, options.algorithm(),
                    runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType._REDUCE_SCATTER_BASE, seq, input, -1, op),
                (ch, chosen) -> ofTensor(chosen, ch, output, input, op).thenReturn(output)).using(output, input));
    }

    /** One ring reduce-scatter per pair, one after the other, each in its own phase of the collective. */
    public Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op,
                                                           CollectiveOptions options) {
        String name = OpType.REDUCE_SCATTER_TENSOR_COALESCED.displayName();
        return runner.run(new CollectiveCall<>(OpType.REDUCE_SCATTER_TENSOR_COALESCED, options, () -> {
            CollectiveArguments.reduceScatterTensorCoalesced(outputs, inputs, op, size());
            Layouts.requireCpu(name, outputs, "outputs");
            Layouts.requireWritable(name, outputs, "outputs");
            Layouts.requireCpu(name, inputs, "inputs");
            return ReduceScatterDecision.decideCoalesced(options.algorithm());
        }, seq -> CollectiveFingerprint.of(OpType.REDUCE_SCATTER_TENSOR_COALESCED, seq, inputs, -1, op),
                (ch, chosen) -> Flux.range(0, inputs.size())
                        .concatMap(i -> ofTensor(chosen, PhasePeers.of(ch, i), outputs.get(i), inputs.get(i), op))
                        .then(Mono.just(outputs))).using(outputs, inputs));
    }

    private static Mono<Void> ofList(Chosen<ReduceScatterDecision.Body> a, Peers p, Tensor output, List<Tensor> inputs, ReduceOp op) {
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM) {
            return Mono.defer(() -> blocks(a, p, output, Layouts.regions(inputs), op));
        }
        // PREMUL_SUM scales each rank's input once: on copies, the caller's inputs stay as they are
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    List<Tensor> copies = new ArrayList<>(inputs.size());
                    for (Tensor t : inputs) {
                        Tensor c = t.copy();
                        copies.add(c);
                        ReduceKernels.preprocess(op, c);
                    }
                    return copies;
                }),
                copies -> blocks(a, p, output, Layouts.regions(copies), op),
                copies -> Mono.fromRunnable(() -> copies.forEach(Tensor::release)));
    }

    private static Mono<Void> ofTensor(Chosen<ReduceScatterDecision.Body> a, Peers p, Tensor output, Tensor input, ReduceOp op) {
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM) {
            return Mono.defer(() -> blocks(a, p, output, Layouts.split(input, p.size()), op));
        }
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    Tensor c = input.copy();
                    ReduceKernels.preprocess(op, c);
                    return c;
                }),
                c -> blocks(a, p, output, Layouts.split(c, p.size()), op),
                c -> Mono.fromRunnable(c::release));
    }

    /** The reduce-scatter the decision chose, then the op's post-scaling. */
    private static Mono<Void> blocks(Chosen<ReduceScatterDecision.Body> a, Peers p, Tensor output, Region[] blocks,
                                     ReduceOp op) {
        return a.body().run(p, op, output.dtype(), blocks, Region.of(output))
                .then(Mono.fromRunnable(() -> ReduceKernels.postprocess(op, output, p.size())));
    }
}
