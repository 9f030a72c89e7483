package io.reactivecollectives.transport;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

import java.util.ArrayList;
import java.util.List;

import static io.reactivecollectives.transport.FullSetTesting.describe;
import static io.reactivecollectives.transport.FullSetTesting.random;
import static io.reactivecollectives.transport.FullSetTesting.release;
import static io.reactivecollectives.transport.FullSetTesting.same;
import static io.reactivecollectives.transport.FullSetTesting.where;
import static io.reactivecollectives.transport.FullSetTesting.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * allGather, allGatherInto, allGatherCoalesced, gather and scatter (binomial tree, direct, and the
 * automatic choice) for every dtype x sizes 0, 1, odd and many segments x world sizes 1 to 5,
 * against the inputs themselves: every output must be bit for bit the piece of the rank it came from.
 */
class GatherScatterTest {

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void everyDtypeAndSize(int world) {
        FullSetTesting.withCluster(world, FullSetTesting.OPTIONS, cluster -> {
            long seed = world * 1000L;
            for (DType dtype : DType.values()) {
                for (long n : FullSetTesting.SIZES) {
                    allGather(cluster, dtype, new long[] {n}, seed++);
                    allGatherInto(cluster, dtype, n, seed++);
                    for (int root : roots(world)) {
                        for (Algorithm a : new Algorithm[] {Algorithm.AUTO, Algorithm.BINOMIAL_TREE, Algorithm.DIRECT}) {
                            gather(cluster, dtype, n, root, a, seed++);
                            scatter(cluster, dtype, n, root, a, seed++);
                        }
                    }
                }
                allGather(cluster, dtype, new long[] {3, 2, 5}, seed++);
                allGatherCoalesced(cluster, dtype, seed++);
            }
            return null;
        });
    }

    /** Default segments (256 KiB) and tree threshold: 1 MiB pieces take the direct path and several lanes. */
    @Test
    void largeTensorsWithDefaultOptions() {
        FullSetTesting.withCluster(3, GroupOptions.defaults().withGroupId("gather-large"), cluster -> {
            long n = (1 << 18) + 3;
            allGather(cluster, DType.FLOAT32, new long[] {n}, 7);
            allGatherInto(cluster, DType.FLOAT64, n, 8);
            gather(cluster, DType.INT32, n, 1, Algorithm.AUTO, 9);
            scatter(cluster, DType.INT32, n, 2, Algorithm.AUTO, 10);
            gather(cluster, DType.BFLOAT16, n, 0, Algorithm.BINOMIAL_TREE, 11);
            scatter(cluster, DType.BFLOAT16, n, 0, Algorithm.BINOMIAL_TREE, 12);
            return null;
        });
    }

    private static int[] roots(int world) {
        return world == 1 ? new int[] {0} : new int[] {0, world - 1};
    }

