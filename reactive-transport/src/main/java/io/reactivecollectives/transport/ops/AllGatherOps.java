package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.decision.AllGatherDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * All-gather into a list, into one tensor, and of several tensors at once (coalesced): what
 * {@link AllGatherDecision} chose, once per call.
 */
public final class AllGatherOps {

    private final CollectiveRunner runner;

    public AllGatherOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    private int size() {
        return runner.runtime().size();
    }

    public Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input, CollectiveOptions options) {
        String name = OpType.ALLGATHER.displayName();
        return runner.run(new CollectiveCall<>(OpType.ALLGATHER, options, () -> {
            CollectiveArguments.allGather(outputs, input, size());
            CollectiveArguments.requireCpu(name, input, "input");
            Layouts.requireCpu(name, outputs, "outputs");
            Layouts.requireWritable(name, outputs, "outputs");
            return AllGatherDecision.decide(OpType.ALLGATHER, options.algorithm(), runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.ALLGATHER, seq, input, -1, null), (ch, chosen) -> Mono.defer(() -> {
            Region[] blocks = Layouts.regions(outputs);
            blocks[ch.rank()].copyFrom(Region.of(input));
            return chosen.body().run(ch, blocks);
        }).thenReturn(outputs)).using(outputs, input));
    }

    public Mono<Tensor> allGatherInto(Tensor output, Tensor input, CollectiveOptions options) {
        String name = OpType._ALLGATHER_BASE.displayName();
        return runner.run(new CollectiveCall<>(OpType._ALLGATHER_BASE, options, () -> {
            CollectiveArguments.allGatherInto(output, input, size());
            CollectiveArguments.requireCpu(name, input, "input");
            CollectiveArguments.requireCpu(name, output, "output");
            CollectiveArguments.requireWritable(name, output, "output");
            return AllGatherDecision.decide(OpType._ALLGATHER_BASE, options.algorithm(), runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType._ALLGATHER_BASE, seq, input, -1, null), (ch, chosen) -> Mono.defer(() -> {
            Region[] blocks = Layouts.split(output, ch.size());
            blocks[ch.rank()].copyFrom(Region.of(input));
            return chosen.body().run(ch, blocks);
        }).thenReturn(output)).using(output, input));
    }

    /** Flattens the inputs into one block per rank (as gloo's allgather_coalesced), one ring, then copies out. */
    public Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs,
                                                       CollectiveOptions options) {
        String name = OpType.ALLGATHER_COALESCED.displayName();
        return runner.run(new CollectiveCall<>(OpType.ALLGATHER_COALESCED, options, () -> {
            CollectiveArguments.allGatherCoalesced(outputs, inputs, size());
            Layouts.requireCpu(name, inputs, "inputs");
            for (int i = 0; i < outputs.size(); i++) {
                Layouts.requireCpu(name, outputs.get(i), "outputs[" + i + "]");
                Layouts.requireWritable(name, outputs.get(i), "outputs[" + i + "]");
            }
            return AllGatherDecision.decide(OpType.ALLGATHER_COALESCED, options.algorithm(), runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.ALLGATHER_COALESCED, seq, inputs, -1, null), (ch, chosen) -> {
            int n = ch.size();
            int total = 0;
            for (Tensor t : inputs) {
                total = Math.addExact(total, Math.toIntExact(t.nbytes()));
            }
            int block = total;
            return Layouts.withBuffer(Math.multiplyExact(n, block), buf -> {
                Region all = new Region(buf, 0, n * block);
                Region[] blocks = new Region[n];
                for (int q = 0; q < n; q++) {
                    blocks[q] = all.sub(q * block, block);
                }
                int off = 0;
                for (Tensor t : inputs) {
                    int len = (int) t.nbytes();
                    blocks[ch.rank()].sub(off, len).copyFrom(Region.of(t));
                    off += len;
                }
                return chosen.body().run(ch, blocks).then(Mono.fromRunnable(() -> {
                    for (int q = 0; q < n; q++) {
                        int o = 0;
                        for (int i = 0; i < inputs.size(); i++) {
                            int len = (int) inputs.get(i).nbytes();
                            Region.of(outputs.get(i).get(q)).copyFrom(blocks[q].sub(o, len));
                            o += len;
                        }
                    }
                }));
            }).thenReturn(outputs);
        }).using(outputs, inputs));
    }
}
