package io.reactivecollectives.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.SparseGradient;

import java.util.stream.IntStream;

/**
 * The row-sparse form of a parameter's dense DJL gradient, for the parameters a
 * {@link DistributedTrainer} sends by rows (an embedding's table, as PyTorch's
 * {@code nn.Embedding(sparse=True)} gives DDP): the rows holding any element other than zero (NaN
 * and infinities included), found and gathered by libtorch, copied into new tensors the reducer
 * takes. Exact: every row left out is zero on this rank, so it adds nothing to the sum.
 */
final class RowSparseGradients {

    private RowSparseGradients() {
    }

    /**
     * The rows of {@code weight}'s gradient that are not all zero, with their indices; every
     * NDArray made on the way is closed before this returns.
     *
     * @param weight the parameter's array (its gradient is read, not changed)
     * @param name   the parameter's name, for errors
     * @return new tensors owned by the caller
     */
    static SparseGradient of(NDArray weight, String name) {
        try (NDManager scope = weight.getManager().newSubManager()) {
            NDArray grad = weight.getGradient();
            grad.attach(scope);
            long[] shape = grad.getShape().getShape();
            if (shape.length == 0) {
                throw new IllegalArgumentException("DistributedTrainer: parameter " + name + " is a scalar; it has no rows to send");
            }
            int[] rest = IntStream.range(1, shape.length).toArray();
            // |g| summed over a row is zero only when every element is; NaN and infinities stay non-zero
            NDArray touched = (rest.length == 0 ? grad.abs() : grad.abs().sum(rest)).neq(0);
            NDArray rowIndices = touched.nonzero().squeeze(1);
            long[] rows = rowIndices.toLongArray();
            long[] valueShape = shape.clone();
            valueShape[0] = rows.length;
            Tensor indices = Tensor.fromLongs(rows);
            Tensor values;
            try {
                if (rows.length == 0) {
                    values = Tensor.zeros(ParameterViews.dtype(grad.getDataType(), name), valueShape);
                } else {
                    Tensor gathered = ParameterViews.view(grad.get(rowIndices), name, "rows of the gradient");
                    try {
                        values = gathered.copy();
                    } finally {
                        gathered.release();
                    }
                }
            } catch (RuntimeException e) {
                indices.release();
                throw e;
            }
            return new SparseGradient(indices, values);
        }
    }
}
