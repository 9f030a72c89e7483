package io.reactivecollectives.transport;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * broadcast (both algorithms, every root), reduce (every valid op, rotating roots),
 * allReduceCoalesced (flat and per-tensor paths) and barrier, for every dtype, sizes 0, 1 and 1001,
 * world sizes 1 to 5.
 */
class RootedCollectivesTest {

    static final GroupOptions OPTIONS = GroupOptions.defaults().withGroupId("rooted-test").withSegmentBytes(256)
            .withSmallAllReduceBytes(1024);

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void broadcastReduceCoalescedBarrier(int world) {
        ClusterTesting.withCluster(world, OPTIONS, cluster -> {
            long seed = 100;
            for (DType dtype : DType.values()) {
                for (long n : new long[] {0, 1, 1001}) {
                    for (Algorithm a : new Algorithm[] {Algorithm.BINOMIAL_TREE, Algorithm.PIPELINED_CHAIN}) {
                        broadcast(cluster, dtype, n, (int) (seed % world), a, seed++);
                    }
                    int i = 0;
                    for (ReduceOp op : Reference.opsFor(dtype)) {
                        reduce(cluster, dtype, op, n, (i++ + (int) n) % world, seed++);
                    }
                    coalesced(cluster, dtype, Reference.opsFor(dtype).get((int) (seed % 3)), n, seed++);
                }
            }
            StepVerifier.create(cluster.run(g -> g.barrier().thenReturn(g.rank())))
                    .assertNext(ranks -> assertEquals(world, ranks.size()))
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
            return null;
        });
    }

    static void broadcast(LocalCluster cluster, DType dtype, long n, int root, Algorithm a, long seed) {
        int world = cluster.size();
        List<Tensor> heaps = ClusterTesting.heapInputs(world, dtype, ReduceOp.SUM, seed, n);
        Tensor expected = heaps.get(root);
        List<Tensor> inputs = ClusterTesting.pooled(heaps);
        try {
            StepVerifier.create(cluster.run(g -> g.broadcast(inputs.get(g.rank()), root, CollectiveOptions.algorithm(a))))
                    .assertNext(out -> {
                        for (int r = 0; r < world; r++) {
                            int rank = r;
                            assertTrue(ClusterTesting.matches(out.get(r), expected, null), () -> "broadcast " + dtype
                                    + " n=" + n + " root " + root + " " + a + " rank " + rank);
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            ClusterTesting.releaseAll(inputs);
        }
    }

    static void reduce(LocalCluster cluster, DType dtype, ReduceOp op, long n, int root, long seed) {
        int world = cluster.size();
        List<Tensor> heaps = ClusterTesting.heapInputs(world, dtype, op, seed, n);
        Tensor expected = ClusterTesting.expected(heaps, op);
        List<Tensor> inputs = ClusterTesting.pooled(heaps);
        try {
            StepVerifier.create(cluster.run(g -> g.reduce(inputs.get(g.rank()), root, op, CollectiveOptions.DEFAULT)))
                    .assertNext(out -> assertTrue(ClusterTesting.matches(out.get(root), expected, op), () -> "reduce "
                            + dtype + " " + op + " n=" + n + " root " + root + ": got " + ClusterTesting.describe(out.get(root))
                            + " expected " + ClusterTesting.describe(expected)))
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            ClusterTesting.releaseAll(inputs);
        }
    }

    /** Three tensors of sizes n, 2 and 7 per rank: flat path when small, per-tensor path for n = 1001. */
    static void coalesced(LocalCluster cluster, DType dtype, ReduceOp op, long n, long seed) {
        int world = cluster.size();
        long[] sizes = {n, 2, 7};
        List<List<Tensor>> heaps = new ArrayList<>();
        List<Tensor> expected = new ArrayList<>();
        List<List<Tensor>> inputs = new ArrayList<>();
        for (int k = 0; k < sizes.length; k++) {
            List<Tensor> h = ClusterTesting.heapInputs(world, dtype, op, seed * 7 + k, sizes[k]);
            heaps.add(h);
            expected.add(ClusterTesting.expected(h, op));
        }
        for (int r = 0; r < world; r++) {
            List<Tensor> mine = new ArrayList<>();
            for (int k = 0; k < sizes.length; k++) {
                mine.add(ClusterTesting.pooledCopy(heaps.get(k).get(r)));
            }
            inputs.add(mine);
        }
        try {
            StepVerifier.create(cluster.run(g -> g.allReduceCoalesced(inputs.get(g.rank()), op, CollectiveOptions.DEFAULT)))
                    .assertNext(out -> {
                        for (int r = 0; r < world; r++) {
                            for (int k = 0; k < sizes.length; k++) {
                                int rank = r;
                                int kk = k;
                                assertTrue(ClusterTesting.matches(out.get(r).get(k), expected.get(k), op), () ->
                                        "allReduceCoalesced " + dtype + " " + op + " rank " + rank + " tensor " + kk);
                            }
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            inputs.forEach(ClusterTesting::releaseAll);
        }
    }

}
