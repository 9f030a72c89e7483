package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.decision.BroadcastDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

/** Broadcast: what {@link BroadcastDecision} chose, once per call; the root waits for the receivers' receipts. */
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
            return BroadcastDecision.decide(options.algorithm(), tensor.nbytes(), runner.runtime().shape());
        }, seq -> CollectiveFingerprint.of(OpType.BROADCAST, seq, tensor, root, null), (ch, chosen) -> {
            if (ch.rank() == root) {
                ch.requestReceipts();
            }
            Mono<Void> run = chosen.body().run(ch, tensor, root);
            // only the root waits for receipts (the receivers request none)
            return (ch.rank() == root ? run.then(ch.receipts()) : run).thenReturn(tensor);
        }).using(tensor));
    }
}
