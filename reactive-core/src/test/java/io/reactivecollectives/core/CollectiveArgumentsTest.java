package io.reactivecollectives.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectiveArgumentsTest {

    private final List<Tensor> allocated = new ArrayList<>();

    private Tensor t(DType dtype, long... shape) {
        Tensor x = Tensor.zeros(dtype, shape);
        allocated.add(x);
        return x;
    }

    private Tensor f(long... shape) {
        return t(DType.FLOAT32, shape);
    }

    private List<Tensor> fs(int n, long... shape) {
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(f(shape));
        }
        return out;
    }

    @AfterEach
    void release() {
        allocated.forEach(x -> {
            if (x.refCnt() > 0) {
                x.release();
            }
        });
    }

    private static void rejects(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String frag : fragments) {
            assertTrue(e.getMessage().contains(frag), "message '" + e.getMessage() + "' lacks '" + frag + "'");
        }
    }

    @Test
    void allGather() {
        assertDoesNotThrow(() -> CollectiveArguments.allGather(fs(3, 2, 2), f(2, 2), 3));
        rejects(() -> CollectiveArguments.allGather(fs(2, 4), f(4), 3), "allGather: outputs has 2 tensors", "world size 3");
        List<Tensor> outs = fs(3, 4);
        outs.set(1, t(DType.INT32, 4));
        rejects(() -> CollectiveArguments.allGather(outs, f(4), 3), "allGather: invalid tensor type of outputs[1]",
                "expected float32, got int32");
        List<Tensor> outs2 = fs(3, 4);
        outs2.set(2, f(5));
        rejects(() -> CollectiveArguments.allGather(outs2, f(4), 3), "allGather: invalid tensor size of outputs[2]");
        rejects(() -> CollectiveArguments.allGather(fs(3, 4), null, 3), "allGather: input is null");
        Tensor released = Tensor.zeros(DType.FLOAT32, 4);
        released.release();
        rejects(() -> CollectiveArguments.allGather(fs(3, 4), released, 3), "allGather: input was already released");
    }

    @Test
    void allGatherIntoAndCoalesced() {
        assertDoesNotThrow(() -> CollectiveArguments.allGatherInto(f(12), f(3), 4));
        assertDoesNotThrow(() -> CollectiveArguments.allGatherInto(f(4, 3), f(3), 4));
        rejects(() -> CollectiveArguments.allGatherInto(f(11), f(3), 4), "allGatherInto: output tensor size",
                "4 x 3 = 12", "got 11");
        rejects(() -> CollectiveArguments.allGatherInto(t(DType.FLOAT64, 12), f(3), 4), "allGatherInto: invalid tensor type");

        List<Tensor> ins = List.of(f(2), f(0), f(1, 3));
        List<List<Tensor>> outs = List.of(fs(2, 2), fs(2, 0), fs(2, 1, 3));
        assertDoesNotThrow(() -> CollectiveArguments.allGatherCoalesced(outs, ins, 2));
        rejects(() -> CollectiveArguments.allGatherCoalesced(outs.subList(0, 2), ins, 2), "allGatherCoalesced: outputs has 2 lists");
        rejects(() -> CollectiveArguments.allGatherCoalesced(List.of(fs(2, 2), fs(3, 0), fs(2, 1, 3)), ins, 2),
                "allGatherCoalesced: outputs[1] has 3 tensors");
        rejects(() -> CollectiveArguments.allGatherCoalesced(List.of(), List.of(), 2), "allGatherCoalesced: requires a non-empty");
        rejects(() -> CollectiveArguments.allGatherCoalesced(List.of(fs(2, 2), fs(2, 2)), List.of(f(2), t(DType.INT64, 2)), 2),
                "inputs[1]", "expected float32, got int64");
    }

    /**
     * Outputs that share memory are refused: the ranks' pieces would land in one place in an order
     * that differs between ranks, so each rank would end with another result (before, they ran).
     */
    @Test
    void outputsThatShareMemoryAreRefused() {
        Tensor whole = f(3);
        rejects(() -> CollectiveArguments.allGather(List.of(whole.narrow(0, 2), whole.narrow(1, 2)), f(2), 2),
                "allGather: outputs[0] and outputs[1] share memory");
        Tensor one = f(2);
        rejects(() -> CollectiveArguments.allGather(List.of(f(2), one, one), f(2), 3),
                "allGather: outputs[1] and outputs[2] share memory");
        rejects(() -> CollectiveArguments.gather(List.of(one, one), f(2), 0, 0, 2), "gather: outputs[0] and outputs[1] share memory");
        rejects(() -> CollectiveArguments.allToAll(List.of(one, one), List.of(f(2), f(2)), 2),
                "allToAll: outputs[0] and outputs[1] share memory");
        rejects(() -> CollectiveArguments.allGatherCoalesced(List.of(List.of(f(2), one), List.of(one, f(2))), List.of(f(2), f(2)), 2),
                "allGatherCoalesced: outputs[0][1] and outputs[1][0] share memory");
        // views side by side (an in-place all-gather's chunks), and empty tensors, are fine
        Tensor rows = f(4);
        assertDoesNotThrow(() -> CollectiveArguments.allGather(rows.chunk(2), rows.narrow(0, 2), 2));
        assertDoesNotThrow(() -> CollectiveArguments.allGather(List.of(f(0), f(0)), f(0), 2));
    }

    @Test
    void gatherAndScatter() {
        assertDoesNotThrow(() -> CollectiveArguments.gather(fs(4, 3), f(3), 1, 1, 4));
        assertDoesNotThrow(() -> CollectiveArguments.gather(List.of(), f(3), 1, 0, 4));
        assertDoesNotThrow(() -> CollectiveArguments.gather(null, f(3), 1, 0, 4));
        rejects(() -> CollectiveArguments.gather(fs(4, 3), f(3), 4, 0, 4), "gather: invalid root rank 4 for world size 4");
        rejects(() -> CollectiveArguments.gather(fs(4, 3), f(3), -1, 0, 4), "gather: invalid root rank -1");
        rejects(() -> CollectiveArguments.gather(fs(3, 3), f(3), 0, 0, 4), "gather: outputs has 3 tensors");
        rejects(() -> CollectiveArguments.gather(fs(4, 3), f(3), 0, 2, 4), "gather: requires an empty output list on non-root rank 2");

        assertDoesNotThrow(() -> CollectiveArguments.scatter(f(2), fs(3, 2), 2, 2, 3));
        assertDoesNotThrow(() -> CollectiveArguments.scatter(f(2), List.of(), 2, 0, 3));
        rejects(() -> CollectiveArguments.scatter(f(2), fs(3, 2), 3, 0, 3), "scatter: invalid root rank 3 for world size 3");
        rejects(() -> CollectiveArguments.scatter(f(2), fs(3, 3), 0, 0, 3), "scatter: invalid tensor size of inputs[0]");
        rejects(() -> CollectiveArguments.scatter(f(2), fs(3, 2), 0, 1, 3), "scatter: requires an empty input list on non-root rank 1");
    }

    @Test
    void reduceScatters() {
        assertDoesNotThrow(() -> CollectiveArguments.reduceScatter(f(5), fs(3, 5), ReduceOp.SUM, 3));
        rejects(() -> CollectiveArguments.reduceScatter(f(5), fs(2, 5), ReduceOp.SUM, 3), "reduceScatter: inputs has 2 tensors");
        rejects(() -> CollectiveArguments.reduceScatter(f(5), fs(3, 5), ReduceOp.BAND, 3), "reduceScatter: ReduceOp.BAND");
        rejects(() -> CollectiveArguments.reduceScatter(t(DType.BOOL, 2), List.of(t(DType.BOOL, 2), t(DType.BOOL, 2)),
                ReduceOp.AVG, 2), "reduceScatter: ReduceOp.AVG is not supported for bool");

        assertDoesNotThrow(() -> CollectiveArguments.reduceScatterTensor(f(5), f(15), ReduceOp.MAX, 3));
        assertDoesNotThrow(() -> CollectiveArguments.reduceScatterTensor(f(0), f(0), ReduceOp.MAX, 3));
        rejects(() -> CollectiveArguments.reduceScatterTensor(f(5), f(14), ReduceOp.SUM, 3), "reduceScatterTensor: input tensor size",
                "3 x 5 = 15", "got 14");
        rejects(() -> CollectiveArguments.reduceScatterTensor(f(5), t(DType.INT32, 15), ReduceOp.SUM, 3),
                "reduceScatterTensor: invalid tensor type of input");
        rejects(() -> CollectiveArguments.reduceScatterTensor(f(5), f(15), null, 3), "reduceScatterTensor: reduce op is null");

        assertDoesNotThrow(() -> CollectiveArguments.reduceScatterTensorCoalesced(List.of(f(1), f(2)), List.of(f(2), f(4)),
                ReduceOp.SUM, 2));
        rejects(() -> CollectiveArguments.reduceScatterTensorCoalesced(List.of(f(1)), List.of(f(2), f(4)), ReduceOp.SUM, 2),
                "reduceScatterTensorCoalesced: outputs has 1 tensors");
        rejects(() -> CollectiveArguments.reduceScatterTensorCoalesced(List.of(f(1), f(2)), List.of(f(2), f(5)), ReduceOp.SUM, 2),
                "reduceScatterTensorCoalesced: input[1] tensor size");
    }

    @Test
    void allToAll() {
        assertDoesNotThrow(() -> CollectiveArguments.allToAll(List.of(f(1), f(0)), List.of(f(3), f(2)), 2));
        rejects(() -> CollectiveArguments.allToAll(List.of(f(1)), List.of(f(3), f(2)), 2), "allToAll: outputs has 1 tensors");
        rejects(() -> CollectiveArguments.allToAll(List.of(f(1), t(DType.INT8, 1)), List.of(f(3), f(2)), 2),
                "allToAll: invalid tensor type of outputs[1]");

        CollectiveArguments.AllToAllSplits s = CollectiveArguments.allToAllSingle(f(5, 3), f(4, 3),
                new long[] {2, 0, 3}, new long[] {1, 1, 2}, 3);
        assertArrayEquals(new long[] {1, 1, 2}, s.inputRows());
        assertArrayEquals(new long[] {2, 0, 3}, s.outputRows());
        assertEquals(3, s.rowElements());
        assertEquals(6, s.inputOffset(2));
        assertEquals(6, s.outputOffset(2));
        CollectiveArguments.AllToAllSplits eq = CollectiveArguments.allToAllSingle(f(6), f(6), new long[0], null, 3);
        assertArrayEquals(new long[] {2, 2, 2}, eq.inputRows());
        assertArrayEquals(new long[] {2, 2, 2}, eq.outputRows());
        rejects(() -> CollectiveArguments.allToAllSingle(f(7), f(6), null, null, 3),
                "allToAllSingle: output dimension 0 (7) does not divide equally across world size 3");
        rejects(() -> CollectiveArguments.allToAllSingle(f(6), f(6), new long[] {1, 2, 2}, null, 3),
                "allToAllSingle: output split sizes [1, 2, 2] sum to 5, not to the output's dimension 0 size 6");
        rejects(() -> CollectiveArguments.allToAllSingle(f(6), f(6), null, new long[] {3, 3}, 3),
                "allToAllSingle: number of input splits (2) is not equal to the world size 3");
        rejects(() -> CollectiveArguments.allToAllSingle(f(6), f(6), null, new long[] {-1, 4, 3}, 3), "negative input split");
        rejects(() -> CollectiveArguments.allToAllSingle(f(6, 2), f(6, 3), null, null, 3), "same dimensions after the first");
        rejects(() -> CollectiveArguments.allToAllSingle(t(DType.INT32, 6), f(6), null, null, 3), "allToAllSingle: invalid tensor type");
        Tensor same = f(6);
        rejects(() -> CollectiveArguments.allToAllSingle(same, same, null, null, 3),
                "allToAllSingle: output shares memory with input; all-to-all cannot run in place");
        rejects(() -> CollectiveArguments.allToAll(List.of(f(1), same), List.of(f(3), same), 2),
                "allToAll: outputs[1] shares memory with inputs[1]");
    }

    @Test
    void pointToPointBarrierGroupsAndSparse() {
        assertDoesNotThrow(() -> CollectiveArguments.batchSendRecv(List.of(P2POp.send(f(2), 1, 0), P2POp.recv(f(2), 2, 0)), 0, 3));
        rejects(() -> CollectiveArguments.batchSendRecv(List.of(), 0, 3), "batchSendRecv: requires a non-empty list");
        rejects(() -> CollectiveArguments.batchSendRecv(List.of(P2POp.send(f(2), 3, 0)), 0, 3),
                "batchSendRecv: invalid ops[0] (send) peer rank 3 for world size 3");
        rejects(() -> CollectiveArguments.batchSendRecv(List.of(P2POp.send(f(2), 1, 0), P2POp.recv(f(2), 0, 0)), 0, 3),
                "batchSendRecv: ops[1] (recv) names this rank 0");
        // a receive into a read-only tensor is refused with the rest, before the batch's sends go out
        Tensor readOnly = Tensors.wrap(java.nio.ByteBuffer.allocateDirect(8).asReadOnlyBuffer()
                .order(java.nio.ByteOrder.LITTLE_ENDIAN), DType.FLOAT32);
        allocated.add(readOnly);
        assertDoesNotThrow(() -> CollectiveArguments.batchSendRecv(List.of(P2POp.send(readOnly, 1, 0)), 0, 3));
        rejects(() -> CollectiveArguments.batchSendRecv(List.of(P2POp.send(f(2), 1, 0), P2POp.recv(readOnly, 2, 0)), 0, 3),
                "batchSendRecv: ops[1] (recv) tensor is read-only");

        assertDoesNotThrow(() -> CollectiveArguments.monitoredBarrier(Duration.ofMillis(1)));
        rejects(() -> CollectiveArguments.monitoredBarrier(Duration.ZERO), "monitoredBarrier: timeout must be positive");
        rejects(() -> CollectiveArguments.monitoredBarrier(null), "monitoredBarrier");

        assertArrayEquals(new int[] {0, 2, 3}, CollectiveArguments.newGroup(List.of(3, 0, 2), 4));
        rejects(() -> CollectiveArguments.newGroup(List.of(), 4), "newGroup: requires a non-empty list");
        rejects(() -> CollectiveArguments.newGroup(List.of(1, 4), 4), "newGroup: invalid rank 4 for world size 4");
        rejects(() -> CollectiveArguments.newGroup(List.of(1, 1), 4), "newGroup: rank 1 appears more than once");

        SparseTensor s = SparseTensor.empty(DType.FLOAT32, 1, 5);
        try {
            assertDoesNotThrow(() -> CollectiveArguments.allReduceSparse(s, ReduceOp.SUM));
            for (ReduceOp op : new ReduceOp[] {ReduceOp.AVG, ReduceOp.MAX, ReduceOp.PRODUCT, ReduceOp.premulSum(1.0)}) {
                rejects(() -> CollectiveArguments.allReduceSparse(s, op), "allReduceSparse: only ReduceOp.SUM is supported",
                        op.toString());
            }
            rejects(() -> CollectiveArguments.allReduceSparse(null, ReduceOp.SUM), "allReduceSparse: tensor is null");
        } finally {
            s.release();
        }
    }

    @Test
    void ranksPeersAndPrefetch() {
        assertDoesNotThrow(() -> CollectiveArguments.requireRank("broadcast", "root", 1, 2));
        rejects(() -> CollectiveArguments.requireRank("broadcast", "root", 2, 2), "broadcast: root 2 is not a rank of a group of 2");
        rejects(() -> CollectiveArguments.requireRank("reduce", "root", -1, 2), "reduce: root -1 is not a rank of a group of 2");
        assertDoesNotThrow(() -> CollectiveArguments.requireOtherRank("send", "peer", 1, 0, 2));
        rejects(() -> CollectiveArguments.requireOtherRank("send", "peer", 0, 0, 2), "send: rank 0 cannot send to itself");
        rejects(() -> CollectiveArguments.requireOtherRank("recv", "peer", 3, 0, 2), "recv: peer 3 is not a rank of a group of 2");
        assertDoesNotThrow(() -> CollectiveArguments.requirePrefetch("allReduceStream", 1));
        rejects(() -> CollectiveArguments.requirePrefetch("allReduceStream", 0), "allReduceStream: prefetch must be >= 1, got 0");
        assertDoesNotThrow(() -> CollectiveArguments.requireSamePlacement("allReduceCoalesced", f(2), f(3), "tensors"));
    }
}
