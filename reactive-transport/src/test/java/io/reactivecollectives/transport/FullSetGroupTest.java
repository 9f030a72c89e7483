package io.reactivecollectives.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.MetricNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;

import static io.reactivecollectives.transport.FullSetTesting.describe;
import static io.reactivecollectives.transport.FullSetTesting.release;
import static io.reactivecollectives.transport.FullSetTesting.same;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * monitoredBarrier (release, and the timeout naming the late ranks), newGroup (outsiders get an
 * empty result; subgroup collectives run at the same time as the parent's), sparse all-reduce (SUM
 * with duplicate indices, other ops rejected), and the argument checks of the whole set: a clear
 * IllegalArgumentException naming the op, and nothing sent.
 */
class FullSetGroupTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    // ------------------------------------------------------------------ monitored barrier

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 5})
    void monitoredBarrierReleasesEveryRank(int world) {
        FullSetTesting.withCluster(world, FullSetTesting.OPTIONS.withGroupId("mb"), cluster -> {
            for (boolean all : new boolean[] {false, true}) {
                StepVerifier.create(cluster.run(g -> g.monitoredBarrier(Duration.ofSeconds(10), all).thenReturn(g.rank())))
                        .assertNext(res -> assertEquals(world, res.size()))
                        .expectComplete().verify(WAIT);
            }
            return null;
        });
    }

    /** Ranks 2 and 3 of 4 never arrive: rank 0 names the first late rank, or both with waitAllRanks. */
    @ParameterizedTest(name = "waitAllRanks {0}")
    @ValueSource(booleans = {false, true})
    void monitoredBarrierTimeoutNamesTheMissingRanks(boolean waitAllRanks) {
        FullSetTesting.withCluster(4, FullSetTesting.OPTIONS.withGroupId("mb-late"), cluster -> {
            Duration timeout = Duration.ofMillis(500);
            StepVerifier.Step<Void> root = StepVerifier.create(cluster.group(0).monitoredBarrier(timeout, waitAllRanks));
            StepVerifier rootVerdict = root
                    .expectErrorSatisfies(e -> {
                        assertInstanceOf(CollectiveTimeoutException.class, e);
                        String m = e.getMessage();
                        assertTrue(m.contains("monitoredBarrier") && m.contains("rank 0"), m);
                        if (waitAllRanks) {
                            assertTrue(m.contains("ranks [2, 3] did not arrive"), m);
                        } else {
                            assertTrue(m.contains("rank 2 did not arrive") && !m.contains("[2, 3]"), m);
                        }
                    })
                    .verifyLater();
            // rank 1 arrives, and fails with rank 0's verdict instead of waiting for ever
            StepVerifier.create(cluster.group(1).monitoredBarrier(timeout, waitAllRanks))
                    .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("did not arrive"), e.getMessage()))
                    .verify(WAIT);
            rootVerdict.verify(WAIT);
            return null;
        });
    }

    // ------------------------------------------------------------------ subgroups

    @Test
    void splitGivesEveryRankItsSubgroupAndRejectsOverlaps() {
        FullSetTesting.withCluster(5, FullSetTesting.OPTIONS.withGroupId("splitting"), cluster -> {
            List<List<Integer>> partition = List.of(List.of(4, 0), List.of(1, 3));   // rank 2 in none
            List<Optional<ProcessGroup>> subs = cluster.run(g -> g.split(partition).map(Optional::of)
                    .defaultIfEmpty(Optional.empty())).block(WAIT);
            assertFalse(subs.get(2).isPresent(), "rank 2 is in no list");
            List<Tensor> ts = new ArrayList<>();
            try {
                for (int r = 0; r < 5; r++) {
                    ts.add(Tensor.fromLongs(new long[] {1L << r}, 1));
                }
                StepVerifier.create(cluster.run(g -> subs.get(g.rank())
                                .map(sub -> sub.allReduce(ts.get(g.rank()), ReduceOp.SUM).thenReturn(sub.size()))
                                .orElse(Mono.just(0))))
                        .expectNextCount(1).expectComplete().verify(WAIT);
                assertEquals(1 + 16, ts.get(0).getLong(0));
                assertEquals(1 + 16, ts.get(4).getLong(0));
                assertEquals(2 + 8, ts.get(1).getLong(0));
                assertEquals(2 + 8, ts.get(3).getLong(0));
                assertEquals(4, ts.get(2).getLong(0), "rank 2 untouched");
                assertEquals(0, subs.get(0).orElseThrow().rank(), "members numbered by sorted rank");
                assertEquals(1, subs.get(4).orElseThrow().rank());
            } finally {
                ts.forEach(Tensor::release);
            }
            IllegalArgumentException overlap = assertThrows(IllegalArgumentException.class,
                    () -> cluster.group(0).split(List.of(List.of(0, 1), List.of(1, 2))).block(WAIT));
            assertEquals("split: rank 1 is in more than one group of [[0, 1], [1, 2]]", overlap.getMessage());
            IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                    () -> cluster.group(0).split(List.of(List.of(0, 7))).block(WAIT));
            assertEquals("split: invalid rank 7 for world size 5", range.getMessage());
            return null;
        });
    }

    @Test
    void newGroupOutsidersGetEmptyAndSubgroupRunsConcurrentlyWithParent() {
        FullSetTesting.withCluster(4, FullSetTesting.OPTIONS.withGroupId("parent"), cluster -> {
            List<Optional<ProcessGroup>> subs = cluster.run(g -> g.newGroup(List.of(3, 1)).map(Optional::of)
                    .defaultIfEmpty(Optional.empty())).block(WAIT);
            assertFalse(subs.get(0).isPresent(), "rank 0 is outside");
            assertFalse(subs.get(2).isPresent(), "rank 2 is outside");
            ProcessGroup sub1 = subs.get(1).orElseThrow();
            ProcessGroup sub3 = subs.get(3).orElseThrow();
            assertEquals(2, sub1.size());
            assertEquals(0, sub1.rank(), "members numbered by sorted rank");
            assertEquals(1, sub3.rank());

            List<Tensor> parentT = new ArrayList<>();
            List<Tensor> subT = new ArrayList<>();
            try {
                for (int r = 0; r < 4; r++) {
                    parentT.add(Tensor.fromLongs(new long[] {r + 1, 10L * (r + 1)}, 2));
                    subT.add(Tensor.fromLongs(new long[] {100L * (r + 1)}, 1));
                }
                // parent all-reduce and subgroup all-gather + all-reduce issued at the same time on ranks 1 and 3
                StepVerifier.create(cluster.run(g -> {
                            Mono<Tensor> parent = g.allReduce(parentT.get(g.rank()), ReduceOp.SUM);
                            Optional<ProcessGroup> sub = subs.get(g.rank());
                            if (sub.isEmpty()) {
                                return parent.thenReturn(g.rank());
                            }
                            return Mono.when(parent, sub.get().allReduce(subT.get(g.rank()), ReduceOp.SUM)).thenReturn(g.rank());
                        }))
                        .expectNextCount(1).expectComplete().verify(WAIT);
                for (int r = 0; r < 4; r++) {
                    assertEquals(1 + 2 + 3 + 4, parentT.get(r).getLong(0));
                    assertEquals(10 * (1 + 2 + 3 + 4), parentT.get(r).getLong(1));
                }
                assertEquals(200 + 400, subT.get(1).getLong(0));
                assertEquals(200 + 400, subT.get(3).getLong(0));
                assertEquals(100, subT.get(0).getLong(0), "rank 0 not in the subgroup: untouched");
                // the full set on the subgroup too
                List<Tensor> outs1 = FullSetTesting.zeros(2, DType.INT64, 1);
                List<Tensor> outs3 = FullSetTesting.zeros(2, DType.INT64, 1);
                try {
                    StepVerifier.create(Mono.zip(sub1.allGather(outs1, subT.get(1)), sub3.allGather(outs3, subT.get(3))))
                            .expectNextCount(1).expectComplete().verify(WAIT);
                    assertTrue(same(outs1.get(1), subT.get(3)) && same(outs3.get(0), subT.get(1)));
                } finally {
                    release(outs1);
                    release(outs3);
                }
            } finally {
                release(parentT);
                release(subT);
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ sparse all-reduce

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 5})
    void sparseAllReduceSumsWithDuplicateIndices(int world) {
        FullSetTesting.withCluster(world, FullSetTesting.OPTIONS.withGroupId("sparse"), cluster -> {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.INT64, DType.FLOAT64}) {
                for (int nnz : new int[] {0, 1, 9}) {
                    sparseCase(cluster, dtype, nnz, world * 100L + nnz);
                }
            }
            return null;
        });
    }

    /** Indices drawn from 4 x 3 positions, so duplicates within a rank and across ranks are certain at nnz 9. */
    private static void sparseCase(LocalCluster cluster, DType dtype, int nnz, long seed) {
        int world = cluster.size();
        List<SparseTensor> in = new ArrayList<>();
        List<SparseTensor> results = new ArrayList<>();
        List<Tensor> dense = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                SplittableRandom rnd = new SplittableRandom(seed * 31 + r);
                long[] idx = new long[2 * nnz];
                double[] vals = new double[nnz * 2];
                for (int k = 0; k < nnz; k++) {
                    idx[k] = rnd.nextInt(4);
                    idx[nnz + k] = rnd.nextInt(3);
                    vals[2 * k] = rnd.nextInt(-20, 20);
                    vals[2 * k + 1] = rnd.nextInt(-20, 20);
                }
                // dense shape [4, 3, 2]: two sparse dims, one dense dim of 2 values per entry
                in.add(SparseTensor.of(Tensor.fromLongs(idx, 2, nnz), Tensor.fromDoubles(dtype, vals, nnz, 2), 4, 3, 2));
                dense.add(in.get(r).toDense());
            }
            results.addAll(cluster.run(g -> g.allReduceSparse(in.get(g.rank()), ReduceOp.SUM)).block(WAIT));
            Tensor want = Reference.reduce(dense, ReduceOp.SUM);
            dense.add(want);
            for (int r = 0; r < world; r++) {
                SparseTensor got = results.get(r);
                assertTrue(got.isCoalesced(), "result is coalesced");
                Tensor gotDense = got.toDense();
                dense.add(gotDense);
                int rank = r;
                assertTrue(same(gotDense, want), () -> "sparse " + dtype + " nnz " + nnz + " world " + world + " rank " + rank
                        + ": " + describe(gotDense) + " vs " + describe(want));
                // the inputs are only read
                assertEquals(nnz, in.get(r).nnz());
            }
        } finally {
            in.forEach(SparseTensor::release);
            results.forEach(SparseTensor::release);
            release(dense);
        }
    }

    // ------------------------------------------------------------------ argument checks

    /**
     * Every bad call fails on every rank with an IllegalArgumentException naming the op, on
     * subscription, before anything is sent: the bytes-sent counter of every rank stays where it
     * was, and the next valid collective (whose sequence numbers would disagree had a rejected
     * call counted on some rank) still gives the right answer.
     */
    @Test
    void badArgumentsAreRejectedNamingTheOpAndNothingIsSent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        int world = 3;
        FullSetTesting.withCluster(world, FullSetTesting.OPTIONS.withGroupId("args").withMeterRegistry(registry), cluster -> {
            List<Tensor> owned = new ArrayList<>();
            Function<Tensor, Tensor> own = t -> {
                owned.add(t);
                return t;
            };
            try {
                // warm up: one valid collective so the counters exist and have counted something
                Tensor warm = own.apply(Tensor.fromLongs(new long[] {1}, 1));
                List<Tensor> warmOuts = new ArrayList<>();
                for (int r = 0; r < world; r++) {
                    warmOuts.add(own.apply(Tensor.zeros(DType.INT64, world)));
                }
                cluster.run(g -> g.allGatherInto(warmOuts.get(g.rank()), warm)).block(WAIT);
                double sentBefore = bytesSent(registry);
                assertTrue(sentBefore > 0, "the warm-up sent bytes");

                Tensor f4 = own.apply(Tensor.zeros(DType.FLOAT32, 4));
                Tensor f8 = own.apply(Tensor.zeros(DType.FLOAT32, 8));
                Tensor f12 = own.apply(Tensor.zeros(DType.FLOAT32, 12));
                Tensor i4 = own.apply(Tensor.zeros(DType.INT32, 4));
                Tensor f5 = own.apply(Tensor.zeros(DType.FLOAT32, 5));
                List<Tensor> two = List.of(f4, f4);
                List<Tensor> three = List.of(f4, f4, f4);
                List<Tensor> mixedDtype = List.of(f4, i4, f4);
                List<Tensor> mixedSize = List.of(f4, f5, f4);
                SparseTensor sparse = SparseTensor.of(Tensor.fromLongs(new long[] {0}, 1, 1), Tensor.fromDoubles(new double[] {1}, 1), 4);
                try {
                    rejected(cluster, "allGather", g -> g.allGather(two, f4));
                    rejected(cluster, "allGather", g -> g.allGather(mixedDtype, f4));
                    rejected(cluster, "allGather", g -> g.allGather(mixedSize, f4));
                    rejected(cluster, "allGatherInto", g -> g.allGatherInto(f8, f4));
                    rejected(cluster, "allGatherInto", g -> g.allGatherInto(own(owned, Tensor.zeros(DType.INT32, 12)), f4));
                    rejected(cluster, "allGatherCoalesced", g -> g.allGatherCoalesced(List.of(two), List.of(f4)));
                    rejected(cluster, "gather", g -> g.gather(three, f4, world));
                    rejected(cluster, "gather", g -> g.gather(three, f4, -1));
                    rejected(cluster, "gather", g -> g.gather(two, f4, 0));
                    rejected(cluster, "scatter", g -> g.scatter(f4, three, world));
                    rejected(cluster, "scatter", g -> g.scatter(f4, mixedSize, 1));
                    rejected(cluster, "reduceScatter", g -> g.reduceScatter(f4, two, ReduceOp.SUM));
                    rejected(cluster, "reduceScatter", g -> g.reduceScatter(f4, mixedDtype, ReduceOp.SUM));
                    rejected(cluster, "reduceScatterTensor", g -> g.reduceScatterTensor(f4, f8, ReduceOp.SUM));
                    rejected(cluster, "reduceScatterTensor", g -> g.reduceScatterTensor(f4, f12, ReduceOp.BAND));
                    rejected(cluster, "reduceScatterTensorCoalesced",
                            g -> g.reduceScatterTensorCoalesced(List.of(f4, f4), List.of(f12, f8), ReduceOp.SUM));
                    rejected(cluster, "allToAll", g -> g.allToAll(two, three));
                    rejected(cluster, "allToAll", g -> g.allToAll(three, mixedDtype));
                    rejected(cluster, "allToAllSingle", g -> g.allToAllSingle(f12, f12, new long[] {4, 4, 4}, new long[] {4, 4, 3}));
                    rejected(cluster, "allToAllSingle", g -> g.allToAllSingle(f12, f12, new long[] {6, 6}, new long[] {4, 4, 4}));
                    rejected(cluster, "allToAllSingle", g -> g.allToAllSingle(f12, f8, new long[0], new long[0]));
                    rejected(cluster, "batchSendRecv", g -> g.batchSendRecv(List.of(P2POp.send(f4, world, 0))));
                    rejected(cluster, "batchSendRecv", g -> g.batchSendRecv(List.of()));
                    rejected(cluster, "monitoredBarrier", g -> g.monitoredBarrier(Duration.ZERO, false));
                    rejected(cluster, "newGroup", g -> g.newGroup(List.of(0, world)));
                    rejected(cluster, "allReduceSparse", g -> g.allReduceSparse(sparse, ReduceOp.MAX));
                    rejected(cluster, "allReduceSparse", g -> g.allReduceSparse(sparse, ReduceOp.AVG));
                } finally {
                    sparse.release();
                }
                assertEquals(sentBefore, bytesSent(registry), "rejected calls sent nothing");

                List<Tensor> outs = new ArrayList<>();
                List<Tensor> ins = new ArrayList<>();
                for (int r = 0; r < world; r++) {
                    outs.add(own.apply(Tensor.zeros(DType.INT64, world)));
                    ins.add(own.apply(Tensor.fromLongs(new long[] {r + 7}, 1)));
                }
                cluster.run(g -> g.allGatherInto(outs.get(g.rank()), ins.get(g.rank()))).block(WAIT);
                for (int r = 0; r < world; r++) {
                    for (int q = 0; q < world; q++) {
                        assertEquals(q + 7, outs.get(r).getLong(q));
                    }
                }
            } finally {
                release(owned);
            }
            return null;
        });
    }

    private static Tensor own(List<Tensor> owned, Tensor t) {
        owned.add(t);
        return t;
    }

    private static double bytesSent(SimpleMeterRegistry registry) {
        return registry.find(MetricNames.BYTES_SENT).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Every rank's call fails with an IllegalArgumentException whose message starts with the op. */
    private static void rejected(LocalCluster cluster, String op, Function<ProcessGroup, Mono<?>> call) {
        for (int r = 0; r < cluster.size(); r++) {
            int rank = r;
            StepVerifier.create(Mono.defer(() -> call.apply(cluster.group(rank))))
                    .expectErrorSatisfies(e -> {
                        assertInstanceOf(IllegalArgumentException.class, e, () -> op + " rank " + rank + ": " + e);
                        assertTrue(e.getMessage() != null && e.getMessage().startsWith(op), () -> op + ": " + e.getMessage());
                    })
                    .verify(WAIT);
        }
    }
}
