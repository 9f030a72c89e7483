package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.algorithms.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What each collective's table chooses by bytes, world size and hosts, and what it refuses. */
class DecisionTablesTest {

    private static final long K = 1024;

    private static GroupShape shape(int size) {
        return GroupShape.singleHost(size, 64 * K, 64 * K);
    }

    private static GroupShape twoHosts(String... hosts) {
        return shape(hosts.length).withTopology(Topology.of(hosts));
    }

    @Test
    void allReduceSwitchesByTheCostModelsLimitAndGoesHierarchicalAcrossEvenHosts() {
        assertEquals(Algorithm.RECURSIVE_DOUBLING, AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 64 * K, shape(2)).algorithm());
        assertEquals(Algorithm.RING, AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 64 * K + 1, shape(2)).algorithm());
        // 256 KiB: the ring at 2 ranks, recursive doubling at 4 (its limit there is 512 KiB)
        assertEquals(Algorithm.RING, AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 256 * K, shape(2)).algorithm());
        assertEquals(Algorithm.RECURSIVE_DOUBLING,
                AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 256 * K, shape(4)).algorithm());
        assertEquals(Algorithm.HIERARCHICAL,
                AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 4096 * K, twoHosts("a", "a", "b", "b")).algorithm());
        // hosts with different numbers of ranks: the ring
        assertEquals(Algorithm.RING,
                AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.AUTO, 4096 * K, twoHosts("a", "a", "b")).algorithm());
        Chosen<AllReduceDecision.Body> forced = AllReduceDecision.decide(OpType.ALLREDUCE, Algorithm.RING, 8, shape(4));
        assertEquals(Algorithm.RING, forced.algorithm());
        assertEquals("ring", forced.recordedName());
    }

    @Test
    void broadcastGatherScatterAndTheRingFamiliesChooseByTheirOwnRules() {
        assertEquals(Algorithm.BINOMIAL_TREE, BroadcastDecision.decide(Algorithm.AUTO, 32 * K, shape(4)).algorithm());
        assertEquals(Algorithm.PIPELINED_CHAIN, BroadcastDecision.decide(Algorithm.AUTO, 32 * K + 1, shape(4)).algorithm());
        assertEquals(Algorithm.HIERARCHICAL,
                BroadcastDecision.decide(Algorithm.AUTO, 1024 * K, twoHosts("a", "a", "b")).algorithm());
        assertEquals(Algorithm.BINOMIAL_TREE, GatherDecision.decide(Algorithm.AUTO, 64 * K, shape(4)).algorithm());
        assertEquals(Algorithm.DIRECT, GatherDecision.decide(Algorithm.AUTO, 64 * K + 1, shape(4)).algorithm());
        assertEquals(Algorithm.DIRECT, ScatterDecision.decide(Algorithm.AUTO, 64 * K + 1, shape(4)).algorithm());
        // above rc.mesh.fullUpTo (64) the root keeps to its peers a power of two away: the tree at any size
        assertEquals(Algorithm.BINOMIAL_TREE, GatherDecision.decide(Algorithm.AUTO, 64 * K * K, shape(65)).algorithm());
        assertEquals(Algorithm.BINOMIAL_TREE, ScatterDecision.decide(Algorithm.AUTO, 64 * K * K, shape(65)).algorithm());
        assertEquals(Algorithm.DIRECT, ScatterDecision.decide(Algorithm.DIRECT, 64 * K * K, shape(65)).algorithm());
        assertEquals(Algorithm.RING, AllGatherDecision.decide(OpType.ALLGATHER, Algorithm.AUTO, shape(4)).algorithm());
        assertEquals(Algorithm.HIERARCHICAL,
                ReduceScatterDecision.decide(OpType.REDUCE_SCATTER, Algorithm.AUTO, twoHosts("a", "a", "b", "b")).algorithm());
        assertEquals(Algorithm.PAIRWISE, AllToAllDecision.decide(OpType.ALLTOALL, Algorithm.AUTO, shape(64)).algorithm());
        assertEquals(Algorithm.BRUCK, AllToAllDecision.decide(OpType.ALLTOALL, Algorithm.AUTO, shape(65)).algorithm(),
                "above rc.mesh.fullUpTo (64): the rounds with the peers a power of two away");
        assertEquals(Algorithm.BRUCK, AllToAllDecision.decide(OpType.ALLTOALL_BASE, Algorithm.BRUCK, shape(4)).algorithm());
        assertEquals(Algorithm.PAIRWISE, AllToAllDecision.decide(OpType.ALLTOALL, Algorithm.PAIRWISE, shape(300)).algorithm());
        assertEquals("dissemination", BarrierDecision.decide(Algorithm.AUTO).recordedName());
        assertEquals("monitored", BarrierDecision.decideMonitored().recordedName());
        assertEquals("allgather", SparseAllReduceDecision.decide(Algorithm.AUTO).recordedName());
    }

    @Test
    void aCoalescedAllReduceFlattensSmallListsAndOtherwiseDecidesPerTensor() {
        Tensor a = Tensor.zeros(DType.FLOAT32, 1024);
        Tensor b = Tensor.zeros(DType.FLOAT32, 16 * K);
        try {
            AllReduceDecision.Coalesced flat = AllReduceDecision.decideCoalesced(Algorithm.AUTO, List.of(a, a), shape(2));
            assertEquals(Algorithm.RECURSIVE_DOUBLING, flat.flat().algorithm());
            assertEquals(List.of(), flat.each());
            // 64 KiB + 4 KiB: over the flattening threshold, one choice per tensor
            AllReduceDecision.Coalesced each = AllReduceDecision.decideCoalesced(Algorithm.AUTO, List.of(b, a), shape(2));
            assertNull(each.flat());
            assertEquals(2, each.each().size());
            assertEquals("recursive_doubling", each.recordedName());
            AllReduceDecision.Coalesced ring = AllReduceDecision.decideCoalesced(Algorithm.RING, List.of(b, a), shape(2));
            assertEquals("ring", ring.recordedName());
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void theTablesRefuseWhatTheyDoNotImplementNamingWhatTheyDo() {
        assertEquals(List.of(Algorithm.RING, Algorithm.RECURSIVE_DOUBLING, Algorithm.HIERARCHICAL),
                AllReduceDecision.TABLE.implementers());
        assertEquals(List.of(), BarrierDecision.TABLE.implementers());
        IllegalArgumentException b = assertThrows(IllegalArgumentException.class, () -> BarrierDecision.decide(Algorithm.RING));
        assertEquals("barrier: algorithm RING does not implement barrier (use AUTO)", b.getMessage());
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
                () -> ReduceDecision.TABLE.check(OpType.REDUCE, Algorithm.DIRECT));
        assertEquals("reduce: algorithm DIRECT does not implement reduce (use AUTO or BINOMIAL_TREE)", r.getMessage());
        IllegalArgumentException c = assertThrows(IllegalArgumentException.class,
                () -> ReduceScatterDecision.decideCoalesced(Algorithm.HIERARCHICAL));
        assertEquals("reduceScatterTensorCoalesced: algorithm HIERARCHICAL does not implement reduceScatterTensorCoalesced "
                + "(use AUTO or RING)", c.getMessage());
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
                () -> SparseAllReduceDecision.decide(Algorithm.PAIRWISE));
        assertEquals("allReduceSparse: algorithm PAIRWISE does not implement allReduceSparse (use AUTO)", s.getMessage());
    }
}
