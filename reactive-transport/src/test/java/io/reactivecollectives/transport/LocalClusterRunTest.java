package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LocalCluster#run}: a rank whose collective fails as it is subscribed (a bad argument) does
 * not keep the later ranks from subscribing theirs, so the cluster's ranks stay in step.
 */
class LocalClusterRunTest {

    private static final Duration T = Duration.ofSeconds(30);

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aBadArgumentOnRankZeroLeavesTheClusterInStepForTheNextRun() {
        GroupOptions options = GroupOptions.defaults().withGroupId("run-bad-arg").withTimeout(Duration.ofSeconds(10));
        try (LocalCluster cluster = LocalCluster.start(3, options).block(T)) {
            List<Tensor> ts = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                ts.add(Tensor.zeros(DType.FLOAT32, 4).fill(r + 1));
            }
            Tensor released = Tensor.zeros(DType.FLOAT32, 4);
            released.release();
            try {
                // rank 0's call fails at once (IllegalArgumentException as it is subscribed)
                Throwable e = assertThrows(Throwable.class, () -> cluster.run(g ->
                        g.allReduce(g.rank() == 0 ? released : ts.get(g.rank()), ReduceOp.SUM)).block(T));
                assertTrue(e instanceof IllegalArgumentException, e.toString());
                assertTrue(e.getMessage().contains("already released"), e.getMessage());
                // every rank took that call's number: the next run pairs up and is right everywhere
                for (int r = 0; r < 3; r++) {
                    ts.get(r).fill(r + 1);
                }
                List<Double> sums = cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM).map(t -> t.getDouble(3)))
                        .block(T);
                assertEquals(List.of(6.0, 6.0, 6.0), sums);
                assertEquals(List.of(2L, 2L, 2L), cluster.run(g -> Mono.just(
                        ((MeshProcessGroup) g).nextSequence())).block(T));
            } finally {
                ts.forEach(Tensor::release);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyRankSeesTheSubscribersContext() {
        try (LocalCluster cluster = LocalCluster.start(2, GroupOptions.defaults().withGroupId("run-context")).block(T)) {
            List<String> seen = cluster.run(g -> Mono.deferContextual(ctx -> Mono.just(ctx.getOrDefault("step", "none") + "@" + g.rank())))
                    .contextWrite(reactor.util.context.Context.of("step", "train-7"))
                    .block(T);
            assertEquals(List.of("train-7@0", "train-7@1"), seen);
        }
    }
}
