package io.reactivecollectives.core;

import io.netty.util.ReferenceCounted;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A sparse tensor in COO form, as PyTorch's {@code torch.sparse_coo_tensor}: an INT64
 * {@code indices} tensor of shape {@code [sparseDim, nnz]}, a {@code values} tensor of shape
 * {@code [nnz, denseShape[sparseDim:]...]} (a "hybrid" tensor when it has more than one dimension),
 * and the dense shape. Entry {@code k} says that the slice of the dense tensor at
 * {@code indices[:, k]} holds {@code values[k]}; several entries may name the same slice (an
 * uncoalesced tensor), and they add up.
 *
 * <p>{@link #coalesce()} sorts the entries by index (row-major order of the dense tensor) and sums
 * duplicates, as {@code torch.Tensor.coalesce}; {@link #sum(List)} is the result of a SUM
 * all-reduce; {@link #toDense()} materializes it.
 *
 * <h2>Reference counting</h2>
 * A sparse tensor owns one reference of each of its two tensors: {@link #release()} releases both,
 * {@link #retain()} retains both; {@link #refCnt()} is the values' count.
 */
public final class SparseTensor implements ReferenceCounted {

    private final Tensor indices;
    private final Tensor values;
    private final long[] denseShape;
    private final boolean coalesced;

    SparseTensor(Tensor indices, Tensor values, long[] denseShape, boolean coalesced) {
        this.indices = indices;
        this.values = values;
        this.denseShape = denseShape;
        this.coalesced = coalesced;
    }

    /**
     * A sparse tensor from its parts, taking ownership of one reference of each tensor (also when
     * this throws, so a caller never has to release after a failed call).
     *
     * @param indices    the INT64 indices, {@code [sparseDim, nnz]}
     * @param values     the values, {@code [nnz, denseShape[sparseDim:]...]}
     * @param denseShape the shape of the dense tensor this one stands for
     * @return the sparse tensor, owning {@code indices} and {@code values}
     * @throws IllegalArgumentException when indices are not INT64 {@code [sparseDim, nnz]}, values
     *         are not {@code [nnz, denseShape[sparseDim:]...]}, or an index is out of range
     */
    public static SparseTensor of(Tensor indices, Tensor values, long... denseShape) {
        Objects.requireNonNull(indices, "indices");
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(denseShape, "denseShape");
        try {
            validate(indices, values, denseShape);
        } catch (RuntimeException e) {
            indices.release();
            values.release();
            throw e;
        }
        return new SparseTensor(indices, values, denseShape.clone(), false);
    }

    /**
     * An empty (nnz = 0) sparse tensor with {@code sparseDim} sparse dimensions.
     *
     * @param dtype      the values' element type
     * @param sparseDim  the number of sparse dimensions
     * @param denseShape the shape of the dense tensor this one stands for
     * @return a new empty sparse tensor, owned by the caller
     */
    public static SparseTensor empty(DType dtype, int sparseDim, long... denseShape) {
        if (sparseDim < 1 || sparseDim > denseShape.length) {
            throw new IllegalArgumentException("sparseDim " + sparseDim + " for dense shape " + Arrays.toString(denseShape));
        }
        long[] vshape = new long[1 + denseShape.length - sparseDim];
        System.arraycopy(denseShape, sparseDim, vshape, 1, denseShape.length - sparseDim);
        return new SparseTensor(Tensor.zeros(DType.INT64, sparseDim, 0), Tensor.zeros(dtype, vshape),
                denseShape.clone(), true);
    }

    /**
     * The non-zero elements of {@code dense} (every dimension sparse), coalesced; {@code dense} is
     * not consumed.
     *
     * @param dense a CPU tensor
     * @return a new sparse tensor, owned by the caller
     */
    public static SparseTensor fromDense(Tensor dense) {
        if (dense.dim() == 0) {
            throw new IllegalArgumentException("fromDense: a 0-dimensional tensor has no sparse form");
        }
        long[] shape = dense.shape();
        List<Long> nz = new ArrayList<>();
        for (long i = 0; i < dense.numel(); i++) {
            if (dense.getDouble(i) != 0 || Double.isNaN(dense.getDouble(i))) {
                nz.add(i);
            }
        }
        int nd = shape.length;
        Tensor idx = Tensor.empty(DType.INT64, nd, nz.size());
        Tensor val = Tensor.empty(dense.dtype(), nz.size());
        int es = dense.dtype().byteSize();
        for (int k = 0; k < nz.size(); k++) {
            long lin = nz.get(k);
            for (int d = nd - 1; d >= 0; d--) {
                idx.setLong((long) d * nz.size() + k, lin % shape[d]);
                lin /= shape[d];
            }
            val.buffer().setBytes(k * es, dense.buffer(), (int) (nz.get(k) * es), es);
        }
        return new SparseTensor(idx, val, shape, true);
    }

    private static void validate(Tensor indices, Tensor values, long[] denseShape) {
        if (!indices.isCpu() || !values.isCpu()) {
            throw new IllegalArgumentException("sparse tensor parts must be CPU tensors");
        }
        if (indices.dtype() != DType.INT64) {
            throw new IllegalArgumentException("sparse indices must be int64, got " + indices.dtype());
        }
        if (indices.dim() != 2) {
            throw new IllegalArgumentException("sparse indices must be 2-D [sparseDim, nnz], got shape "
                    + Arrays.toString(indices.shape()));
        }
        int sparseDim = (int) indices.size(0);
        long nnz = indices.size(1);
        if (sparseDim < 1 || sparseDim > denseShape.length) {
            throw new IllegalArgumentException("sparse indices have " + sparseDim + " rows for a dense shape of "
                    + denseShape.length + " dimensions " + Arrays.toString(denseShape));
        }
        for (long d : denseShape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in dense shape " + Arrays.toString(denseShape));
            }
        }
        long[] vs = values.shape();
        long[] want = new long[1 + denseShape.length - sparseDim];
        want[0] = nnz;
        System.arraycopy(denseShape, sparseDim, want, 1, want.length - 1);
        if (!Arrays.equals(vs, want)) {
            throw new IllegalArgumentException("sparse values must have shape " + Arrays.toString(want)
                    + " (nnz, then the dense dimensions), got " + Arrays.toString(vs));
        }
        for (int d = 0; d < sparseDim; d++) {
            for (long k = 0; k < nnz; k++) {
                long v = indices.getLong(d * nnz + k);
                if (v < 0 || v >= denseShape[d]) {
                    throw new IllegalArgumentException("sparse index " + v + " at [" + d + ", " + k
                            + "] is out of range for dimension " + d + " of size " + denseShape[d]);
                }
            }
        }
    }

    // ------------------------------------------------------------------ properties

    /**
     * The INT64 indices, {@code [sparseDim, nnz]} (owned by this tensor: do not release).
     *
     * @return the indices
     */
    public Tensor indices() {
        return indices;
    }

    /**
     * The values, {@code [nnz, dense dims...]} (owned by this tensor: do not release).
     *
     * @return the values
     */
    public Tensor values() {
        return values;
    }

    /** {@return a copy of the dense shape} */
    public long[] denseShape() {
        return denseShape.clone();
    }

    /** {@return the number of sparse (indexed) dimensions} */
    public int sparseDim() {
        return (int) indices.size(0);
    }

    /** {@return the number of dense dimensions (of each value)} */
    public int denseDim() {
        return denseShape.length - sparseDim();
    }

    /** {@return the number of stored entries (duplicates counted)} */
    public long nnz() {
        return indices.size(1);
    }

    /** {@return the values' element type} */
    public DType dtype() {
        return values.dtype();
    }

    /** {@return true when the entries are known to be sorted and free of duplicates} */
    public boolean isCoalesced() {
        return coalesced;
    }

    /** Elements in one value ({@code values.numel() / nnz}). */
    long rowElements() {
        long n = 1;
        for (int d = sparseDim(); d < denseShape.length; d++) {
            n *= denseShape[d];
        }
        return n;
    }

    // ------------------------------------------------------------------ operations

    /**
     * A new, coalesced sparse tensor: entries sorted by index in the row-major order of the dense
     * tensor, duplicates summed (SUM of the dtype: wrap-around for integers, OR for bool). This
     * tensor is left as it is (and must still be released).
     *
     * @return a new coalesced sparse tensor, owned by the caller
     */
    public SparseTensor coalesce() {
        return sum(List.of(this));
    }

    /**
     * The sum of several sparse tensors of the same dense shape, sparse dimensions and dtype,
     * coalesced: a SUM all-reduce's result. None of the parts is consumed.
     *
     * @param parts the tensors to add, at least one
     * @return a new coalesced sparse tensor holding the sum, owned by the caller
     * @throws IllegalArgumentException when the parts disagree on shape, sparse dims or dtype
     */
    public static SparseTensor sum(List<SparseTensor> parts) {
        return SparseSum.sum(parts);
    }

    /**
     * A new dense CPU tensor of {@link #denseShape()} with the entries added in (duplicates sum).
     *
     * @return a new dense tensor, owned by the caller
     */
    public Tensor toDense() {
        Tensor out = Tensor.zeros(dtype(), denseShape);
        int sd = sparseDim();
        long row = rowElements();
        long nnz = nnz();
        int rowBytes = Math.toIntExact(row * dtype().byteSize());
        for (long k = 0; k < nnz; k++) {
            long lin = 0;
            for (int d = 0; d < sd; d++) {
                lin = lin * denseShape[d] + indices.getLong(d * nnz + k);
            }
            if (coalesced) {   // each index once: the row is copied, not added
                out.buffer().setBytes(Math.toIntExact(lin * rowBytes), values.buffer(), Math.toIntExact(k * rowBytes), rowBytes);
            } else {
                SparseSum.addInto(dtype(), out.buffer(), lin * row, values.buffer(), k * row, row);
            }
        }
        return out;
    }

    /** {@return a deep copy (new tensors), owned by the caller} */
    public SparseTensor copy() {
        return new SparseTensor(indices.copy(), values.copy(), denseShape.clone(), coalesced);
    }

    /**
     * True when both have the same dense shape and equal indices and values, entry by entry (bitwise).
     *
     * @param other the tensor compared with
     * @return whether the two are equal entry by entry
     */
    public boolean contentEquals(SparseTensor other) {
        return other != null && Arrays.equals(denseShape, other.denseShape)
                && indices.contentEquals(other.indices) && values.contentEquals(other.values);
    }

    // ------------------------------------------------------------------ reference counting

    @Override
    public int refCnt() {
        return values.refCnt();
    }

    @Override
    public SparseTensor retain() {
        indices.retain();
        values.retain();
        return this;
    }

    @Override
    public SparseTensor retain(int increment) {
        indices.retain(increment);
        values.retain(increment);
        return this;
    }

    @Override
    public SparseTensor touch() {
        indices.touch();
        values.touch();
        return this;
    }

    @Override
    public SparseTensor touch(Object hint) {
        indices.touch(hint);
        values.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        indices.release();
        return values.release();
    }

    @Override
    public boolean release(int decrement) {
        indices.release(decrement);
        return values.release(decrement);
    }

    @Override
    public String toString() {
        return "SparseTensor[" + dtype() + Arrays.toString(denseShape) + ", sparseDim=" + sparseDim()
                + ", nnz=" + nnz() + (coalesced ? ", coalesced" : "") + "]";
    }
}
