package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * reduceScatter, reduceScatterTensor and reduceScatterTensorCoalesced (every reduce op valid for
 * each dtype, against {@link Reference}'s element-by-element reduction, and for large tensors
 * against the group's own all-reduce), allToAll and allToAllSingle with uneven splits, and batched
 * point-to-point to several peers, for every dtype at world sizes 1 to 5.
 */
class ReduceScatterAllToAllTest {

    /** Segments of 64 bytes: the odd size already runs several pipelined lanes. */
    private static final GroupOptions SMALL_SEGMENTS = FullSetTesting.OPTIONS.withGroupId("rs-a2a").withSegmentBytes(64);

    /** Elements per rank's block: empty, one, odd (several 64-byte segments from 2-byte dtypes up). */
    private static final long[] SIZES = {0, 1, 7, 33};

    /** Elements per rank's block of the large cases (160 KiB per block of int64), 8 KiB segments. */
    private static final long LARGE = 20_003;

    @Tag("below-offload")
    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void reduceScatterEveryDtypeOpAndSize(int world) {
        FullSetTesting.withCluster(world, SMALL_SEGMENTS, cluster -> {
            long seed = world * 7919L;
            for (DType dtype : DType.values()) {
                for (ReduceOp op : Reference.opsFor(dtype)) {
                    for (long n : SIZES) {
                        reduceScatterSmall(cluster, dtype, op, n, seed++, Variant.FLAT);
                        reduceScatterSmall(cluster, dtype, op, n, seed++, Variant.LIST);
                        reduceScatterSmall(cluster, dtype, op, n, seed++, Variant.COALESCED);
                    }
                }
            }
            return null;
        });
    }

    /**
     * Large blocks, flat form with every op and dtype, list and coalesced forms with SUM: each
     * rank's output must be, bit for bit, its block of the all-reduce of the same inputs.
     */
    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {2, 5})
    void reduceScatterLargeAgainstAllReduce(int world) {
        GroupOptions options = SMALL_SEGMENTS.withGroupId("rs-large").withSegmentBytes(8 * 1024);
        FullSetTesting.withCluster(world, options, cluster -> {
            long seed = world * 104729L;
            for (DType dtype : DType.values()) {
                for (ReduceOp op : Reference.opsFor(dtype)) {
                    reduceScatterLarge(cluster, dtype, op, seed++, false);
                }
                reduceScatterLarge(cluster, dtype, ReduceOp.SUM, seed++, true);
            }
            return null;
        });
    }

    @Tag("below-offload")
    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void allToAllEveryDtypeAndSize(int world) {
        FullSetTesting.withCluster(world, SMALL_SEGMENTS.withGroupId("a2a"), cluster -> {
            long seed = world * 31L;
            for (DType dtype : DType.values()) {
                for (long n : new long[] {0, 1, 7, 257}) {
                    allToAll(cluster, dtype, n, seed++);
                    allToAllSingle(cluster, dtype, n, seed++, false);
                    allToAllSingle(cluster, dtype, n, seed++, true);
                }
            }
            return null;
        });
    }

    @Test
    void allToAllLarge() {
        FullSetTesting.withCluster(4, SMALL_SEGMENTS.withGroupId("a2a-large").withSegmentBytes(8 * 1024), cluster -> {
            allToAll(cluster, DType.FLOAT32, LARGE, 5);
            allToAllSingle(cluster, DType.INT64, LARGE / 4, 6, false);
            allToAllSingle(cluster, DType.BFLOAT16, LARGE / 4, 7, true);
            return null;
        });
    }

    @Tag("below-offload")
    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {2, 3, 5})
    void batchSendRecvToSeveralPeers(int world) {
        FullSetTesting.withCluster(world, SMALL_SEGMENTS.withGroupId("batch"), cluster -> {
            long seed = 11;
            for (DType dtype : new DType[] {DType.FLOAT32, DType.UINT8, DType.INT64, DType.BOOL}) {
                for (long n : new long[] {0, 1, 257, LARGE}) {
                    batch(cluster, dtype, n, seed++);
                }
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ reduce-scatter

    private enum Variant { FLAT, LIST, COALESCED }

    private static void reduceScatterSmall(LocalCluster cluster, DType dtype, ReduceOp op, long n, long seed, Variant v) {
        int world = cluster.size();
        List<Tensor> flat = new ArrayList<>();
        List<Tensor> outs = FullSetTesting.zeros(world, dtype, n);
        List<Tensor> expected = new ArrayList<>();
        // the coalesced form also carries a second pair of 3 elements per block
        List<Tensor> flat2 = new ArrayList<>();
        List<Tensor> outs2 = FullSetTesting.zeros(world, dtype, 3);
        List<Tensor> expected2 = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                flat.add(Reference.input(dtype, op, seed * 101 + r, world * n));
                flat2.add(Reference.input(dtype, op, seed * 103 + r, world * 3L));
            }
            for (int q = 0; q < world; q++) {
                expected.add(Reference.reduce(blocks(flat, q, n), op));
                expected2.add(Reference.reduce(blocks(flat2, q, 3), op));
            }
            String w = where(v, dtype, op, n, "world", world);
            switch (v) {
                case FLAT:
                    StepVerifier.create(cluster.run(g -> g.reduceScatterTensor(outs.get(g.rank()), flat.get(g.rank()), op)))
                            .assertNext(res -> {
                                for (int r = 0; r < world; r++) {
                                    assertSame(outs.get(r), res.get(r));
                                }
                            })
                            .expectComplete().verify(FullSetTesting.TIMEOUT);
                    break;
                case LIST:
                    StepVerifier.create(cluster.run(g -> g.reduceScatter(outs.get(g.rank()), split(flat.get(g.rank()), world), op)))
                            .assertNext(res -> {
                                for (int r = 0; r < world; r++) {
                                    assertSame(outs.get(r), res.get(r));
                                }
                            })
                            .expectComplete().verify(FullSetTesting.TIMEOUT);
                    break;
                default:
                    StepVerifier.create(cluster.run(g -> g.reduceScatterTensorCoalesced(
                                    List.of(outs.get(g.rank()), outs2.get(g.rank())),
                                    List.of(flat.get(g.rank()), flat2.get(g.rank())), op)))
                            .assertNext(res -> {
                                for (int r = 0; r < world; r++) {
                                    assertSame(outs.get(r), res.get(r).get(0));
                                    assertSame(outs2.get(r), res.get(r).get(1));
                                }
                            })
                            .expectComplete().verify(FullSetTesting.TIMEOUT);
                    for (int r = 0; r < world; r++) {
                        check(outs2.get(r), expected2.get(r), dtype, op, w + " second tensor rank " + r);
                    }
            }
            for (int r = 0; r < world; r++) {
                check(outs.get(r), expected.get(r), dtype, op, w + " rank " + r);
            }
        } finally {
            release(flat);
            release(outs);
            release(expected);
            release(flat2);
            release(outs2);
            release(expected2);
        }
    }

    private static void reduceScatterLarge(LocalCluster cluster, DType dtype, ReduceOp op, long seed, boolean listForms) {
        int world = cluster.size();
        List<Tensor> flat = new ArrayList<>();
        List<Tensor> reduced = new ArrayList<>();
        List<Tensor> outs = FullSetTesting.zeros(world, dtype, LARGE);
        try {
            for (int r = 0; r < world; r++) {
                Tensor t = tiled(dtype, op, seed * 37 + r, world * LARGE);
                flat.add(t);
                reduced.add(t.copy());
            }
            StepVerifier.create(cluster.run(g -> g.allReduce(reduced.get(g.rank()), op)))
                    .expectNextCount(1).expectComplete().verify(FullSetTesting.TIMEOUT);
            String w = where("large", listForms ? "list+coalesced" : "flat", dtype, op, LARGE, "world", world);
            if (listForms) {
                StepVerifier.create(cluster.run(g -> g.reduceScatter(outs.get(g.rank()), split(flat.get(g.rank()), world), op)))
                        .expectNextCount(1).expectComplete().verify(FullSetTesting.TIMEOUT);
                compareBlocks(outs, reduced, w + " list");
                List<Tensor> outs2 = FullSetTesting.zeros(world, dtype, LARGE);
                try {
                    // the coalesced form with the pairs in both orders of size
                    StepVerifier.create(cluster.run(g -> g.reduceScatterTensorCoalesced(
                                    List.of(outs2.get(g.rank()), outs.get(g.rank())),
                                    List.of(flat.get(g.rank()), flat.get(g.rank())), op)))
                            .expectNextCount(1).expectComplete().verify(FullSetTesting.TIMEOUT);
                    compareBlocks(outs2, reduced, w + " coalesced 0");
                    compareBlocks(outs, reduced, w + " coalesced 1");
                } finally {
                    release(outs2);
                }
            } else {
                StepVerifier.create(cluster.run(g -> g.reduceScatterTensor(outs.get(g.rank()), flat.get(g.rank()), op)))
                        .expectNextCount(1).expectComplete().verify(FullSetTesting.TIMEOUT);
                compareBlocks(outs, reduced, w);
            }
        } finally {
            release(flat);
            release(reduced);
            release(outs);
        }
    }

    private static void compareBlocks(List<Tensor> outs, List<Tensor> reduced, String w) {
        long n = outs.get(0).numel();
        for (int r = 0; r < outs.size(); r++) {
            Tensor want = reduced.get(r).narrow(r * n, n);
            Tensor got = outs.get(r);
            int rank = r;
            assertTrue(same(got, want), () -> w + " rank " + rank + ": " + describe(got) + " vs " + describe(want));
        }
    }

    /**
     * A large exact input cheaply: a {@link Reference#input} pattern of 257 elements (a prime, so
     * a misplaced segment or block shows) repeated, copied in whole-pattern calls.
     */
    private static Tensor tiled(DType dtype, ReduceOp op, long seed, long numel) {
        Tensor pattern = Reference.input(dtype, op, seed, 257);
        Tensor t = Tensor.empty(dtype, numel);
        try {
            int pb = (int) pattern.nbytes();
            int total = (int) t.nbytes();
            for (int off = 0; off < total; off += pb) {
                t.buffer().setBytes(off, pattern.buffer(), 0, Math.min(pb, total - off));
            }
            return t;
        } finally {
            pattern.release();
        }
    }

    /** Block {@code q} (n elements) of every rank's flat input, as views. */
    private static List<Tensor> blocks(List<Tensor> flat, int q, long n) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : flat) {
            out.add(t.narrow(q * n, n));
        }
        return out;
    }

    /** {@code world} views of consecutive blocks of {@code t} (not to be released). */
    private static List<Tensor> split(Tensor t, int world) {
        long n = t.numel() / world;
        List<Tensor> out = new ArrayList<>();
        for (int q = 0; q < world; q++) {
            out.add(t.narrow(q * n, n));
        }
        return out;
    }

    private static void check(Tensor got, Tensor want, DType dtype, ReduceOp op, String w) {
        boolean ok = Reference.approximate(op, dtype)
                ? got.allClose(want, dtype.byteSize() == 2 ? 1e-2 : 1e-6, dtype.byteSize() == 2 ? 1e-2 : 1e-6)
                : same(got, want);
        assertTrue(ok, () -> w + ": " + describe(got) + " vs " + describe(want));
    }

    // ------------------------------------------------------------------ all-to-all

    private static void allToAll(LocalCluster cluster, DType dtype, long n, long seed) {
        int world = cluster.size();
        List<List<Tensor>> in = new ArrayList<>();
        List<List<Tensor>> outs = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                List<Tensor> mine = new ArrayList<>();
                List<Tensor> o = new ArrayList<>();
                for (int q = 0; q < world; q++) {
                    // uneven: rank r sends n + (r + q) % 3 elements to q
                    mine.add(random(dtype, seed * 1000 + r * 10 + q, n + (r + q) % 3));
                    o.add(Tensor.zeros(dtype, n + (q + r) % 3));
                }
                in.add(mine);
                outs.add(o);
            }
            StepVerifier.create(cluster.run(g -> g.allToAll(outs.get(g.rank()), in.get(g.rank()))))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            for (int q = 0; q < world; q++) {
                                Tensor got = outs.get(r).get(q);
                                Tensor want = in.get(q).get(r);
                                String w = where("allToAll", dtype, n, "world", world, "rank", r, "from", q);
                                assertTrue(same(got, want), () -> w + ": " + describe(got) + " vs " + describe(want));
                            }
                        }
                    })
                    .expectComplete().verify(FullSetTesting.TIMEOUT);
        } finally {
            in.forEach(FullSetTesting::release);
            outs.forEach(FullSetTesting::release);
        }
    }

    /**
     * Rows of {@code width} elements; rank r sends {@code (r + 2q) % 4} rows to rank q (zero rows
     * included), or equal splits of 2 rows each when {@code equal}.
     */
    private static void allToAllSingle(LocalCluster cluster, DType dtype, long width, long seed, boolean equal) {
        int world = cluster.size();
        long[][] sendRows = new long[world][world];
        for (int r = 0; r < world; r++) {
            for (int q = 0; q < world; q++) {
                sendRows[r][q] = equal ? 2 : (r + 2L * q) % 4;
            }
        }
        List<Tensor> in = new ArrayList<>();
        List<Tensor> outs = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                long rowsOut = 0;
                long rowsIn = 0;
                for (int q = 0; q < world; q++) {
                    rowsOut += sendRows[r][q];
                    rowsIn += sendRows[q][r];
                }
                in.add(random(dtype, seed * 100 + r, rowsOut, width));
                outs.add(Tensor.zeros(dtype, rowsIn, width));
            }
            StepVerifier.create(cluster.run(g -> {
                        int r = g.rank();
                        long[] inSplits = new long[world];
                        long[] outSplits = new long[world];
                        for (int q = 0; q < world; q++) {
                            inSplits[q] = sendRows[r][q];
                            outSplits[q] = sendRows[q][r];
                        }
                        return equal ? g.allToAllSingle(outs.get(r), in.get(r), new long[0], new long[0])
                                : g.allToAllSingle(outs.get(r), in.get(r), outSplits, inSplits);
                    }))
                    .assertNext(res -> {
                        for (int r = 0; r < world; r++) {
                            assertSame(outs.get(r), res.get(r));
                            long outRow = 0;
                            for (int q = 0; q < world; q++) {
                                long inRow = 0;
                                for (int k = 0; k < r; k++) {
                                    inRow += sendRows[q][k];
                                }
                                long rows = sendRows[q][r];
                                Tensor got = outs.get(r).narrow(outRow * width, rows * width);
                                Tensor want = in.get(q).narrow(inRow * width, rows * width);
                                String w = where("allToAllSingle", dtype, width, equal ? "equal" : "uneven", "world", world,
                                        "rank", r, "from", q);
                                assertTrue(same(got.reshape(rows * width), want.reshape(rows * width)),
                                        () -> w + ": " + describe(got) + " vs " + describe(want));
                                outRow += rows;
                            }
                        }
                    })
                    .expectComplete().verify(FullSetTesting.TIMEOUT);
        } finally {
            release(in);
            release(outs);
        }
    }

    // ------------------------------------------------------------------ batched point-to-point

    /** Every rank sends two tensors (tags 1 and 2) to every other rank and receives both from each, as one batch. */
    private static void batch(LocalCluster cluster, DType dtype, long n, long seed) {
        int world = cluster.size();
        // sent[r][q][tag-1], received[r][q][tag-1]
        Tensor[][][] sent = new Tensor[world][world][2];
        Tensor[][][] received = new Tensor[world][world][2];
        List<Tensor> all = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                for (int q = 0; q < world; q++) {
                    if (q != r) {
                        for (int t = 0; t < 2; t++) {
                            sent[r][q][t] = random(dtype, seed * 1000 + r * 100 + q * 10 + t, n + t);
                            received[r][q][t] = Tensor.zeros(dtype, n + t);
                            all.add(sent[r][q][t]);
                            all.add(received[r][q][t]);
                        }
                    }
                }
            }
            StepVerifier.create(cluster.run(g -> {
                        int r = g.rank();
                        List<P2POp> ops = new ArrayList<>();
                        for (int q = 0; q < world; q++) {
                            if (q != r) {
                                // receives listed before sends, tag 2 before tag 1: the order must not matter
                                ops.add(P2POp.recv(received[r][q][1], q, 2));
                                ops.add(P2POp.recv(received[r][q][0], q, 1));
                                ops.add(P2POp.send(sent[r][q][0], q, 1));
                                ops.add(P2POp.send(sent[r][q][1], q, 2));
                            }
                        }
                        return g.batchSendRecv(ops).thenReturn(r);
                    }))
                    .expectNextCount(1)
                    .expectComplete().verify(FullSetTesting.TIMEOUT);
            for (int r = 0; r < world; r++) {
                for (int q = 0; q < world; q++) {
                    if (q != r) {
                        for (int t = 0; t < 2; t++) {
                            Tensor got = received[r][q][t];
                            Tensor want = sent[q][r][t];
                            String w = where("batchSendRecv", dtype, n, "world", world, "rank", r, "from", q, "tag", t + 1);
                            assertTrue(same(got, want), () -> w + ": " + describe(got) + " vs " + describe(want));
                        }
                    }
                }
            }
        } finally {
            release(all);
        }
    }
}
