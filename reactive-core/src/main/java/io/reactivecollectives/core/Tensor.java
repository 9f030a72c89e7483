package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ReferenceCounted;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A dense, contiguous, reference-counted tensor in off-heap memory.
 *
 * <p>CPU tensors are backed by a direct Netty {@link ByteBuf} from the pooled allocator, so the
 * transport writes them to a socket and reads peers' data into them without a copy through the
 * JVM heap, and Netty's leak detector watches them like any other buffer. Elements are stored in
 * native (little-endian) order; the layout is row-major.
 *
 * <h2>Reference counting</h2>
 * A new tensor has a reference count of 1; {@link #release()} frees its memory when the count
 * reaches 0. Views ({@link #slice}, {@link #chunk}, {@link #narrow}, {@link #reshape}) share the
 * storage <em>and</em> the reference count of the tensor they view, as Netty's derived buffers do:
 * releasing a view releases the storage. Use {@link #retain()} on a view that must outlive the
 * code that owns the tensor. Any access after the count reached 0 throws
 * {@link IllegalReferenceCountException}.
 *
 * <p>Tensors are not thread-safe for concurrent writes to the same elements; collectives own the
 * tensors passed to them until their {@code Mono} completes.
 */
public final class Tensor implements ReferenceCounted {

    private static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

    private final DType dtype;
    private final long[] shape;
    private final long numel;
    private final ByteBuf host;          // CPU tensors
    private final DeviceMemory device;   // accelerator tensors

    private Tensor(DType dtype, long[] shape, ByteBuf host, DeviceMemory device) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = shape.clone();
        this.numel = numelOf(this.shape);
        this.host = host;
        this.device = device;
    }

    // ------------------------------------------------------------------ factories

    /**
     * A new zero-filled CPU tensor.
     *
     * @param dtype the element type
     * @param shape the dimensions
     * @return a new tensor, owned by the caller
     * @throws IllegalArgumentException for a negative dimension or a size over 2 GiB - 1 bytes
     */
    public static Tensor zeros(DType dtype, long... shape) {
        Tensor t = empty(dtype, shape);
        t.host.setZero(0, (int) t.nbytes());
        return t;
    }

    /**
     * A new CPU tensor whose contents are unspecified (pooled memory is reused as it is).
     *
     * @param dtype the element type
     * @param shape the dimensions
     * @return a new tensor, owned by the caller
     */
    public static Tensor empty(DType dtype, long... shape) {
        long n = numelOf(shape);
        long bytes = Math.multiplyExact(n, (long) dtype.byteSize());
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor of " + bytes + " bytes is over the 2 GiB limit of one tensor");
        }
        ByteBuf buf = ALLOCATOR.directBuffer((int) bytes, (int) bytes);
        buf.writerIndex((int) bytes);
        return new Tensor(dtype, shape, buf, null);
    }

    /**
     * A new CPU tensor with the same dtype and shape as {@code like}, zero-filled.
     *
     * @param like the tensor whose dtype and shape are taken
     * @return a new tensor, owned by the caller
     */
    public static Tensor zerosLike(Tensor like) {
        return zeros(like.dtype, like.shape);
    }

    /**
     * Wraps a direct buffer holding {@code nbytes} of elements from its reader index; takes ownership
     * of one reference of {@code buf}.
     *
     * @param buf   a direct buffer holding at least the tensor's bytes from its reader index
     * @param dtype the element type
     * @param shape the dimensions
     * @return a tensor over {@code buf}
     */
    public static Tensor wrap(ByteBuf buf, DType dtype, long... shape) {
        long bytes = numelOf(shape) * dtype.byteSize();
        if (buf.readableBytes() != bytes) {
            throw new IllegalArgumentException("buffer has " + buf.readableBytes() + " readable bytes, shape "
                    + Arrays.toString(shape) + " of " + dtype + " needs " + bytes);
        }
        return new Tensor(dtype, shape, buf.slice(buf.readerIndex(), (int) bytes), null);
    }

    /**
     * Wraps device memory as a tensor on that device; takes ownership of one reference.
     *
     * @param memory the device memory, at least the tensor's bytes
     * @param dtype  the element type
     * @param shape  the dimensions
     * @return a tensor on the memory's device
     */
    public static Tensor onDevice(DeviceMemory memory, DType dtype, long... shape) {
        long bytes = numelOf(shape) * dtype.byteSize();
        if (memory.byteSize() != bytes) {
            throw new IllegalArgumentException("device memory has " + memory.byteSize() + " bytes, shape "
                    + Arrays.toString(shape) + " of " + dtype + " needs " + bytes);
        }
        return new Tensor(dtype, shape, null, memory);
    }

    /**
     * A FLOAT32 tensor holding a copy of {@code values}; the default shape is 1-D.
     *
     * @param values the elements
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromFloats(float[] values, long... shape) {
        Tensor t = empty(DType.FLOAT32, shapeOr(shape, values.length));
        TensorElements.put(t.host, values);
        return t;
    }

    /**
     * A FLOAT64 tensor holding a copy of {@code values}.
     *
     * @param values the elements
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromDoubles(double[] values, long... shape) {
        Tensor t = empty(DType.FLOAT64, shapeOr(shape, values.length));
        TensorElements.put(t.host, values);
        return t;
    }

    /**
     * An INT32 tensor holding a copy of {@code values}.
     *
     * @param values the elements
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromInts(int[] values, long... shape) {
        Tensor t = empty(DType.INT32, shapeOr(shape, values.length));
        TensorElements.put(t.host, values);
        return t;
    }

    /**
     * An INT64 tensor holding a copy of {@code values}.
     *
     * @param values the elements
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromLongs(long[] values, long... shape) {
        Tensor t = empty(DType.INT64, shapeOr(shape, values.length));
        TensorElements.put(t.host, values);
        return t;
    }

    /**
     * An INT8 or UINT8 tensor holding a copy of {@code values} (as raw bytes).
     *
     * @param dtype  {@link DType#INT8} or {@link DType#UINT8}
     * @param values the elements' bytes
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromBytes(DType dtype, byte[] values, long... shape) {
        if (dtype.byteSize() != 1 || dtype.isBool()) {
            throw new IllegalArgumentException("fromBytes needs int8 or uint8, got " + dtype
                    + " (Tensors.fromBytes takes any dtype's little-endian bytes)");
        }
        Tensor t = empty(dtype, shapeOr(shape, values.length));
        t.host.setBytes(0, values);
        return t;
    }

    /**
     * A BOOL tensor holding a copy of {@code values}.
     *
     * @param values the elements
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromBooleans(boolean[] values, long... shape) {
        Tensor t = empty(DType.BOOL, shapeOr(shape, values.length));
        TensorElements.put(t.host, values);
        return t;
    }

    /**
     * A tensor of any dtype whose elements are {@code values} converted as PyTorch's
     * {@code torch.tensor(values, dtype=...)} would (rounding to nearest-even for the 16-bit floats,
     * truncation toward zero and wrap-around for integers, non-zero is true for BOOL).
     *
     * @param dtype  the element type
     * @param values the elements before conversion
     * @param shape  the dimensions (none: 1-D of {@code values.length})
     * @return a new tensor, owned by the caller
     */
    public static Tensor fromDoubles(DType dtype, double[] values, long... shape) {
        Tensor t = empty(dtype, shapeOr(shape, values.length));
        TensorElements.put(t.host, dtype, values);
        return t;
    }

    // ------------------------------------------------------------------ properties

    /** {@return the element type} */
    public DType dtype() {
        return dtype;
    }

    /** {@return a copy of the shape} */
    public long[] shape() {
        return shape.clone();
    }

    /** {@return the number of dimensions} */
    public int dim() {
        return shape.length;
    }

    /**
     * Size of dimension {@code d}.
     *
     * @param d the dimension, in {@code [0, dim())}
     * @return its size
     */
    public long size(int d) {
        return shape[d];
    }

    /** {@return the number of elements} */
    public long numel() {
        return numel;
    }

    /** {@return the size in bytes} */
    public long nbytes() {
        return numel * dtype.byteSize();
    }

    /** {@return where the elements live (the CPU or an accelerator)} */
    public Device device() {
        return device == null ? Device.CPU : device.device();
    }

    /** {@return true for tensors in host memory} */
    public boolean isCpu() {
        return device == null;
    }

    /**
     * The backing buffer of a CPU tensor: readable bytes {@code [0, nbytes())}, not retained, sharing
     * this tensor's reference count. Transports write it to a channel with {@code retainedSlice()}.
     *
     * @return the buffer
     * @throws IllegalStateException for a tensor on an accelerator
     */
    public ByteBuf buffer() {
        if (host == null) {
            throw new IllegalStateException("tensor on " + device() + " has no host buffer");
        }
        return host;
    }

    /**
     * The device memory of an accelerator tensor.
     *
     * @return the device memory
     */
    public DeviceMemory deviceMemory() {
        if (device == null) {
            throw new IllegalStateException("CPU tensor has no device memory");
        }
        return device;
    }

    /** {@return the off-heap address of the first element (host or device)} */
    public long address() {
        return host != null ? host.memoryAddress() : device.address();
    }

    // ------------------------------------------------------------------ views

    /**
     * A view of rows {@code [start, end)} along dimension 0, without copy, sharing this tensor's
     * storage and reference count.
     *
     * @param start the first row
     * @param end   the row after the last
     * @return the view
     */
    public Tensor slice(long start, long end) {
        return TensorViews.slice(this, start, end);
    }

    /**
     * Splits dimension 0 into at most {@code n} views as {@code torch.chunk} does: each of
     * {@code ceil(size / n)} rows, the last one shorter, fewer than {@code n} when there are not
     * enough rows. An empty tensor gives one empty view.
     *
     * @param n the most views
     * @return the views, in order
     */
    public List<Tensor> chunk(int n) {
        return TensorViews.chunk(this, n);
    }

    /**
     * A 1-D view of {@code count} elements from flat element {@code offset}.
     *
     * @param offset the first flat element
     * @param count  the number of elements
     * @return the view
     */
    public Tensor narrow(long offset, long count) {
        if (offset < 0 || count < 0 || offset + count > numel) {
            throw new IndexOutOfBoundsException("elements [" + offset + ", " + (offset + count) + ") of " + numel);
        }
        return view(offset, count, new long[] {count});
    }

    /**
     * The same elements seen with another shape of the same number of elements.
     *
     * @param newShape the new dimensions
     * @return a view with that shape
     */
    public Tensor reshape(long... newShape) {
        if (numelOf(newShape) != numel) {
            throw new IllegalArgumentException("cannot reshape " + Arrays.toString(shape) + " to " + Arrays.toString(newShape));
        }
        return view(0, numel, newShape);
    }

    /** {@return a 1-D view of all elements} */
    public Tensor flatten() {
        return reshape(numel);
    }

    /**
     * Splits the flat elements into {@code n} contiguous chunks as evenly as possible (the first
     * {@code numel % n} chunks one element longer), as {@link Chunk}s with their offsets.
     *
     * @param n the number of chunks
     * @return the chunks, in order
     */
    public List<Chunk> chunks(int n) {
        return TensorViews.chunks(this, n);
    }

    /** A view of {@code count} elements from {@code elementOffset} with {@code newShape} (checked by the caller). */
    Tensor view(long elementOffset, long count, long[] newShape) {
        ensureAccessible();
        long bo = elementOffset * dtype.byteSize();
        long bl = count * dtype.byteSize();
        if (host != null) {
            return new Tensor(dtype, newShape, host.slice((int) bo, (int) bl), null);
        }
        return new Tensor(dtype, newShape, null, device.slice(bo, bl));
    }

    // ------------------------------------------------------------------ element access (slow path, for tests and tools)

    /**
     * Element {@code i} (flat index) converted to double.
     *
     * @param i the flat index
     * @return the element
     */
    public double getDouble(long i) {
        return TensorElements.get(host, dtype, byteIndex(i));
    }

    /**
     * Element {@code i} as a long (exact for integer dtypes).
     *
     * @param i the flat index
     * @return the element
     */
    public long getLong(long i) {
        int b = byteIndex(i);
        switch (dtype) {
            case INT32: return host.getIntLE(b);
            case INT64: return host.getLongLE(b);
            default: return (long) getDouble(i);
        }
    }

    /**
     * Sets element {@code i} from a double, converting as {@link #fromDoubles(DType, double[], long...)}.
     *
     * @param i the flat index
     * @param v the value
     */
    public void setDouble(long i, double v) {
        TensorElements.set(host, dtype, byteIndex(i), v);
    }

    /**
     * Sets element {@code i} from a long (exact for integer dtypes).
     *
     * @param i the flat index
     * @param v the value
     */
    public void setLong(long i, long v) {
        int b = byteIndex(i);
        switch (dtype) {
            case INT32: host.setIntLE(b, (int) v); break;
            case INT64: host.setLongLE(b, v); break;
            default: setDouble(i, v);
        }
    }

    /**
     * Sets every element to {@code v}.
     *
     * @param v the value, converted as {@link #setDouble}
     * @return this tensor
     * @throws IllegalArgumentException when the dtype cannot hold {@code v} (300 for int8, 1e6 for
     *         float16, NaN for an integer dtype), as PyTorch's {@code fill_} refuses it; nothing is written
     */
    public Tensor fill(double v) {
        TensorElements.requireFits("fill", dtype, v);
        for (long i = 0; i < numel; i++) {
            setDouble(i, v);
        }
        return this;
    }

    private int byteIndex(long i) {
        if (host == null) {
            throw new IllegalStateException("element access on a " + device() + " tensor; copy it to the host first");
        }
        if (i < 0 || i >= numel) {
            throw new IndexOutOfBoundsException("element " + i + " of " + numel);
        }
        return (int) (i * dtype.byteSize());
    }

    /** {@return a copy of the elements as floats (any dtype, converted)} */
    public float[] toFloatArray() {
        return TensorElements.floats(this);
    }

    /** {@return a copy of the elements as doubles (any dtype, converted)} */
    public double[] toDoubleArray() {
        return TensorElements.doubles(this);
    }

    /** {@return a copy of the elements of an INT32 tensor} */
    public int[] toIntArray() {
        return TensorElements.ints(this);
    }

    /** {@return a copy of the elements of an INT64 tensor} */
    public long[] toLongArray() {
        return TensorElements.longs(this);
    }

    /** {@return a copy of the raw bytes of the elements (any dtype, native order)} */
    public byte[] toByteArray() {
        byte[] out = new byte[Math.toIntExact(nbytes())];
        buffer().getBytes(0, out);
        return out;
    }

    /** {@return a copy of the elements of a BOOL tensor} */
    public boolean[] toBooleanArray() {
        return TensorElements.booleans(this);
    }

    // ------------------------------------------------------------------ copies and comparisons

    /**
     * Copies {@code src}'s bytes into this tensor; both on the CPU with equal dtype and numel.
     *
     * @param src the tensor copied from
     * @return this tensor
     */
    public Tensor copyFrom(Tensor src) {
        if (src.dtype != dtype || src.numel != numel) {
            throw new IllegalArgumentException("copyFrom: " + src + " into " + this);
        }
        host.setBytes(0, src.buffer(), 0, (int) nbytes());
        return this;
    }

    /** {@return a new CPU tensor with a copy of this tensor's elements, owned by the caller} */
    public Tensor copy() {
        return empty(dtype, shape).copyFrom(this);
    }

    /**
     * True when {@code other} has the same dtype, shape and bytes (so NaNs with equal bits compare
     * equal, and 0.0 differs from -0.0).
     *
     * @param other the tensor compared with
     * @return whether dtype, shape and bytes are equal
     */
    public boolean contentEquals(Tensor other) {
        // one bulk comparison of the two regions: ByteBufUtil.equals reads 8 bytes per call, and under a
        // leak detector at PARANOID each read of a tracked buffer records a stack trace (tens of seconds for 12 MiB)
        return other != null && other.dtype == dtype && Arrays.equals(other.shape, shape)
                && host.nioBuffer(0, (int) nbytes()).equals(other.buffer().nioBuffer(0, (int) nbytes()));
    }

    /**
     * True when shapes and dtypes match and every element satisfies
     * {@code |a - b| <= atol + rtol * |b|} (NaN matches NaN), as {@code torch.allclose(equal_nan=True)}.
     *
     * @param other the tensor compared with
     * @param rtol  the relative tolerance
     * @param atol  the absolute tolerance
     * @return whether every element is within the tolerance
     */
    public boolean allClose(Tensor other, double rtol, double atol) {
        return TensorElements.allClose(this, other, rtol, atol);
    }

    // ------------------------------------------------------------------ reference counting

    private ReferenceCounted storage() {
        return host != null ? host : device;
    }

    private void ensureAccessible() {
        if (storage().refCnt() == 0) {
            throw new IllegalReferenceCountException(0);
        }
    }

    @Override
    public int refCnt() {
        return storage().refCnt();
    }

    @Override
    public Tensor retain() {
        storage().retain();
        return this;
    }

    @Override
    public Tensor retain(int increment) {
        storage().retain(increment);
        return this;
    }

    @Override
    public Tensor touch() {
        storage().touch();
        return this;
    }

    @Override
    public Tensor touch(Object hint) {
        storage().touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return storage().release();
    }

    @Override
    public boolean release(int decrement) {
        return storage().release(decrement);
    }

    // ------------------------------------------------------------------ helpers

    static long numelOf(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    private static long[] shapeOr(long[] shape, int length) {
        if (shape == null || shape.length == 0) {
            return new long[] {length};
        }
        if (numelOf(shape) != length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " does not hold " + length + " values");
        }
        return shape;
    }

    @Override
    public String toString() {
        return "Tensor[" + dtype + Arrays.toString(shape) + (device == null ? "" : " " + device()) + "]";
    }
}
