package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Tensors over memory the caller already has: NIO buffers, native addresses (Apache Arrow buffers,
 * ND4J and DJL data buffers, memory from JNI or {@code java.lang.foreign}), and raw bytes.
 *
 * <h2>Zero-copy wrapping</h2>
 * The {@code wrap} factories share the caller's memory: a collective on the tensor reads and writes
 * that memory, so the result of an in-place all-reduce is seen through the caller's own buffer.
 * <ul>
 *   <li>The memory must be off-heap: a heap buffer is rejected (its array can move, and the
 *   library's fast paths need an address); {@link #copyOf} copies any buffer instead.</li>
 *   <li>Elements are little-endian, as in every tensor. A buffer whose {@link ByteBuffer#order()} is
 *   big-endian is rejected for dtypes wider than one byte rather than read wrongly: if its bytes
 *   are little-endian, set {@code order(ByteOrder.LITTLE_ENDIAN)} first (a direct
 *   {@code ByteBuffer} starts big-endian whatever its contents); if they are big-endian,
 *   {@link #copyOf} converts them.</li>
 *   <li>The tensor covers the buffer's remaining elements, {@code [position, limit)}, as a 1-D
 *   tensor unless a shape is given, which must hold exactly that many elements. Moving the
 *   buffer's position or limit afterwards does not change the tensor.</li>
 *   <li>A read-only buffer gives a read-only tensor ({@code tensor.buffer().isReadOnly()}): it can be
 *   the input of a collective (a broadcast's root, an all-gather's input), and collectives that
 *   write into a tensor reject it before they start; its own writes throw
 *   {@link java.nio.ReadOnlyBufferException}.</li>
 *   <li>The tensor has a reference count of 1, like any new tensor, and keeps the wrapped buffer
 *   reachable until it drops to 0. Releasing it never frees the caller's memory; the variants with
 *   an {@code onRelease} callback run it exactly once when the count drops to 0 (the signal that
 *   the library, including any collective still using the tensor, is done with the memory).</li>
 * </ul>
 * Release callbacks run on the thread that drops the last reference, which may be a transport
 * event loop: they should be short and must not block. An exception they throw is logged, not
 * propagated.
 *
 * <p>Mapping {@code address}es to buffers uses {@code java.lang.foreign} on JDK 22+ (start the JVM
 * with {@code --enable-native-access=ALL-UNNAMED} to avoid its one-time warning) and
 * {@code sun.misc.Unsafe} on JDK 17 to 21; see {@link #wrapAddress}. A
 * {@code java.lang.foreign.MemorySegment} is wrapped through {@code segment.asByteBuffer()}, with
 * the arena's {@code close} as the release callback.
 */
public final class Tensors {

    private Tensors() {
    }

    /**
     * A tensor over the remaining bytes of a direct buffer, without copy.
     *
     * @param buffer a direct {@link ByteBuffer} (any dtype), or a direct typed buffer whose element
     *               type matches {@code dtype}: {@link FloatBuffer} for FLOAT32, {@link DoubleBuffer}
     *               for FLOAT64, {@link IntBuffer} for INT32, {@link LongBuffer} for INT64,
     *               {@link ShortBuffer} for FLOAT16 or BFLOAT16 (bit patterns)
     * @param dtype  the elements' type
     * @param shape  the shape (default 1-D), holding exactly the buffer's remaining elements
     * @return a tensor over the buffer's memory, with a reference count of 1
     * @throws IllegalArgumentException for a heap buffer, a big-endian buffer of a dtype wider than
     *                                  one byte, a byte count that is not a multiple of the dtype's
     *                                  size, a mismatched element type or shape, over 2 GiB
     * @throws UnsupportedOperationException when a typed or read-only buffer must be mapped by
     *                                  address and this JVM allows neither way to ({@link #wrapAddress})
     */
    public static Tensor wrap(Buffer buffer, DType dtype, long... shape) {
        return wrap(buffer, dtype, null, shape);
    }

    /**
     * {@link #wrap(Buffer, DType, long...)} with a callback run exactly once when the tensor's
     * reference count drops to 0 (for instance to close the arena or return the buffer to its pool).
     * When this method throws, the callback is not run and the caller still owns the memory.
     *
     * @param buffer    as {@link #wrap(Buffer, DType, long...)}
     * @param dtype     the elements' type
     * @param onRelease run once when the tensor is released for the last time (null: nothing); it may
     *                  run on a network thread, so it must not block
     * @param shape     the shape (default 1-D), holding exactly the buffer's remaining elements
     * @return a tensor over the buffer's memory, with a reference count of 1
     * @throws IllegalArgumentException as {@link #wrap(Buffer, DType, long...)}
     */
    public static Tensor wrap(Buffer buffer, DType dtype, Runnable onRelease, long... shape) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(dtype, "dtype");
        String what = buffer.getClass().getSimpleName();
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("Tensors.wrap: the " + what + " is on the heap; a tensor wraps off-heap "
                    + "memory only: allocate it with ByteBuffer.allocateDirect, or copy it with Tensors.copyOf");
        }
        int elementSize = NativeBuffers.elementSize(buffer);
        if (!(buffer instanceof ByteBuffer) && !matches(buffer, dtype)) {
            throw new IllegalArgumentException("Tensors.wrap: a " + what + " cannot hold " + dtype + " elements");
        }
        ByteOrder order = order(buffer);
        if (order != ByteOrder.LITTLE_ENDIAN && dtype.byteSize() > 1) {
            throw new IllegalArgumentException("Tensors.wrap: the " + what + " is " + order + "; tensors hold "
                    + "little-endian " + dtype + " elements. If its bytes are little-endian, wrap "
                    + "buffer.order(ByteOrder.LITTLE_ENDIAN) (views made from such a ByteBuffer); if they are "
                    + "big-endian, Tensors.copyOf converts them");
        }
        long bytes = (long) buffer.remaining() * elementSize;
        long[] s = shapeFor("Tensors.wrap", bytes, dtype, shape);
        String owner = "Tensors.wrap of a " + what + " (" + bytes + " bytes)";
        ByteBuf buf;
        if (buffer instanceof ByteBuffer && !buffer.isReadOnly()) {
            buf = ForeignMemory.of(((ByteBuffer) buffer).slice(), onRelease, buffer, owner);
        } else {
            // a typed view, or read-only: see its memory as writable bytes, then restrict
            ByteBuffer view = NativeBuffers.view(NativeBuffers.address(buffer), (int) bytes);
            buf = ForeignMemory.of(view, onRelease, buffer, owner);
            if (buffer.isReadOnly()) {
                buf = buf.asReadOnly();
            }
        }
        return Tensor.wrap(buf, dtype, s);
    }

    /**
     * A FLOAT32 tensor over a direct, little-endian {@link FloatBuffer}; see {@link #wrap(Buffer, DType, long...)}.
     *
     * @param buffer the buffer, whose remaining elements the tensor holds
     * @param shape  the shape (default 1-D)
     * @return a tensor over the buffer's memory, with a reference count of 1
     */
    public static Tensor wrap(FloatBuffer buffer, long... shape) {
        return wrap(buffer, DType.FLOAT32, shape);
    }

    /**
     * A FLOAT64 tensor over a direct, little-endian {@link DoubleBuffer}; see {@link #wrap(Buffer, DType, long...)}.
     *
     * @param buffer the buffer, whose remaining elements the tensor holds
     * @param shape  the shape (default 1-D)
     * @return a tensor over the buffer's memory, with a reference count of 1
     */
    public static Tensor wrap(DoubleBuffer buffer, long... shape) {
        return wrap(buffer, DType.FLOAT64, shape);
    }

    /**
     * An INT32 tensor over a direct, little-endian {@link IntBuffer}; see {@link #wrap(Buffer, DType, long...)}.
     *
     * @param buffer the buffer, whose remaining elements the tensor holds
     * @param shape  the shape (default 1-D)
     * @return a tensor over the buffer's memory, with a reference count of 1
     */
    public static Tensor wrap(IntBuffer buffer, long... shape) {
        return wrap(buffer, DType.INT32, shape);
    }

    /**
     * An INT64 tensor over a direct, little-endian {@link LongBuffer}; see {@link #wrap(Buffer, DType, long...)}.
     *
     * @param buffer the buffer, whose remaining elements the tensor holds
     * @param shape  the shape (default 1-D)
     * @return a tensor over the buffer's memory, with a reference count of 1
     */
    public static Tensor wrap(LongBuffer buffer, long... shape) {
        return wrap(buffer, DType.INT64, shape);
    }

    /**
     * A tensor over {@code nbytes} of native memory at {@code address} (for instance an Apache Arrow
     * {@code ArrowBuf}'s {@code memoryAddress()} and {@code capacity()}, or memory from JNI), without
     * copy. The memory must stay valid, and hold little-endian elements, until {@code onRelease}
     * runs: exactly once, when the tensor's reference count drops to 0. {@code onRelease} may be
     * null when the memory's lifetime is managed elsewhere (then the caller must not free it while
     * the tensor, or a collective on it, may still use it).
     *
     * <p>Needs JDK 22+ ({@code java.lang.foreign}; {@code --enable-native-access=ALL-UNNAMED} avoids
     * its warning) or {@code sun.misc.Unsafe} (module {@code jdk.unsupported}, present in every
     * JDK 17-21 runtime unless removed by {@code jlink}).
     *
     * @param address   the memory's address
     * @param nbytes    its length in bytes
     * @param dtype     the elements' type
     * @param onRelease run once when the tensor is released for the last time (null: nothing); it may
     *                  run on a network thread, so it must not block
     * @param shape     the shape (default 1-D), holding exactly {@code nbytes / dtype.byteSize()} elements
     * @return a tensor over the memory, with a reference count of 1
     * @throws IllegalArgumentException for a null address with a non-zero length, a negative length
     *                                  or one over 2 GiB, one that is not a multiple of the dtype's
     *                                  size, or a shape of another size
     * @throws UnsupportedOperationException when this JVM allows neither way to map an address
     */
    public static Tensor wrapAddress(long address, long nbytes, DType dtype, Runnable onRelease, long... shape) {
        Objects.requireNonNull(dtype, "dtype");
        if (nbytes < 0 || (address == 0 && nbytes > 0)) {
            throw new IllegalArgumentException("Tensors.wrapAddress: invalid memory of " + nbytes + " bytes at address "
                    + address);
        }
        long[] s = shapeFor("Tensors.wrapAddress", nbytes, dtype, shape);
        ByteBuffer view = NativeBuffers.view(address, (int) nbytes);
        return Tensor.wrap(ForeignMemory.of(view, onRelease, null,
                "Tensors.wrapAddress of " + nbytes + " bytes at 0x" + Long.toHexString(address)), dtype, s);
    }

    /**
     * A new tensor of any dtype holding a copy of {@code bytes}, the elements' little-endian bytes
     * ({@link Tensor#toByteArray()}'s format); the default shape is 1-D.
     *
     * @param dtype the elements' type
     * @param bytes the elements' little-endian bytes
     * @param shape the shape (default 1-D)
     * @return a new tensor, with a reference count of 1
     * @throws IllegalArgumentException when the length is not a multiple of the dtype's size or the
     *                                  shape holds another number of elements
     */
    public static Tensor fromBytes(DType dtype, byte[] bytes, long... shape) {
        long[] s = shapeFor("Tensors.fromBytes", bytes.length, dtype, shape);
        Tensor t = Tensor.empty(dtype, s);
        t.buffer().setBytes(0, bytes);
        return t;
    }

    /**
     * A new tensor holding a copy of a {@link ByteBuffer}'s remaining bytes, read in the buffer's
     * {@link ByteBuffer#order() order}: heap or direct, and a big-endian buffer's elements are
     * converted to the tensor's little-endian order. The buffer's position is not changed.
     *
     * @param buffer the buffer whose remaining bytes are copied
     * @param dtype  the elements' type
     * @param shape  the shape (default 1-D)
     * @return a new tensor, with a reference count of 1
     * @throws IllegalArgumentException as {@link #fromBytes}
     */
    public static Tensor copyOf(ByteBuffer buffer, DType dtype, long... shape) {
        long[] s = shapeFor("Tensors.copyOf", buffer.remaining(), dtype, shape);
        Tensor t = Tensor.empty(dtype, s);
        ByteBuffer src = buffer.duplicate();
        ByteBuf dst = t.buffer();
        int size = dtype.byteSize();
        if (buffer.order() == ByteOrder.LITTLE_ENDIAN || size == 1) {
            dst.setBytes(0, src);
            return t;
        }
        int n = Math.toIntExact(t.numel());
        for (int i = 0; i < n; i++) {
            int at = src.position() + i * size;
            switch (size) {
                case 2: dst.setShortLE(i * 2, src.getShort(at)); break;
                case 4: dst.setIntLE(i * 4, src.getInt(at)); break;
                default: dst.setLongLE(i * 8, src.getLong(at)); break;
            }
        }
        return t;
    }

    // ------------------------------------------------------------------ checks

    private static boolean matches(Buffer b, DType dtype) {
        if (b instanceof FloatBuffer) {
            return dtype == DType.FLOAT32;
        }
        if (b instanceof DoubleBuffer) {
            return dtype == DType.FLOAT64;
        }
        if (b instanceof IntBuffer) {
            return dtype == DType.INT32;
        }
        if (b instanceof LongBuffer) {
            return dtype == DType.INT64;
        }
        if (b instanceof ShortBuffer) {
            return dtype == DType.FLOAT16 || dtype == DType.BFLOAT16;
        }
        return false;
    }

    private static ByteOrder order(Buffer b) {
        if (b instanceof ByteBuffer) {
            return ((ByteBuffer) b).order();
        }
        if (b instanceof FloatBuffer) {
            return ((FloatBuffer) b).order();
        }
        if (b instanceof DoubleBuffer) {
            return ((DoubleBuffer) b).order();
        }
        if (b instanceof IntBuffer) {
            return ((IntBuffer) b).order();
        }
        if (b instanceof LongBuffer) {
            return ((LongBuffer) b).order();
        }
        return ((ShortBuffer) b).order();
    }

    /** The shape for {@code bytes} of {@code dtype}: {@code shape}, checked, or 1-D by default. */
    private static long[] shapeFor(String op, long bytes, DType dtype, long[] shape) {
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(op + ": " + bytes + " bytes is over the 2 GiB limit of one tensor");
        }
        if (bytes % dtype.byteSize() != 0) {
            throw new IllegalArgumentException(op + ": " + bytes + " bytes is not a whole number of " + dtype
                    + " elements (" + dtype.byteSize() + " bytes each)");
        }
        long n = bytes / dtype.byteSize();
        if (shape == null || shape.length == 0) {
            return new long[] {n};
        }
        if (Tensor.numelOf(shape) != n) {
            throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " of " + dtype + " needs "
                    + Tensor.numelOf(shape) * dtype.byteSize() + " bytes, the memory has " + bytes);
        }
        return shape;
    }
}