    private static List<Tensor> inputs(int world, DType dtype, long seed, long... shape) {
        List<Tensor> in = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            in.add(random(dtype, seed * 31 + r, shape));
        }
        return in;
    }

    static void allGather(LocalCluster cluster, DType dtype, long[] shape, long seed) {
        int world = cluster.size();
        List<Tensor> in = inputs(world, dtype, seed, shape);
        List<List<Tensor>> outs = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            outs.add(zeros(world, dtype, shape));
        }
        try {
            StepVerifier.create(cluster.run(g -> g.allGather(outs.get(g.rank()), in.get(g.rank()))))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            for (int q = 0; q < world; q++) {
                                Tensor got = outs.get(r).get(q);
                                Tensor want = in.get(q);
                                String w = where("allGather", dtype, shape, "world", world, "rank", r, "piece", q);
                                assertTrue(same(got, want), () -> w + ": " + describe(got) + " vs " + describe(want));
                            }
                        }
                    })
                    .expectComplete()
                    .verify(FullSetTesting.TIMEOUT);
        } finally {
            release(in);
            outs.forEach(FullSetTesting::release);
        }
    }

    static void allGatherInto(LocalCluster cluster, DType dtype, long n, long seed) {
        int world = cluster.size();
        List<Tensor> in = inputs(world, dtype, seed, n);
        List<Tensor> outs = zeros(world, dtype, world * n);
        try {
            StepVerifier.create(cluster.run(g -> g.allGatherInto(outs.get(g.rank()), in.get(g.rank()))))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            for (int q = 0; q < world; q++) {
                                Tensor piece = outs.get(r).narrow(q * n, n);
                                String w = where("allGatherInto", dtype, n, "world", world, "rank", r, "piece", q);
                                assertTrue(same(piece, in.get(q)), () -> w + ": " + describe(piece));
                            }
                        }
                    })
                    .expectComplete()
                    .verify(FullSetTesting.TIMEOUT);
        } finally {
            release(in);
            release(outs);
        }
    }

    static void allGatherCoalesced(LocalCluster cluster, DType dtype, long seed) {
        int world = cluster.size();
        long[][] shapes = {{5}, {0}, {2, 3}, {1}};
        List<List<Tensor>> in = new ArrayList<>();
        List<List<List<Tensor>>> outs = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            List<Tensor> mine = new ArrayList<>();
            List<List<Tensor>> o = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                mine.add(random(dtype, seed * 97 + r * 13 + i, shapes[i]));
                o.add(zeros(world, dtype, shapes[i]));
            }
            in.add(mine);
            outs.add(o);
        }
        try {
            StepVerifier.create(cluster.run(g -> g.allGatherCoalesced(outs.get(g.rank()), in.get(g.rank()))))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            for (int i = 0; i < shapes.length; i++) {
                                for (int q = 0; q < world; q++) {
                                    Tensor got = outs.get(r).get(i).get(q);
                                    String w = where("allGatherCoalesced", dtype, "world", world, "rank", r, "tensor", i, "from", q);
                                    assertTrue(same(got, in.get(q).get(i)), () -> w + ": " + describe(got));
                                }
                            }
                        }
                    })
                    .expectComplete()
                    .verify(FullSetTesting.TIMEOUT);
        } finally {
            in.forEach(FullSetTesting::release);
            outs.forEach(FullSetTesting::releaseNested);
        }
    }

    static void gather(LocalCluster cluster, DType dtype, long n, int root, Algorithm a, long seed) {
        int world = cluster.size();
        List<Tensor> in = inputs(world, dtype, seed, n);
        List<Tensor> outs = zeros(world, dtype, n);
        CollectiveOptions opts = CollectiveOptions.algorithm(a);
        try {
            StepVerifier.create(cluster.run(g -> ((MeshProcessGroup) g).gather(g.rank() == root ? outs : List.of(),
                            in.get(g.rank()), root, opts)))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            if (r == root) {
                                assertSame(outs, res.get(r));
                            } else {
                                assertEquals(List.of(), res.get(r));
                            }
                        }
                        for (int q = 0; q < world; q++) {
                            Tensor got = outs.get(q);
                            Tensor want = in.get(q);
                            String w = where("gather", dtype, n, a, "world", world, "root", root, "piece", q);
                            assertTrue(same(got, want), () -> w + ": " + describe(got) + " vs " + describe(want));
                        }
                    })
                    .expectComplete()
                    .verify(FullSetTesting.TIMEOUT);
        } finally {
            release(in);
            release(outs);
        }
    }

    static void scatter(LocalCluster cluster, DType dtype, long n, int root, Algorithm a, long seed) {
        int world = cluster.size();
        List<Tensor> in = inputs(world, dtype, seed, n);
        List<Tensor> outs = zeros(world, dtype, n);
        CollectiveOptions opts = CollectiveOptions.algorithm(a);
        try {
            StepVerifier.create(cluster.run(g -> ((MeshProcessGroup) g).scatter(outs.get(g.rank()),
                            g.rank() == root ? in : List.of(), root, opts)))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            Tensor got = outs.get(r);
                            Tensor want = in.get(r);
                            String w = where("scatter", dtype, n, a, "world", world, "root", root, "rank", r);
                            assertTrue(same(got, want), () -> w + ": " + describe(got) + " vs " + describe(want));
                        }
                    })
                    .expectComplete()
                    .verify(FullSetTesting.TIMEOUT);
        } finally {
            release(in);
            release(outs);
        }
    }
}
