package io.reactivecollectives.core;

import java.util.List;

import static io.reactivecollectives.core.CollectiveArguments.requireLike;
import static io.reactivecollectives.core.CollectiveArguments.requireList;
import static io.reactivecollectives.core.CollectiveArguments.requireNonEmpty;
import static io.reactivecollectives.core.CollectiveArguments.requireRoot;
import static io.reactivecollectives.core.CollectiveArguments.requireSameDtype;
import static io.reactivecollectives.core.CollectiveArguments.requireTensor;

/**
 * The gather-family checks behind {@link CollectiveArguments#allGather}, {@link CollectiveArguments#allGatherInto},
 * {@link CollectiveArguments#allGatherCoalesced}, {@link CollectiveArguments#gather} and {@link CollectiveArguments#scatter}.
 */
final class GatherArguments {

    private GatherArguments() {
    }

    static void allGather(List<Tensor> outputs, Tensor input, int worldSize) {
        String op = "allGather";
        requireTensor(op, input, "input");
        requireList(op, outputs, worldSize, "outputs");
        for (int i = 0; i < outputs.size(); i++) {
            requireLike(op, outputs.get(i), input, "outputs[" + i + "]");
        }
    }

    static void allGatherInto(Tensor output, Tensor input, int worldSize) {
        String op = "allGatherInto";
        requireTensor(op, input, "input");
        requireTensor(op, output, "output");
        requireSameDtype(op, output, input.dtype(), "output");
        if (output.numel() != input.numel() * worldSize) {
            throw new IllegalArgumentException(op + ": output tensor size must be equal to world size times input"
                    + " tensor size (expected " + worldSize + " x " + input.numel() + " = " + input.numel() * worldSize
                    + " elements, got " + output.numel() + ")");
        }
    }

    static void allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs, int worldSize) {
        String op = "allGatherCoalesced";
        requireNonEmpty(op, inputs, "inputs");
        if (outputs == null || outputs.size() != inputs.size()) {
            throw new IllegalArgumentException(op + ": outputs has " + (outputs == null ? "no" : outputs.size())
                    + " lists, expected one per input (" + inputs.size() + ")");
        }
        DType dtype = inputs.get(0).dtype();
        for (int i = 0; i < inputs.size(); i++) {
            requireSameDtype(op, inputs.get(i), dtype, "inputs[" + i + "]");
            requireList(op, outputs.get(i), worldSize, "outputs[" + i + "]");
            for (int r = 0; r < worldSize; r++) {
                requireLike(op, outputs.get(i).get(r), inputs.get(i), "outputs[" + i + "][" + r + "]");
            }
        }
    }

    static void gather(List<Tensor> outputs, Tensor input, int root, int rank, int worldSize) {
        String op = "gather";
        requireRoot(op, root, worldSize);
        requireTensor(op, input, "input");
        if (rank == root) {
            requireList(op, outputs, worldSize, "outputs");
            for (int i = 0; i < outputs.size(); i++) {
                requireLike(op, outputs.get(i), input, "outputs[" + i + "]");
            }
        } else if (outputs != null && !outputs.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires an empty output list on non-root rank " + rank
                    + " (root is " + root + ")");
        }
    }

    static void scatter(Tensor output, List<Tensor> inputs, int root, int rank, int worldSize) {
        String op = "scatter";
        requireRoot(op, root, worldSize);
        requireTensor(op, output, "output");
        if (rank == root) {
            requireList(op, inputs, worldSize, "inputs");
            for (int i = 0; i < inputs.size(); i++) {
                requireLike(op, inputs.get(i), output, "inputs[" + i + "]");
            }
        } else if (inputs != null && !inputs.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires an empty input list on non-root rank " + rank
                    + " (root is " + root + ")");
        }
    }
}
