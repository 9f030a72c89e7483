package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The switch points by world size, and a group at 4 ranks choosing by them. */
class AlgorithmChoiceTest {

    private static final long K = 1024;

    @Test
    void allReduceSwitchPointFollowsTheCostModel() {
        assertEquals(64 * K, AlgorithmChoice.recursiveDoublingLimit(64 * K, 2));
        // n = 3: rounds 3 (fold, 1, unfold) vs 4, bytes 3 vs 4/3 whole buffers: 1 / (5/3) = 0.6
        assertEquals((long) (64 * K * 0.6), AlgorithmChoice.recursiveDoublingLimit(64 * K, 3));
        // n = 4: rounds 2 vs 6, bytes 2 vs 1.5: 4 / 0.5 = 8
        assertEquals(512 * K, AlgorithmChoice.recursiveDoublingLimit(64 * K, 4));
        // n = 8: rounds 3 vs 14, bytes 3 vs 1.75: 11 / 1.25 = 8.8
        assertEquals((long) (64 * K * 8.8), AlgorithmChoice.recursiveDoublingLimit(64 * K, 8));
        assertEquals(0, AlgorithmChoice.recursiveDoublingLimit(0, 5), "a threshold of 0 always picks the ring");
    }

    @Test
    void broadcastSwitchPointShrinksWithTheTreeDepth() {
        assertEquals(64 * K, AlgorithmChoice.binomialTreeLimit(64 * K, 2));
        assertEquals(32 * K, AlgorithmChoice.binomialTreeLimit(64 * K, 3));
        assertEquals(32 * K, AlgorithmChoice.binomialTreeLimit(64 * K, 4));
        assertEquals(16 * K, AlgorithmChoice.binomialTreeLimit(64 * K, 9));
    }

    @Test
    void aGroupOfFourRunsRecursiveDoublingUpToItsWorldSizesSwitchPoint() {
        LocalCluster c = LocalCluster.start(4, GroupOptions.defaults().withGroupId("choice")).block(Duration.ofSeconds(30));
        List<Tensor> ts = new ArrayList<>();
        try {
            for (int r = 0; r < 4; r++) {
                ts.add(Tensor.zeros(DType.FLOAT32, 256 * K / 4).fill(r + 1));   // 256 KiB: ring at 2 ranks, RD at 4
            }
            c.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
            for (MeshProcessGroup g : c.groups()) {
                var entries = g.flightRecorder().entries();
                assertEquals("recursive_doubling", entries.get(entries.size() - 1).algorithm());
            }
            assertEquals(10.0, ts.get(3).getDouble(256 * K / 4 - 1));
        } finally {
            c.close();
            ts.forEach(Tensor::release);
        }
    }
}
