package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check that a gather's outputs share no memory runs on every call: its cost grows with the
 * number of outputs as n log n, not n squared (an allGatherCoalesced of 64 tensors on 1024 ranks
 * has 65,536 outputs).
 */
class OutputsApartCostTest {

    @Test
    void manyOutputsAreCheckedQuickly() {
        int tensors = 64;
        int world = 1024;
        Tensor whole = Tensor.zeros(DType.FLOAT32, (long) tensors * world);
        Tensor in = Tensor.zeros(DType.FLOAT32, 1);
        try {
            List<List<Tensor>> outputs = new ArrayList<>();
            List<Tensor> inputs = new ArrayList<>();
            for (int i = 0; i < tensors; i++) {
                List<Tensor> row = new ArrayList<>();
                for (int r = 0; r < world; r++) {
                    row.add(whole.narrow((long) i * world + r, 1));
                }
                outputs.add(row);
                inputs.add(in);
            }
            CollectiveArguments.allGatherCoalesced(outputs, inputs, world);   // warm up
            long t0 = System.nanoTime();
            CollectiveArguments.allGatherCoalesced(outputs, inputs, world);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // before: some 2.1e9 pairs compared, tens of seconds
            assertTrue(ms < 2_000, "checking " + tensors * world + " outputs took " + ms + " ms");
            // still refused: the last output overlapping the first (a view of both) and the same tensor twice
            outputs.get(tensors - 1).set(world - 1, whole.narrow(0, 1));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CollectiveArguments.allGatherCoalesced(outputs, inputs, world));
            assertTrue(e.getMessage().contains("outputs[0][0] and outputs[" + (tensors - 1) + "][" + (world - 1)
                    + "] share memory"), e.getMessage());
        } finally {
            whole.release();
            in.release();
        }
    }
}
