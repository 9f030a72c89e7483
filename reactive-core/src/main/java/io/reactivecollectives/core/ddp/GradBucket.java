package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One bucket of gradients handed to a {@link CommHook}, as c10d's {@code GradBucket}: the gradients of
 * several parameters flattened into one 1-D {@link #buffer()}, with each parameter's offset, length
 * and shape in it.
 *
 * <p>A <em>sparse</em> bucket holds exactly one parameter whose gradient is row-sparse: its buffer is
 * the flattened gradient values of the rows listed in {@link #sparseIndices(int)}, and their number
 * may differ between ranks. A hook given a sparse bucket returns the reduced gradient as a
 * <em>dense</em> flat tensor of the parameter's size ({@link #toDense()} makes the local one).
 *
 * <p>The bucket does not own its tensors: the buffer belongs to the reducer that made it and stays
 * valid until the hook's {@code Mono} completes.
 */
public final class GradBucket {

    private final int index;
    private final int bucketCount;
    private final Tensor buffer;
    private final List<Parameter> parameters;
    private final long[] offsets;
    private final long[] lengths;
    private final List<long[]> shapes;
    private final Tensor sparseIndices;

    /**
     * A dense bucket.
     *
     * @param index       the bucket's position, 0 for the first to be reduced
     * @param bucketCount how many buckets the model's gradients span
     * @param buffer      the flat gradients, 1-D
     * @param parameters  the parameters, in the order their gradients are laid out in {@code buffer}
     */
    public GradBucket(int index, int bucketCount, Tensor buffer, List<Parameter> parameters) {
        this(index, bucketCount, buffer, parameters, null);
    }

    private GradBucket(int index, int bucketCount, Tensor buffer, List<Parameter> parameters, Tensor sparseIndices) {
        if (bucketCount <= 0 || index < 0 || index >= bucketCount) {
            throw new IllegalArgumentException("bucket index " + index + " of " + bucketCount);
        }
        Objects.requireNonNull(buffer, "buffer");
        if (buffer.dim() != 1) {
            throw new IllegalArgumentException("bucket buffer must be 1-D, got " + buffer);
        }
        if (parameters.isEmpty()) {
            throw new IllegalArgumentException("bucket " + index + " has no parameters");
        }
        this.index = index;
        this.bucketCount = bucketCount;
        this.buffer = buffer;
        this.parameters = List.copyOf(parameters);
        this.sparseIndices = sparseIndices;
        this.offsets = new long[parameters.size()];
        this.lengths = new long[parameters.size()];
        List<long[]> s = new ArrayList<>(parameters.size());
        long off = 0;
        for (int i = 0; i < parameters.size(); i++) {
            Parameter p = parameters.get(i);
            if (p.grad().dtype() != buffer.dtype()) {
                throw new IllegalArgumentException("bucket " + index + ": parameter " + p.name() + " is "
                        + p.grad().dtype() + " but the buffer is " + buffer.dtype());
            }
            offsets[i] = off;
            lengths[i] = sparseIndices == null ? p.numel() : buffer.numel();
            s.add(p.value().shape());
            off += lengths[i];
        }
        if (off != buffer.numel()) {
            throw new IllegalArgumentException("bucket " + index + ": parameters hold " + off
                    + " elements but the buffer " + buffer.numel());
        }
        this.shapes = Collections.unmodifiableList(s);
    }

    /**
     * A sparse bucket of one parameter.
     *
     * @param index       the bucket's position
     * @param bucketCount how many buckets the model's gradients are split into
     * @param parameter   the parameter
     * @return the bucket
     * @param values  the flattened values of the listed rows, 1-D
     * @param indices INT64 row indices, one per row of values
     */
    public static GradBucket sparse(int index, int bucketCount, Parameter parameter, Tensor values, Tensor indices) {
        new SparseGradient(indices, values.reshape(rowShape(parameter, indices.numel())));
        return new GradBucket(index, bucketCount, values, List.of(parameter), indices);
    }

    private static long[] rowShape(Parameter p, long rows) {
        long[] s = p.value().shape();
        if (s.length == 0) {
            throw new IllegalArgumentException("parameter " + p.name() + " is a scalar and cannot have a sparse gradient");
        }
        s[0] = rows;
        return s;
    }

    /**
     * The bucket's position: 0 holds the last-registered parameters, whose gradients are ready first.
     *
     * @return the bucket's index
     */
    public int index() {
        return index;
    }

    /**
     * How many buckets the model's gradients are split into.
     *
     * @return the number of buckets
     */
    public int bucketCount() {
        return bucketCount;
    }

    /**
     * Whether this is the last bucket of the iteration ({@code index() == bucketCount() - 1}).
     *
     * @return whether this is the last bucket
     */
    public boolean isLast() {
        return index == bucketCount - 1;
    }

    /**
     * The flat 1-D gradients (owned by the reducer; a hook may write into it).
     *
     * @return the buffer
     */
    public Tensor buffer() {
        return buffer;
    }

    /**
     * The parameters whose gradients the buffer holds, in layout order.
     *
     * @return the parameters
     */
    public List<Parameter> parameters() {
        return parameters;
    }

    /**
     * Element offset of each parameter's gradient in the buffer.
     *
     * @return the offsets, in elements
     */
    public long[] offsets() {
        return offsets.clone();
    }

    /**
     * Number of elements of each parameter's gradient in the buffer.
     *
     * @return the lengths, in elements
     */
    public long[] lengths() {
        return lengths.clone();
    }

    /**
     * Shape of each parameter.
     *
     * @return the shapes
     */
    public List<long[]> shapes() {
        List<long[]> out = new ArrayList<>(shapes.size());
        shapes.forEach(s -> out.add(s.clone()));
        return out;
    }

    /**
     * Views of the buffer, one per parameter, shaped as the parameter (for a sparse bucket, shaped
     * {@code [nnz, row shape...]}). Views share the buffer's reference count: do not release them.
     *
     * @return the views, in layout order
     */
    public List<Tensor> gradients() {
        List<Tensor> out = new ArrayList<>(parameters.size());
        for (int i = 0; i < parameters.size(); i++) {
            long[] shape = sparseIndices == null ? shapes.get(i) : rowShape(parameters.get(i), sparseIndices.numel());
            out.add(buffer.narrow(offsets[i], lengths[i]).reshape(shape));
        }
        return out;
    }

    /**
     * Whether the bucket holds a row-sparse gradient.
     *
     * @return whether the gradient is sparse
     */
    public boolean isSparse() {
        return sparseIndices != null;
    }

    /**
     * The row indices of parameter {@code i}'s sparse gradient, or {@code null} for a dense one.
     *
     * @param i the parameter's position in the bucket
     * @return the indices, or null
     */
    public Tensor sparseIndices(int i) {
        Objects.checkIndex(i, parameters.size());
        return sparseIndices;
    }

    /**
     * A new flat dense tensor of all parameters' elements holding this rank's gradients: for a dense
     * bucket a copy of the buffer, for a sparse one the listed rows added into zeros. The caller
     * releases it.
     *
     * @return a new dense tensor owned by the caller
     */
    public Tensor toDense() {
        if (sparseIndices == null) {
            return buffer.copy();
        }
        SparseTensor rows = sparseRows();   // off-heap, any floating dtype
        try {
            return rows.toDense().flatten();
        } finally {
            rows.release();
        }
    }

    /**
     * A sparse bucket's rows as a sparse tensor of the parameter's shape, over the bucket's own
     * memory (no copy): it holds a reference of the bucket's tensors, which the caller releases by
     * releasing it. Every index is checked against the parameter's rows.
     *
     * @return the rows, owned by the caller
     * @throws IllegalStateException for a dense bucket
     */
    SparseTensor sparseRows() {
        if (sparseIndices == null) {
            throw new IllegalStateException("bucket " + index + " is dense");
        }
        long[] shape = parameters.get(0).value().shape();
        long[] rowShape = shape.clone();
        rowShape[0] = sparseIndices.numel();
        return SparseTensor.of(sparseIndices.reshape(1, sparseIndices.numel()).retain(), buffer.reshape(rowShape).retain(), shape);
    }

    /** Total number of elements of the parameters (what a hook's result must hold). */
    long denseNumel() {
        long n = 0;
        for (Parameter p : parameters) {
            n += p.numel();
        }
        return n;
    }

    @Override
    public String toString() {
        return "GradBucket[" + index + "/" + bucketCount + ", " + parameters.size() + " parameter(s), "
                + buffer + (isSparse() ? ", sparse" : "") + ", offsets " + Arrays.toString(offsets) + "]";
    }
}
