package io.reactivecollectives.perf;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The -c check: every collective, out of place and in place, on real ranks, finds nothing wrong; a wrong element is counted. */
class OpBenchCheckTest {

    private static final Duration T = Duration.ofSeconds(20);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyCollectiveChecksCleanOnThreeRanks() {
        try (LocalCluster c = LocalCluster.start(3).block(T)) {
            for (String op : BusFactor.names()) {
                for (DType dt : List.of(DType.FLOAT32, DType.BFLOAT16, DType.INT32)) {
                    for (ReduceOp redop : List.of(ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.AVG)) {
                        if (!op.contains("reduce") && redop != ReduceOp.SUM) {
                            continue;
                        }
                        for (boolean inPlace : new boolean[] {false, true}) {
                            List<Long> wrong = check(c, op, dt, redop, 1, inPlace);
                            assertEquals(List.of(0L, 0L, 0L), wrong, op + " " + dt + " " + redop + (inPlace ? " in place" : ""));
                        }
                    }
                }
            }
        }
    }

    private static List<Long> check(LocalCluster c, String op, DType dt, ReduceOp redop, int root, boolean inPlace) {
        List<OpBench> benches = new ArrayList<>();
        try {
            for (int r = 0; r < c.size(); r++) {
                benches.add(OpBench.create(op, c.group(r), dt, 3 * 37, redop, root, CollectiveOptions.DEFAULT, inPlace, 0));
            }
            // each rank's check waits for its collective: on threads that may wait
            return c.run(g -> Mono.fromCallable(() -> benches.get(g.rank()).check()).subscribeOn(Schedulers.boundedElastic()))
                    .block(T);
        } finally {
            benches.forEach(OpBench::close);
        }
    }

    @Test
    void wrongElementsAreCounted() {
        Tensor t = Tensor.zeros(DType.FLOAT32, 10);
        try {
            for (int i = 0; i < 10; i++) {
                t.setDouble(i, OpBench.moved(1, i));
            }
            assertEquals(0, OpBench.wrong(t, 0, i -> OpBench.moved(1, i), DType.FLOAT32));
            t.setDouble(3, 99);
            t.setDouble(7, OpBench.moved(1, 7) * (1 + 1e-3));
            assertEquals(2, OpBench.wrong(t, 0, i -> OpBench.moved(1, i), DType.FLOAT32));
        } finally {
            t.release();
        }
        assertEquals(4 + 2, OpBench.expectedReduction(ReduceOp.SUM, 4, 0, DType.FLOAT32)); // 1,2,1,2
        assertEquals(4, OpBench.expectedReduction(ReduceOp.PRODUCT, 4, 1, DType.FLOAT32));
        assertEquals(1, OpBench.expectedReduction(ReduceOp.AVG, 4, 0, DType.INT32)); // 6 / 4 in integers
        assertEquals(1.5, OpBench.expectedReduction(ReduceOp.AVG, 4, 0, DType.FLOAT32));
    }
}
