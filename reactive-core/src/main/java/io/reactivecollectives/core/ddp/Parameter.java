package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.Tensor;

import java.util.Arrays;
import java.util.Objects;

/**
 * A trainable parameter as the gradient reducer sees it: a name, its value and its dense gradient,
 * two CPU tensors of the same dtype and shape. The reducer never releases them; the caller owns both.
 *
 * @param name  a name unique among the parameters registered with one reducer
 * @param value the parameter's values (broadcast from rank 0 at start)
 * @param grad  the gradient; after a reduction it holds the hook's result for this parameter
 */
public record Parameter(String name, Tensor value, Tensor grad) {

    /**
     * Checks the parameter.
     *
     * @param name  a name unique among the parameters registered with one reducer
     * @param value the parameter's values, a CPU tensor
     * @param grad  the gradient, a CPU tensor of {@code value}'s dtype and shape
     * @throws IllegalArgumentException when the gradient does not match the value, or a tensor is not on the CPU
     */
    public Parameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(grad, "grad");
        if (value.dtype() != grad.dtype() || !Arrays.equals(value.shape(), grad.shape())) {
            throw new IllegalArgumentException("parameter " + name + ": gradient " + grad
                    + " does not match value " + value);
        }
        if (!value.isCpu() || !grad.isCpu()) {
            throw new IllegalArgumentException("parameter " + name + ": only CPU tensors are supported");
        }
    }

    /**
     * Number of elements.
     *
     * @return the number of elements
     */
    public long numel() {
        return value.numel();
    }

    /**
     * Size of the gradient in bytes.
     *
     * @return the gradient's size in bytes
     */
    public long nbytes() {
        return grad.nbytes();
    }
}
