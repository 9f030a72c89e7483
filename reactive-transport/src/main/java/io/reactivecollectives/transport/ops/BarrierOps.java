package io.reactivecollectives.transport.ops;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.decision.BarrierDecision;
import io.reactivecollectives.transport.runtime.CollectiveRunner.CollectiveCall;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * The barrier (dissemination) and the monitored barrier (rank 0 names the ranks that never came),
 * as {@link BarrierDecision} has them.
 */
public final class BarrierOps {

    private final CollectiveRunner runner;

    public BarrierOps(CollectiveRunner runner) {
        this.runner = runner;
    }

    public Mono<Void> barrier(CollectiveOptions options) {
        return runner.run(CollectiveCall.of(OpType.BARRIER, options,
                () -> BarrierDecision.decide(options.algorithm()),
                (ch, chosen) -> chosen.body().apply(ch)));
    }

    /**
     * Rank 0 waits up to {@code timeout} for every rank; the other ranks wait for rank 0's release,
     * or its failure, up to twice that or the group's timeout.
     */
    public Mono<Void> monitoredBarrier(Duration timeout, boolean waitAllRanks) {
        return Mono.defer(() -> {
            Duration group = runner.runtime().settings().timeout();
            Duration limit = group;
            if (timeout != null && !timeout.isNegative() && !timeout.isZero()) {
                Duration twice = timeout.multipliedBy(2);
                limit = runner.runtime().rank() == 0 ? timeout.plusSeconds(5)
                        : (twice.compareTo(group) > 0 ? twice : group);
            }
            return runner.run(CollectiveCall.of(OpType.MONITORED_BARRIER, CollectiveOptions.timeout(limit),
                    () -> {
                        CollectiveArguments.monitoredBarrier(timeout);
                        return BarrierDecision.decideMonitored();
                    },
                    (ch, chosen) -> chosen.body().run(ch, timeout, waitAllRanks)));
        });
    }
}
