package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-level all-reduce, all-gather, reduce-scatter and host-ordered broadcast over in-memory wires between ranks placed on hosts: exact results for
 * several layouts, sizes and ops, and the bytes that cross host links against the flat ring's.
 */
class HierarchicalAlgorithmsTest {

    /** Host ids for {@code hosts} hosts of {@code perHost} ranks, ranks of a host interleaved when asked. */
    private static Topology layout(int hosts, int perHost, boolean interleaved) {
        String[] ids = new String[hosts * perHost];
        for (int r = 0; r < ids.length; r++) {
            ids[r] = "host-" + (interleaved ? r % hosts : r / perHost);
        }
        return Topology.of(ids);
    }

    private static double input(int rank, long i) {
        return rank * 100.0 + i % 31;
    }

    /** Runs {@code algorithm} on every rank; returns the bytes each rank sent across hosts. */
    private static long[] allReduce(Topology t, long numel, ReduceOp op,
                                    BiFunction<Peers, Tensor, Mono<Void>> algorithm) {
        InMemoryWires w = new InMemoryWires(t, "allReduce", 65536);
        int n = t.size();
        List<Tensor> tensors = new ArrayList<>();
        try {
            List<Mono<Void>> ranks = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                double[] a = new double[(int) numel];
                for (int i = 0; i < a.length; i++) {
                    a[i] = input(r, i);
                }
                Tensor x = Tensor.fromDoubles(a);
                tensors.add(x);
                ranks.add(algorithm.apply(w.peers(r), x));
            }
            Flux.merge(ranks).then().block(Duration.ofSeconds(30));
            for (int r = 0; r < n; r++) {
                // one read of the whole tensor: a read per element is a leak-detector record per element at PARANOID
                double[] result = tensors.get(r).toDoubleArray();
                for (int i = 0; i < numel; i++) {
                    double want = op == ReduceOp.SUM ? 0 : Double.NEGATIVE_INFINITY;
                    for (int q = 0; q < n; q++) {
                        want = op == ReduceOp.SUM ? want + input(q, i) : Math.max(want, input(q, i));
                    }
                    double got = result[i];
                    if (got != want) {
                        assertEquals(want, got, op + " " + t + " numel " + numel + " rank " + r + " element " + i);
                    }
                }
            }
            long[] out = new long[n];
            for (int r = 0; r < n; r++) {
                out[r] = w.crossHostBytesFrom[r].get();
            }
            return out;
        } finally {
            tensors.forEach(Tensor::release);
            for (Sinks.One<ByteBuf> s : w.slots.values()) {
                s.tryEmitEmpty();
                ByteBuf b = s.asMono().block(Duration.ofSeconds(1));
                if (b != null && b.refCnt() > 0) {
                    b.release();
                }
            }
        }
    }

    @Test
    void resultsAreExactForEveryLayoutSizeAndOp() {
        for (Topology t : List.of(layout(2, 2, false), layout(2, 3, false), layout(3, 2, false), layout(2, 2, true),
                layout(4, 2, false))) {
            for (long numel : new long[] {1, 3, 5, 1000, 12_345}) {
                for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.MAX)) {
                    allReduce(t, numel, op, (p, x) -> HierarchicalAllReduce.run(p, x, op));
                }
            }
        }
    }

    @Test
    void aLargeTensorGoesAsOverlappingPartsAndStaysExact() {
        long numel = 3 * HierarchicalAllReduce.PART_BYTES / 8 + 1001;   // float64: 3 uneven parts
        allReduce(layout(2, 2, false), numel, ReduceOp.SUM, (p, x) -> HierarchicalAllReduce.run(p, x, ReduceOp.SUM));
    }

    @Test
    void aLayoutItDoesNotFitRunsTheRing() {
        String[] uneven = {"a", "a", "a", "b"};
        allReduce(Topology.of(uneven), 1000, ReduceOp.SUM, (p, x) -> HierarchicalAllReduce.run(p, x, ReduceOp.SUM));
        allReduce(Topology.singleHost(3), 1000, ReduceOp.SUM, (p, x) -> HierarchicalAllReduce.run(p, x, ReduceOp.SUM));
    }

    @Test
    void eachHostSendsTwoThirdsOfTheFlatRingsBytesAcrossHostsAtTwoByTwo() {
        Topology t = layout(2, 2, false);
        long numel = 64 * 1024;   // 512 KiB of float64
        long[] hier = allReduce(t, numel, ReduceOp.SUM, (p, x) -> HierarchicalAllReduce.run(p, x, ReduceOp.SUM));
        long[] flat = allReduce(t, numel, ReduceOp.SUM, (p, x) -> RingAllReduce.run(p, x, ReduceOp.SUM));
        long bytes = numel * 8;
        for (int host = 0; host < 2; host++) {
            long h = hier[2 * host] + hier[2 * host + 1];
            long f = flat[2 * host] + flat[2 * host + 1];
            assertEquals(bytes, h, "host " + host + ": 2 (H - 1) / H of the tensor across its link");
            assertEquals(bytes * 3 / 2, f, "host " + host + ": the flat ring sends 2 (n - 1) / n over its crossing edge");
            assertTrue(f * 2 == h * 3, f + " against " + h);
        }
    }

    @Test
    void topologyFromHostIds() {
        Topology t = Topology.of(new String[] {"x", "y", "x", "y", null});
        assertEquals(3, t.hosts());
        assertEquals(List.of(0, 2), List.of(t.members(0)[0], t.members(0)[1]));
        assertEquals(1, t.localIndex(3));
        assertTrue(!t.uniform() && !t.multiHostMultiRank());
        Topology u = Topology.of(new String[] {"x", "y", "x", "y"});
        assertEquals(List.of(2, 3), List.of(u.peersAcrossHosts(2)[0], u.peersAcrossHosts(2)[1]));
        assertTrue(u.multiHostMultiRank() && layout(2, 2, true).multiHostMultiRank());
    }

    /** Runs one algorithm per rank over fresh wires; returns each rank's bytes sent across hosts. */
    private static long[] runAll(Topology t, java.util.function.Function<Peers, Mono<Void>> perRank) {
        InMemoryWires w = new InMemoryWires(t, "allReduce", 65536);
        try {
            List<Mono<Void>> ranks = new ArrayList<>();
            for (int r = 0; r < t.size(); r++) {
                ranks.add(perRank.apply(w.peers(r)));
            }
            Flux.merge(ranks).then().block(Duration.ofSeconds(30));
            long[] out = new long[t.size()];
            for (int r = 0; r < t.size(); r++) {
                out[r] = w.crossHostBytesFrom[r].get();
            }
            return out;
        } finally {
            for (Sinks.One<ByteBuf> s : w.slots.values()) {
                s.tryEmitEmpty();
                ByteBuf b = s.asMono().block(Duration.ofSeconds(1));
                if (b != null && b.refCnt() > 0) {
                    b.release();
                }
            }
        }
    }

    private static List<ByteBuf> buffers(int n, int bytes) {
        List<ByteBuf> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(Region.allocate(bytes).setZero(0, bytes));
        }
        return out;
    }

    /**
     * A little-endian view of a whole buffer: one access for the leak detector (at PARANOID each
     * {@code getDoubleLE} is a recorded access, which made these checks take most of the test's time).
     */
    private static java.nio.DoubleBuffer doubles(ByteBuf b) {
        return b.nioBuffer(0, b.capacity()).order(java.nio.ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
    }

    private static double value(int rank, int block, int i) {
        return rank * 1000.0 + block * 10.0 + i % 7;
    }

    /** All-gather of {@code elems} float64 per rank; the bytes each rank sent across hosts. */
    private static long[] allGather(Topology t, int elems, boolean hierarchical) {
        int n = t.size();
        int len = elems * 8;
        List<ByteBuf> bufs = buffers(n, n * len);
        try {
            for (int r = 0; r < n; r++) {
                java.nio.DoubleBuffer d = doubles(bufs.get(r));
                for (int i = 0; i < elems; i++) {
                    d.put(r * elems + i, value(r, r, i));
                }
            }
            long[] sent = runAll(t, p -> {
                Region[] blocks = new Region[n];
                for (int b = 0; b < n; b++) {
                    blocks[b] = new Region(bufs.get(p.rank()), b * len, len);
                }
                return hierarchical ? HierarchicalAllGather.run(p, blocks) : RingAllGather.run(p, blocks);
            });
            for (int r = 0; r < n; r++) {
                java.nio.DoubleBuffer d = doubles(bufs.get(r));
                for (int b = 0; b < n; b++) {
                    for (int i = 0; i < elems; i++) {
                        double got = d.get(b * elems + i);
                        if (got != value(b, b, i)) {
                            assertEquals(value(b, b, i), got, "all-gather " + t + " rank " + r + " block " + b + " element " + i);
                        }
                    }
                }
            }
            return sent;
        } finally {
            bufs.forEach(ByteBuf::release);
        }
    }

    /** Reduce-scatter (SUM) of {@code elems} float64 per block; the bytes each rank sent across hosts. */
    private static long[] reduceScatter(Topology t, int elems, boolean hierarchical) {
        int n = t.size();
        int len = elems * 8;
        List<ByteBuf> in = buffers(n, n * len);
        List<ByteBuf> out = buffers(n, len);
        try {
            for (int r = 0; r < n; r++) {
                java.nio.DoubleBuffer d = doubles(in.get(r));
                for (int b = 0; b < n; b++) {
                    for (int i = 0; i < elems; i++) {
                        d.put(b * elems + i, value(r, b, i));
                    }
                }
            }
            long[] sent = runAll(t, p -> {
                Region[] inputs = new Region[n];
                for (int b = 0; b < n; b++) {
                    inputs[b] = new Region(in.get(p.rank()), b * len, len);
                }
                Region output = new Region(out.get(p.rank()), 0, len);
                return hierarchical
                        ? HierarchicalReduceScatter.run(p, ReduceOp.SUM, io.reactivecollectives.core.DType.FLOAT64, inputs, output)
                        : RingReduceScatter.run(p, ReduceOp.SUM, io.reactivecollectives.core.DType.FLOAT64, inputs, output);
            });
            for (int r = 0; r < n; r++) {
                java.nio.DoubleBuffer d = doubles(out.get(r));
                for (int i = 0; i < elems; i++) {
                    double want = 0;
                    for (int q = 0; q < n; q++) {
                        want += value(q, r, i);
                    }
                    double got = d.get(i);
                    if (got != want) {
                        assertEquals(want, got, "reduce-scatter " + t + " rank " + r + " element " + i);
                    }
                }
            }
            return sent;
        } finally {
            in.forEach(ByteBuf::release);
            out.forEach(ByteBuf::release);
        }
    }

    private static long hostSum(long[] perRank, Topology t, int host) {
        long s = 0;
        for (int q : t.members(host)) {
            s += perRank[q];
        }
        return s;
    }

    @Test
    void allGatherAndReduceScatterAreExactAndCrossHostsLess() {
        for (Topology t : List.of(layout(2, 2, false), layout(3, 2, false), layout(2, 3, true))) {
            for (int elems : new int[] {1, 3, 2000}) {
                allGather(t, elems, true);
                reduceScatter(t, elems, true);
            }
        }
        Topology t = layout(2, 2, false);
        int elems = 16 * 1024;
        long block = elems * 8L;
        long[] agH = allGather(t, elems, true);
        long[] agF = allGather(t, elems, false);
        long[] rsH = reduceScatter(t, elems, true);
        long[] rsF = reduceScatter(t, elems, false);
        for (int host = 0; host < 2; host++) {
            assertEquals(2 * block, hostSum(agH, t, host), "all-gather: each of the host's 2 blocks crosses once");
            assertEquals(3 * block, hostSum(agF, t, host), "all-gather: the flat ring's crossing edge carries 3 blocks");
            assertEquals(2 * block, hostSum(rsH, t, host), "reduce-scatter: two partials cross");
            assertEquals(3 * block, hostSum(rsF, t, host), "reduce-scatter: the flat ring's crossing edge carries 3");
        }
    }

    @Test
    void broadcastCrossesEachHostLinkOnceWhateverTheNumbering() {
        Topology roundRobin = layout(2, 2, true);   // ranks 0, 2 on host 0; 1, 3 on host 1
        int elems = 32 * 1024;
        for (int root : new int[] {0, 3}) {
            for (boolean hierarchical : new boolean[] {true, false}) {
                List<Tensor> ts = new ArrayList<>();
                try {
                    for (int r = 0; r < 4; r++) {
                        double[] a = new double[elems];
                        java.util.Arrays.fill(a, r == root ? 7.5 : 0);
                        ts.add(Tensor.fromDoubles(a));
                    }
                    long[] sent = runAll(roundRobin, p -> hierarchical
                            ? HierarchicalBroadcast.run(p, ts.get(p.rank()), root)
                            : PipelinedChainBroadcast.run(p, ts.get(p.rank()), root));
                    for (Tensor x : ts) {
                        assertEquals(7.5, x.getDouble(elems - 1));
                    }
                    long total = java.util.Arrays.stream(sent).sum();
                    assertEquals(hierarchical ? elems * 8L : 3 * elems * 8L, total,
                            "root " + root + (hierarchical ? " by host" : " flat") + ": bytes across hosts");
                } finally {
                    ts.forEach(Tensor::release);
                }
            }
        }
    }
}
