package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;

import java.util.Objects;

/**
 * A row-sparse gradient, as an embedding produces: {@code values} row {@code k} is the gradient of
 * row {@code indices[k]} of the parameter; rows not listed have a zero gradient, and a row listed
 * twice adds up. The caller owns both tensors.
 *
 * @param indices INT64 tensor of shape {@code [nnz]}
 * @param values  tensor of shape {@code [nnz, rest of the parameter's shape...]}
 */
public record SparseGradient(Tensor indices, Tensor values) {

    /**
     * Checks the gradient.
     *
     * @param indices INT64 tensor of shape {@code [nnz]}
     * @param values  tensor of shape {@code [nnz, rest of the parameter's shape...]}
     * @throws IllegalArgumentException when the shapes or the indices' dtype do not fit
     */
    public SparseGradient {
        Objects.requireNonNull(indices, "indices");
        Objects.requireNonNull(values, "values");
        if (indices.dtype() != DType.INT64 || indices.dim() != 1) {
            throw new IllegalArgumentException("sparse gradient indices must be a 1-D int64 tensor, got " + indices);
        }
        if (values.dim() == 0 || values.size(0) != indices.numel()) {
            throw new IllegalArgumentException("sparse gradient has " + indices.numel() + " indices but values " + values);
        }
    }
}
