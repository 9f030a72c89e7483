package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every call decides its algorithm once, on every rank (counted through {@link DecisionTable}'s
 * observer), records that choice in the flight recorder, and a forced algorithm that does not
 * implement the collective fails on every rank with nothing sent.
 */
class DecisionOncePerCallTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final int WORLD = 3;

    private final Queue<Chosen<?>> seen = new ConcurrentLinkedQueue<>();
    private LocalCluster cluster;
    private final List<Tensor> tensors = new ArrayList<>();

    @BeforeEach
    void start() {
        DecisionTable.observer = seen::add;
        cluster = LocalCluster.start(WORLD, GroupOptions.defaults().withGroupId("once")).block(T);
    }

    @AfterEach
    void stop() {
        DecisionTable.observer = c -> { };
        cluster.close();
        tensors.forEach(Tensor::release);
    }

    private Tensor tensor(long n, double value) {
        Tensor t = Tensor.zeros(DType.FLOAT32, n).fill(value);
        tensors.add(t);
        return t;
    }

    /** The choices seen for {@code op} since the last call, which it clears. */
    private List<Chosen<?>> taken(OpType op) {
        List<Chosen<?>> mine = seen.stream().filter(c -> c.op() == op).toList();
        seen.clear();
        return mine;
    }

    private String lastRecorded(MeshProcessGroup g) {
        List<FlightRecorderDump.Entry> entries = g.flightRecorder().entries();
        return entries.get(entries.size() - 1).algorithm();
    }

    @Test
    void allReduceBroadcastAndAllGatherEachDecideOncePerRankPerCall() {
        List<Tensor> in = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            in.add(tensor(1024, r + 1));
        }
        cluster.run(g -> g.allReduce(in.get(g.rank()), ReduceOp.SUM)).block(T);
        List<Chosen<?>> allReduce = taken(OpType.ALLREDUCE);
        assertEquals(WORLD, allReduce.size(), "one all-reduce decision per rank: " + allReduce);
        allReduce.forEach(c -> assertEquals(Algorithm.RECURSIVE_DOUBLING, c.algorithm()));
        assertEquals(6.0, in.get(2).getDouble(1023));
        for (MeshProcessGroup g : cluster.groups()) {
            assertEquals("recursive_doubling", lastRecorded(g));
        }

        List<Tensor> b = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            b.add(tensor(4096, r == 1 ? 7 : 0));
        }
        cluster.run(g -> g.broadcast(b.get(g.rank()), 1, CollectiveOptions.algorithm(Algorithm.PIPELINED_CHAIN)))
                .block(T);
        List<Chosen<?>> broadcast = taken(OpType.BROADCAST);
        assertEquals(WORLD, broadcast.size(), "one broadcast decision per rank: " + broadcast);
        broadcast.forEach(c -> assertEquals(Algorithm.PIPELINED_CHAIN, c.algorithm()));
        assertEquals(7.0, b.get(0).getDouble(4095));
        for (MeshProcessGroup g : cluster.groups()) {
            assertEquals("pipelined_chain", lastRecorded(g));
        }

        List<Tensor> outs = new ArrayList<>();
        List<Tensor> parts = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            outs.add(tensor(WORLD * 16L, 0));
            parts.add(tensor(16, r + 1));
        }
        cluster.run(g -> g.allGatherInto(outs.get(g.rank()), parts.get(g.rank()))).block(T);
        List<Chosen<?>> allGather = taken(OpType._ALLGATHER_BASE);
        assertEquals(WORLD, allGather.size(), "one all-gather decision per rank: " + allGather);
        allGather.forEach(c -> assertEquals(Algorithm.RING, c.algorithm()));
        assertEquals(3.0, outs.get(0).getDouble(WORLD * 16L - 1));
        for (MeshProcessGroup g : cluster.groups()) {
            assertEquals("ring", lastRecorded(g));
        }
        assertTrue(seen.isEmpty(), "no other decisions: " + seen);
    }

    @Test
    void aCoalescedAllReduceDecidesOnceFlatOrOncePerTensor() {
        // 2 small tensors: flattened, one decision per rank
        List<List<Tensor>> small = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            small.add(List.of(tensor(8, 1), tensor(8, 2)));
        }
        cluster.run(g -> g.allReduceCoalesced(small.get(g.rank()), ReduceOp.SUM, CollectiveOptions.DEFAULT)).block(T);
        assertEquals(WORLD, taken(OpType.ALLREDUCE_COALESCED).size());
        assertEquals(6.0, small.get(0).get(1).getDouble(7));

        // 2 tensors over the flattening threshold (64 KiB in all): one decision per tensor per rank
        List<List<Tensor>> large = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            large.add(List.of(tensor(16 * 1024, 1), tensor(16 * 1024, 2)));
        }
        cluster.run(g -> g.allReduceCoalesced(large.get(g.rank()), ReduceOp.SUM, CollectiveOptions.algorithm(Algorithm.RING)))
                .block(T);
        List<Chosen<?>> each = taken(OpType.ALLREDUCE_COALESCED);
        assertEquals(2 * WORLD, each.size(), "one decision per tensor per rank: " + each);
        each.forEach(c -> assertEquals(Algorithm.RING, c.algorithm()));
        assertEquals(6.0, large.get(2).get(1).getDouble(16 * 1024 - 1));
        for (MeshProcessGroup g : cluster.groups()) {
            assertEquals("ring", lastRecorded(g));
        }
    }

    @Test
    void aForcedAlgorithmThatDoesNotImplementTheCollectiveFailsOnEveryRankWithNothingSent() {
        double[] sentBefore = sent();
        for (MeshProcessGroup g : cluster.groups()) {
            Tensor t = tensor(1024, 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> g.broadcast(t, 0, CollectiveOptions.algorithm(Algorithm.RING)).block(T));
            assertEquals("broadcast: algorithm RING does not implement broadcast "
                    + "(use AUTO, BINOMIAL_TREE, PIPELINED_CHAIN or HIERARCHICAL)", e.getMessage());
            IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
                    () -> g.allReduce(t, ReduceOp.SUM, CollectiveOptions.algorithm(Algorithm.DIRECT)).block(T));
            assertEquals("allReduce: algorithm DIRECT does not implement allReduce "
                    + "(use AUTO, RING, RECURSIVE_DOUBLING or HIERARCHICAL)", a.getMessage());
        }
        assertTrue(seen.isEmpty(), "a refused algorithm is no decision: " + seen);
        assertEquals(java.util.Arrays.toString(sentBefore), java.util.Arrays.toString(sent()), "no data was sent");
        for (MeshProcessGroup g : cluster.groups()) {
            for (FlightRecorderDump.Entry entry : g.flightRecorder().entries()) {
                assertTrue(!entry.op().equals("broadcast") && !entry.op().equals("allReduce"),
                        "a refused call never starts: " + entry.op());
            }
        }
        // the ranks stay in step: the next collective runs everywhere
        List<Tensor> in = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            in.add(tensor(4, 1));
        }
        cluster.run(g -> g.allReduce(in.get(g.rank()), ReduceOp.SUM)).block(T);
        assertEquals(3.0, in.get(0).getDouble(3));
    }

    /** Every rank's data bytes sent to every peer. */
    private double[] sent() {
        double[] s = new double[WORLD * WORLD];
        for (MeshProcessGroup g : cluster.groups()) {
            for (int p = 0; p < WORLD; p++) {
                s[g.rank() * WORLD + p] = p == g.rank() ? 0 : g.metrics().peerBytesSent(p);
            }
        }
        return s;
    }
}
