package io.reactivecollectives.transport;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * allReduce for every dtype x valid op x sizes 0, 1 and 1001 (odd), with both algorithms, on world
 * sizes 1 to 5, against the element-by-element reference; small segments so that the ring runs
 * many pipelined lanes even on these sizes.
 */
class AllReduceTest {

    static final GroupOptions OPTIONS = GroupOptions.defaults().withGroupId("allreduce-test").withSegmentBytes(256);

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void everyDtypeOpAndSize(int world) {
        ClusterTesting.withCluster(world, OPTIONS, cluster -> {
            long seed = 1;
            for (DType dtype : DType.values()) {
                for (ReduceOp op : Reference.opsFor(dtype)) {
                    for (long n : new long[] {0, 1, 1001}) {
                        for (Algorithm a : new Algorithm[] {Algorithm.AUTO, Algorithm.RING}) {
                            check(cluster, dtype, op, n, a, seed++);
                        }
                    }
                }
            }
            return null;
        });
    }

    static void check(LocalCluster cluster, DType dtype, ReduceOp op, long n, Algorithm a, long seed) {
        int world = cluster.size();
        List<Tensor> heaps = ClusterTesting.heapInputs(world, dtype, op, seed, n);
        Tensor expected = ClusterTesting.expected(heaps, op);
        List<Tensor> inputs = ClusterTesting.pooled(heaps);
        try {
            CollectiveOptions opts = CollectiveOptions.algorithm(a);
            StepVerifier.create(cluster.run(g -> g.allReduce(inputs.get(g.rank()), op, opts)))
                    .assertNext(out -> {
                        assertEquals(world, out.size());
                        for (int r = 0; r < world; r++) {
                            assertSame(inputs.get(r), out.get(r));
                            Tensor got = out.get(r);
                            int rank = r;
                            assertTrue(ClusterTesting.matches(got, expected, op), () -> dtype + " " + op + " n=" + n + " "
                                    + a + " world " + world + " rank " + rank + ": got " + ClusterTesting.describe(got)
                                    + " expected " + ClusterTesting.describe(expected));
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            ClusterTesting.releaseAll(inputs);
        }
    }
}
