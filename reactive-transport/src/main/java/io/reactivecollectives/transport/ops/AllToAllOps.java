package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.decision.AllToAllDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

import java.util.List;

/** All-to-all of tensor lists and of one tensor with split sizes: what {@link AllToAllDecision} chose, once per call. */
public final class AllToAllOps {

    private final CollectiveRunner runner;

    public AllToAllOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs, CollectiveOptions options) {
        String name = OpType.ALLTOALL.displayName();
        int rank = runner.runtime().rank();
        int size = runner.runtime().size();
        return runner.run(new CollectiveCall<>(OpType.ALLTOALL, options, () -> {
            CollectiveArguments.allToAll(outputs, inputs, rank, size);
            Layouts.requireCpu(name, outputs, "outputs");
            Layouts.requireWritable(name, outputs, "outputs");
            Layouts.requireCpu(name, inputs, "inputs");
            return AllToAllDecision.decide(OpType.ALLTOALL, options.algorithm(), runner.runtime().shape());
        }, seq -> new CollectiveFingerprint(OpType.ALLTOALL, seq, inputs.get(0).dtype(), List.of(), -1, null),
                (ch, chosen) -> Mono.defer(() -> chosen.body().run(ch, Layouts.regions(inputs), Layouts.regions(outputs)))
                        .thenReturn(outputs)).using(outputs, inputs));
    }

    public Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                       CollectiveOptions options) {
        String name = OpType.ALLTOALL_BASE.displayName();
        int rank = runner.runtime().rank();
        int size = runner.runtime().size();
        return runner.run(new CollectiveCall<>(OpType.ALLTOALL_BASE, options, () -> {
            CollectiveArguments.allToAllSingle(output, input, outputSplits, inputSplits, rank, size);
            CollectiveArguments.requireCpu(name, output, "output");
            CollectiveArguments.requireWritable(name, output, "output");
            CollectiveArguments.requireCpu(name, input, "input");
            return AllToAllDecision.decide(OpType.ALLTOALL_BASE, options.algorithm(), runner.runtime().shape());
        }, seq -> new CollectiveFingerprint(OpType.ALLTOALL_BASE, seq, input.dtype(), List.of(), -1, null), (ch, chosen) -> {
            CollectiveArguments.AllToAllSplits s =
                    CollectiveArguments.allToAllSingle(output, input, outputSplits, inputSplits, rank, size);
            return Mono.defer(() -> {
                int es = input.dtype().byteSize();
                Region in = Region.of(input);
                Region out = Region.of(output);
                Region[] send = new Region[size];
                Region[] recv = new Region[size];
                for (int q = 0; q < size; q++) {
                    send[q] = in.sub(Math.toIntExact(s.inputOffset(q) * es),
                            Math.toIntExact(s.inputRows()[q] * s.rowElements() * es));
                    recv[q] = out.sub(Math.toIntExact(s.outputOffset(q) * es),
                            Math.toIntExact(s.outputRows()[q] * s.rowElements() * es));
                }
                return chosen.body().run(ch, send, recv);
            }).thenReturn(output);
        }).using(output, input));
    }
}
