package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.decision.GatherDecision;
import io.reactivecollectives.transport.decision.ScatterDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * Gather to a root and scatter from a root: what {@link GatherDecision} and {@link ScatterDecision}
 * chose, once per call.
 */
public final class GatherScatterOps {

    private final CollectiveRunner runner;

    public GatherScatterOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    /** Emits the outputs on the root, an empty list elsewhere. */
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root, CollectiveOptions options) {
        String name = OpType.GATHER.displayName();
        int rank = runner.runtime().rank();
        int size = runner.runtime().size();
        return runner.run(new CollectiveCall<>(OpType.GATHER, options, () -> {
            CollectiveArguments.gather(outputs, input, root, rank, size);
            CollectiveArguments.requireCpu(name, input, "input");
            Layouts.requireCpu(name, outputs, "outputs");
            Layouts.requireWritable(name, outputs, "outputs");
            return GatherDecision.decide(options.algorithm(), input.nbytes() * size, runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.GATHER, seq, input, root, null), (ch, chosen) -> Mono.defer(() -> {
            if (rank != root) {
                ch.requestReceipts();
            }
            Region[] outs = rank == root ? Layouts.regions(outputs) : null;
            return chosen.body().run(ch, root, Region.of(input), outs);
        }).then(ch.receipts()).thenReturn(rank == root ? outputs : List.<Tensor>of())).using(outputs, input));
    }

    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root, CollectiveOptions options) {
        String name = OpType.SCATTER.displayName();
        int rank = runner.runtime().rank();
        int size = runner.runtime().size();
        return runner.run(new CollectiveCall<>(OpType.SCATTER, options, () -> {
            CollectiveArguments.scatter(output, inputs, root, rank, size);
            CollectiveArguments.requireCpu(name, output, "output");
            CollectiveArguments.requireWritable(name, output, "output");
            Layouts.requireCpu(name, inputs, "inputs");
            return ScatterDecision.decide(options.algorithm(), output.nbytes() * size, runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.SCATTER, seq, output, root, null), (ch, chosen) -> Mono.defer(() -> {
            if (rank == root) {
                ch.requestReceipts();
            }
            Region[] ins = rank == root ? Layouts.regions(inputs) : null;
            return chosen.body().run(ch, root, ins, Region.of(output));
        }).then(ch.receipts()).thenReturn(output)).using(output, inputs));
    }
}
