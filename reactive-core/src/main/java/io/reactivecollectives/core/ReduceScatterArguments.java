package io.reactivecollectives.core;

import java.util.List;

import static io.reactivecollectives.core.CollectiveArguments.requireLike;
import static io.reactivecollectives.core.CollectiveArguments.requireList;
import static io.reactivecollectives.core.CollectiveArguments.requireNonEmpty;
import static io.reactivecollectives.core.CollectiveArguments.requireReduceOp;
import static io.reactivecollectives.core.CollectiveArguments.requireSameDtype;
import static io.reactivecollectives.core.CollectiveArguments.requireTensor;

/**
 * The reduce-scatter checks behind {@link CollectiveArguments#reduceScatter},
 * {@link CollectiveArguments#reduceScatterTensor} and {@link CollectiveArguments#reduceScatterTensorCoalesced}.
 */
final class ReduceScatterArguments {

    private ReduceScatterArguments() {
    }

    static void reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp reduceOp, int worldSize) {
        String op = "reduceScatter";
        requireTensor(op, output, "output");
        requireList(op, inputs, worldSize, "inputs");
        for (int i = 0; i < inputs.size(); i++) {
            requireLike(op, inputs.get(i), output, "inputs[" + i + "]");
        }
        requireReduceOp(op, reduceOp, output.dtype());
    }

    static void reduceScatterTensor(Tensor output, Tensor input, ReduceOp reduceOp, int worldSize) {
        reduceScatterTensor("reduceScatterTensor", output, input, reduceOp, worldSize, "");
    }

    private static void reduceScatterTensor(String op, Tensor output, Tensor input, ReduceOp reduceOp,
                                            int worldSize, String suffix) {
        requireTensor(op, output, "output" + suffix);
        requireTensor(op, input, "input" + suffix);
        requireSameDtype(op, input, output.dtype(), "input" + suffix);
        if (input.numel() != output.numel() * worldSize) {
            throw new IllegalArgumentException(op + ": input" + suffix + " tensor size must be equal to world size"
                    + " times output tensor size (expected " + worldSize + " x " + output.numel() + " = "
                    + output.numel() * worldSize + " elements, got " + input.numel() + ")");
        }
        requireReduceOp(op, reduceOp, output.dtype());
    }

    static void reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp reduceOp,
                                             int worldSize) {
        String op = "reduceScatterTensorCoalesced";
        requireNonEmpty(op, inputs, "inputs");
        if (outputs == null || outputs.size() != inputs.size()) {
            throw new IllegalArgumentException(op + ": outputs has " + (outputs == null ? "no" : outputs.size())
                    + " tensors, expected one per input (" + inputs.size() + ")");
        }
        for (int i = 0; i < inputs.size(); i++) {
            reduceScatterTensor(op, outputs.get(i), inputs.get(i), reduceOp, worldSize, "[" + i + "]");
        }
    }
}
