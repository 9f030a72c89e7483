package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.algorithms.BinomialTreeBroadcast;
import io.reactivecollectives.transport.algorithms.HierarchicalBroadcast;
import io.reactivecollectives.transport.algorithms.PipelinedChainBroadcast;
import io.reactivecollectives.transport.runtime.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

/** Broadcast: binomial tree for small tensors, pipelined chain above. */
public final class BroadcastOps {

    private final CollectiveRunner runner;

    public BroadcastOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions options) {
        String name = OpType.BROADCAST.displayName();
        return runner.run(new CollectiveCall<>(OpType.BROADCAST, options, () -> {
            CollectiveArguments.requireRoot(name, root, runner.runtime().size());
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            if (runner.runtime().rank() != root) {
                CollectiveArguments.requireWritable(name, tensor, "tensor");
            }
            runner.runtime().selector().select(OpType.BROADCAST, options.algorithm(), tensor.nbytes());
        }, seq -> CollectiveFingerprint.of(OpType.BROADCAST, seq, tensor, root, null), ch -> {
            Algorithm a = ch.choose(options.algorithm(), tensor.nbytes());
            if (ch.rank() == root) {
                ch.requestReceipts();
            }
            Mono<Void> run = a == Algorithm.PIPELINED_CHAIN ? PipelinedChainBroadcast.run(ch, tensor, root)
                    : a == Algorithm.HIERARCHICAL ? HierarchicalBroadcast.run(ch, tensor, root)
                    : BinomialTreeBroadcast.run(ch, tensor, root);
            // only the root waits for receipts (the receivers request none)
            return (ch.rank() == root ? run.then(ch.receipts()) : run).thenReturn(tensor);
        }).using(tensor));
    }
}
