package io.reactivecollectives.core;

import io.reactivecollectives.core.CollectiveArguments.AllToAllSplits;

import java.util.Arrays;
import java.util.List;

import static io.reactivecollectives.core.CollectiveArguments.requireList;
import static io.reactivecollectives.core.CollectiveArguments.requireSameDtype;
import static io.reactivecollectives.core.CollectiveArguments.requireTensor;

/** The all-to-all checks behind {@link CollectiveArguments#allToAll} and {@link CollectiveArguments#allToAllSingle}. */
final class AllToAllArguments {

    private AllToAllArguments() {
    }

    static void allToAll(List<Tensor> outputs, List<Tensor> inputs, int worldSize) {
        String op = "allToAll";
        requireList(op, inputs, worldSize, "inputs");
        requireList(op, outputs, worldSize, "outputs");
        DType dtype = inputs.get(0).dtype();
        for (int i = 0; i < worldSize; i++) {
            requireSameDtype(op, inputs.get(i), dtype, "inputs[" + i + "]");
            requireSameDtype(op, outputs.get(i), dtype, "outputs[" + i + "]");
        }
        for (int o = 0; o < worldSize; o++) {
            for (int i = 0; i < worldSize; i++) {
                requireDisjoint(op, outputs.get(o), "outputs[" + o + "]", inputs.get(i), "inputs[" + i + "]");
            }
        }
        GatherArguments.requireOutputsApart(op, outputs, o -> "outputs[" + o + "]");
    }

    static void allToAll(List<Tensor> outputs, List<Tensor> inputs, int rank, int worldSize) {
        allToAll(outputs, inputs, worldSize);
        if (inputs.get(rank).nbytes() != outputs.get(rank).nbytes()) {
            throw new IllegalArgumentException("allToAll: rank " + rank + " sends itself " + inputs.get(rank).numel()
                    + " elements (inputs[" + rank + "]) but expects " + outputs.get(rank).numel() + " (outputs[" + rank + "])");
        }
    }

    static AllToAllSplits allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                                int rank, int worldSize) {
        AllToAllSplits s = allToAllSingle(output, input, outputSplits, inputSplits, worldSize);
        if (s.inputRows()[rank] != s.outputRows()[rank]) {
            throw new IllegalArgumentException("allToAllSingle: rank " + rank + " sends itself " + s.inputRows()[rank]
                    + " rows (input split " + rank + ") but expects " + s.outputRows()[rank] + " (output split " + rank + ")");
        }
        return s;
    }

    static AllToAllSplits allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                                int worldSize) {
        String op = "allToAllSingle";
        requireTensor(op, input, "input");
        requireTensor(op, output, "output");
        requireSameDtype(op, output, input.dtype(), "output");
        requireDisjoint(op, output, "output", input, "input");
        if (input.dim() == 0 || output.dim() == 0) {
            throw new IllegalArgumentException(op + ": input and output need at least one dimension, got shapes "
                    + Arrays.toString(input.shape()) + " and " + Arrays.toString(output.shape()));
        }
        long[] is = input.shape();
        long[] os = output.shape();
        if (!Arrays.equals(Arrays.copyOfRange(is, 1, is.length), Arrays.copyOfRange(os, 1, os.length))) {
            throw new IllegalArgumentException(op + ": input and output must have the same dimensions after the first,"
                    + " got shapes " + Arrays.toString(is) + " and " + Arrays.toString(os));
        }
        long row = 1;
        for (int d = 1; d < is.length; d++) {
            row *= is[d];
        }
        return new AllToAllSplits(splits(op, "input", inputSplits, is[0], worldSize),
                splits(op, "output", outputSplits, os[0], worldSize), row);
    }

    /**
     * All-to-all cannot run in place: rows arriving from one peer would overwrite rows not yet sent
     * to another. Refuses an output that shares memory with an input (the same tensor, or views that
     * overlap), before anything is sent.
     */
    private static void requireDisjoint(String op, Tensor output, String outName, Tensor input, String inName) {
        boolean overlap = output == input;
        if (!overlap && output.nbytes() > 0 && input.nbytes() > 0) {
            try {
                long o = output.address();
                long i = input.address();
                overlap = o < i + input.nbytes() && i < o + output.nbytes();
            } catch (UnsupportedOperationException | IllegalStateException e) {
                overlap = false;  // memory without an address to compare (e.g. no Unsafe): identity only
            }
        }
        if (overlap) {
            throw new IllegalArgumentException(op + ": " + outName + " shares memory with " + inName
                    + "; all-to-all cannot run in place: pass an output of its own");
        }
    }

    private static long[] splits(String op, String what, long[] splits, long dim0, int worldSize) {
        if (splits == null || splits.length == 0) {
            if (dim0 % worldSize != 0) {
                throw new IllegalArgumentException(op + ": " + what + " dimension 0 (" + dim0
                        + ") does not divide equally across world size " + worldSize + "; give split sizes");
            }
            long[] out = new long[worldSize];
            Arrays.fill(out, dim0 / worldSize);
            return out;
        }
        if (splits.length != worldSize) {
            throw new IllegalArgumentException(op + ": number of " + what + " splits (" + splits.length
                    + ") is not equal to the world size " + worldSize);
        }
        long sum = 0;
        for (int i = 0; i < splits.length; i++) {
            if (splits[i] < 0) {
                throw new IllegalArgumentException(op + ": negative " + what + " split size " + splits[i] + " at index " + i);
            }
            sum += splits[i];
        }
        if (sum != dim0) {
            throw new IllegalArgumentException(op + ": " + what + " split sizes " + Arrays.toString(splits) + " sum to "
                    + sum + ", not to the " + what + "'s dimension 0 size " + dim0);
        }
        return splits.clone();
    }
}
