package io.reactivecollectives.transport;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.mesh.MeshPeers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group above {@code rc.mesh.fullUpTo} ranks (lowered to 4 here, 12 ranks) starts connected to the
 * ranks a power of two away only and connects to the others when a collective first sends to them:
 * every collective is right element by element, crossed first sends between a pair make one
 * connection that both use, and a peer that cannot be reached fails the send naming it.
 */
class OnDemandMeshTest {

    private static final int N = 12;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static String before;

    @BeforeAll
    static void lowerTheLimit() {
        before = System.getProperty("rc.mesh.fullUpTo");
        System.setProperty("rc.mesh.fullUpTo", "4");
    }

    @AfterAll
    static void restore() {
        if (before == null) {
            System.clearProperty("rc.mesh.fullUpTo");
        } else {
            System.setProperty("rc.mesh.fullUpTo", before);
        }
    }

    private static void onAll(LocalCluster c, IntFunction<Mono<?>> op) {
        Mono.when(IntStream.range(0, N).mapToObj(op).toList()).block(TIMEOUT);
    }

    private static float[] ramp(int rank, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = rank * 1000 + i % 997;
        }
        return v;
    }

    @Test
    void startsWithThePowersOfTwoAndConnectsTheOthersWhenFirstUsed() {
        try (LocalCluster c = LocalCluster.start(N, GroupOptions.defaults().withGroupId("on-demand")).block(TIMEOUT)) {
            for (int r = 0; r < N; r++) {
                for (int p = 0; p < N; p++) {
                    boolean peer = MeshPeers.POWERS_OF_TWO.includes(r, p, N);
                    String t = c.groups().get(r).transportTo(p);
                    assertEquals(peer, !"none".equals(t), "rank " + r + " to " + p + ": " + t);
                }
            }
            // all-reduce, small (recursive doubling) and 1 MiB (ring)
            for (int n : new int[] {1, 262_144}) {
                List<Tensor> ts = new ArrayList<>();
                for (int r = 0; r < N; r++) {
                    ts.add(Tensor.fromFloats(ramp(r, n), n));
                }
                onAll(c, r -> c.groups().get(r).allReduce(ts.get(r), ReduceOp.SUM));
                for (int r = 0; r < N; r++) {
                    float[] got = ts.get(r).toFloatArray();
                    for (int i = 0; i < n; i += Math.max(1, n / 1000)) {
                        assertEquals(1000f * N * (N - 1) / 2 + N * (i % 997), got[i], "rank " + r + " element " + i);
                    }
                    ts.get(r).release();
                }
            }
            // broadcast from 5, reduce to 7, gather to 3, scatter from 9, all-gather, reduce-scatter, barrier
            List<Tensor> b = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                b.add(Tensor.fromFloats(ramp(r, 33), 33));
            }
            onAll(c, r -> c.groups().get(r).broadcast(b.get(r), 5));
            for (int r = 0; r < N; r++) {
                assertTrue(java.util.Arrays.equals(ramp(5, 33), b.get(r).toFloatArray()), "broadcast at rank " + r);
            }
            onAll(c, r -> c.groups().get(r).reduce(Tensor.fromFloats(ramp(r, 9), 9), 7, ReduceOp.MAX,
                    CollectiveOptions.DEFAULT).doOnNext(t -> {
                        if (r == 7) {
                            assertTrue(java.util.Arrays.equals(ramp(N - 1, 9), t.toFloatArray()), "reduce at the root");
                        }
                        t.release();
                    }));
            List<List<Tensor>> outs = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                List<Tensor> o = new ArrayList<>();
                for (int q = 0; q < N; q++) {
                    o.add(Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 5));
                }
                outs.add(o);
            }
            onAll(c, r -> {
                Tensor in = Tensor.fromFloats(ramp(r, 5), 5);
                return c.groups().get(r).allGather(outs.get(r), in).doFinally(x -> in.release());
            });
            for (int r = 0; r < N; r++) {
                for (int q = 0; q < N; q++) {
                    assertTrue(java.util.Arrays.equals(ramp(q, 5), outs.get(r).get(q).toFloatArray()), "all-gather " + r + "/" + q);
                }
            }
            onAll(c, r -> {
                Tensor in = Tensor.fromFloats(ramp(r + 1, 5), 5);
                return c.groups().get(r).gather(r == 3 ? outs.get(r) : List.of(), in, 3).doFinally(x -> in.release());
            });
            for (int q = 0; q < N; q++) {
                assertTrue(java.util.Arrays.equals(ramp(q + 1, 5), outs.get(3).get(q).toFloatArray()), "gather slot " + q);
            }
            Tensor[] scattered = new Tensor[N];
            onAll(c, r -> c.groups().get(r).scatter(scattered[r] = Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 5),
                    r == 9 ? outs.get(9) : List.of(), 9));
            for (int r = 0; r < N; r++) {
                assertTrue(java.util.Arrays.equals(ramp(r, 5), scattered[r].toFloatArray()), "scatter at rank " + r);
            }
            onAll(c, r -> c.groups().get(r).reduceScatter(scattered[r], outs.get(r), ReduceOp.SUM));
            for (int r = 0; r < N; r++) {
                float[] want = ramp(r, 5);   // every rank's slot r: rank 3's list holds what it gathered
                float[] third = ramp(r + 1, 5);
                for (int i = 0; i < 5; i++) {
                    want[i] = want[i] * (N - 1) + third[i];
                }
                assertTrue(java.util.Arrays.equals(want, scattered[r].toFloatArray()), "reduce-scatter at rank " + r);
            }
            onAll(c, r -> c.groups().get(r).barrier());
            // all-to-all: Bruck's rounds by default (the powers of two only, no connection made), then the
            // pairwise exchange forced, every rank to every other: every pair connects, most of them now
            List<List<Tensor>> ins = new ArrayList<>();
            List<List<Tensor>> got = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                List<Tensor> in = new ArrayList<>();
                List<Tensor> o = new ArrayList<>();
                for (int q = 0; q < N; q++) {
                    in.add(Tensor.fromFloats(new float[] {r * 100 + q, -r}, 2));
                    o.add(Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 2));
                }
                ins.add(in);
                got.add(o);
            }
            String[][] before = new String[N][N];
            for (int r = 0; r < N; r++) {
                for (int q = 0; q < N; q++) {
                    before[r][q] = c.groups().get(r).transportTo(q);
                }
            }
            try {
                for (Algorithm a : new Algorithm[] {Algorithm.AUTO, Algorithm.PAIRWISE}) {
                    for (List<Tensor> o : got) {
                        o.forEach(t -> t.buffer().setZero(0, (int) t.nbytes()));
                    }
                    onAll(c, r -> c.groups().get(r).allToAll(got.get(r), ins.get(r), CollectiveOptions.DEFAULT.withAlgorithm(a)));
                    for (int r = 0; r < N; r++) {
                        for (int q = 0; q < N; q++) {
                            assertTrue(java.util.Arrays.equals(new float[] {q * 100 + r, -q}, got.get(r).get(q).toFloatArray()),
                                    a + " all-to-all at rank " + r + " from " + q);
                            String now = c.groups().get(r).transportTo(q);
                            if (a == Algorithm.AUTO) {   // no connection made
                                assertEquals(before[r][q], now, a + ": rank " + r + " to " + q);
                            } else {
                                assertEquals(r != q, !"none".equals(now), a + ": rank " + r + " to " + q);
                            }
                        }
                    }
                }
            } finally {
                for (List<List<Tensor>> ll : List.of(ins, got)) {
                    ll.forEach(l -> l.forEach(Tensor::release));
                }
            }
            b.forEach(Tensor::release);
            List.of(scattered).forEach(Tensor::release);
            outs.forEach(l -> l.forEach(Tensor::release));
        }
    }

    @Test
    void crossedFirstSendsBetweenAPairMakeOneConnectionThatBothUse() {
        try (LocalCluster c = LocalCluster.start(N, GroupOptions.defaults().withGroupId("on-demand-crossed")).block(TIMEOUT)) {
            for (int[] pair : new int[][] {{0, 6}, {1, 6}, {2, 7}, {3, 8}}) {
                int a = pair[0];
                int z = pair[1];
                assertEquals("none", c.groups().get(a).transportTo(z));
                Tensor ta = Tensor.fromFloats(ramp(a, 1000), 1000);
                Tensor tz = Tensor.fromFloats(ramp(z, 1000), 1000);
                Tensor ra = Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 1000);
                Tensor rz = Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 1000);
                Mono.when(c.groups().get(a).send(ta, z, 4), c.groups().get(z).send(tz, a, 4),
                        c.groups().get(a).recv(ra, z, 4), c.groups().get(z).recv(rz, a, 4)).block(TIMEOUT);
                assertTrue(java.util.Arrays.equals(ramp(z, 1000), ra.toFloatArray()), a + " got " + z + "'s");
                assertTrue(java.util.Arrays.equals(ramp(a, 1000), rz.toFloatArray()), z + " got " + a + "'s");
                assertNotEquals("none", c.groups().get(a).transportTo(z));
                assertNotEquals("none", c.groups().get(z).transportTo(a));
                // and it carries on: 20 more each way over the one connection
                for (int i = 0; i < 20; i++) {
                    Mono.when(c.groups().get(a).send(ta, z, 5), c.groups().get(z).recv(rz, a, 5),
                            c.groups().get(z).send(tz, a, 6), c.groups().get(a).recv(ra, z, 6)).block(TIMEOUT);
                }
                assertTrue(java.util.Arrays.equals(ramp(z, 1000), ra.toFloatArray()));
                for (Tensor t : List.of(ta, tz, ra, rz)) {
                    t.release();
                }
            }
        }
    }

    @Test
    void aPeerThatCannotBeReachedFailsTheSendNamingIt() {
        GroupOptions o = GroupOptions.defaults().withGroupId("on-demand-gone").withConnectTimeout(Duration.ofSeconds(3));
        try (LocalCluster c = LocalCluster.start(N, o).block(TIMEOUT)) {
            assertEquals("none", c.groups().get(0).transportTo(6));
            c.groups().get(6).close();
            Tensor t = Tensor.fromFloats(ramp(0, 10), 10);
            CollectiveException e = assertThrows(CollectiveException.class,
                    () -> c.groups().get(0).send(t, 6, 1).block(TIMEOUT));
            assertTrue(e.getMessage().contains("peer 6") && e.getMessage().contains("rank 0"), e.getMessage());
            t.release();
        }
    }
}
