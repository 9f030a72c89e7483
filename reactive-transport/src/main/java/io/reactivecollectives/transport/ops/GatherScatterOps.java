package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.BinomialTreeGather;
import io.reactivecollectives.transport.algorithms.BinomialTreeScatter;
import io.reactivecollectives.transport.algorithms.DirectGather;
import io.reactivecollectives.transport.algorithms.DirectScatter;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.runtime.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

import java.util.List;

/** Gather to a root and scatter from a root: binomial tree for small totals, direct above. */
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
            runner.runtime().selector().select(OpType.GATHER, options.algorithm(), 0);
        }, seq -> CollectiveFingerprint.of(OpType.GATHER, seq, input, root, null), ch -> Mono.defer(() -> {
            Algorithm a = ch.choose(options.algorithm(), input.nbytes() * size);
            if (rank != root) {
                ch.requestReceipts();
            }
            Region[] outs = rank == root ? Layouts.regions(outputs) : null;
            return a == Algorithm.DIRECT ? DirectGather.run(ch, root, Region.of(input), outs)
                    : BinomialTreeGather.run(ch, root, Region.of(input), outs);
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
            runner.runtime().selector().select(OpType.SCATTER, options.algorithm(), 0);
        }, seq -> CollectiveFingerprint.of(OpType.SCATTER, seq, output, root, null), ch -> Mono.defer(() -> {
            Algorithm a = ch.choose(options.algorithm(), output.nbytes() * size);
            if (rank == root) {
                ch.requestReceipts();
            }
            Region[] ins = rank == root ? Layouts.regions(inputs) : null;
            return a == Algorithm.DIRECT ? DirectScatter.run(ch, root, ins, Region.of(output))
                    : BinomialTreeScatter.run(ch, root, ins, Region.of(output));
        }).then(ch.receipts()).thenReturn(output)).using(output, inputs));
    }
}
