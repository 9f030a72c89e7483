package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

/**
 * Element-wise reduction kernels over tensor memory, in place: {@code dst[i] = op(dst[i], src[i])}.
 *
 * <h2>Semantics (PyTorch c10d)</h2>
 * <ul>
 *   <li>SUM on BOOL is logical OR and PRODUCT logical AND; MIN/MAX on BOOL are AND/OR; BAND, BOR,
 *       BXOR on BOOL are the logical operations; BOOL results are always 0 or 1 (any non-zero byte
 *       reads as true);</li>
 *   <li>in the combine step AVG and PREMUL_SUM combine as SUM: their scaling is applied once, by
 *       {@link #preprocess} (PREMUL_SUM's factor, on each rank's input) and {@link #postprocess}
 *       (AVG's division by the world size, on the result);</li>
 *   <li>BAND/BOR/BXOR on integer and bool types only, PREMUL_SUM on floating types only, AVG not
 *       on BOOL: other pairs are rejected by {@link ReduceOp#validate} with an
 *       {@link IllegalArgumentException} naming the op and dtype;</li>
 *   <li>MIN/MAX propagate NaN (if either input is NaN the result is NaN), as
 *       {@code torch.minimum}/{@code torch.maximum}, and order -0.0 below 0.0 as {@link Math#min};</li>
 *   <li>integer arithmetic wraps on overflow; UINT8 is unsigned (MIN/MAX compare unsigned, AVG
 *       divides the unsigned value);</li>
 *   <li>FLOAT16 and BFLOAT16 are computed in float32 and rounded to nearest-even ({@link HalfFloats}).</li>
 * </ul>
 * Elements are little-endian, as {@link Tensor} stores them.
 *
 * <h2>Speed</h2>
 * For buffers with a memory address (direct, off-heap: every CPU {@link Tensor}), every dtype but
 * BOOL is reduced in place by the {@link NativeReduceKernels native kernels} (AVX-512/AVX2 C loops,
 * through JNI) when the build made them and they load. Otherwise, and for BOOL, the Java kernels
 * move blocks of 8 KiB into per-thread scratch arrays with {@code Unsafe.copyMemory}, reduce them
 * with plain array loops that HotSpot's C2 vectorises (SSE/AVX), and copy the result back. Neither
 * allocates per call (each thread's scratch arrays are made once). Heap buffers, or a JVM without {@code sun.misc.Unsafe} memory
 * access (or with {@code -Dio.reactivecollectives.kernels.portable=true}), take a portable path
 * through {@link ByteBuf} accessors with the same results, slower.
 *
 * <p>All methods are thread-safe; concurrent calls on the same destination elements race.
 */
public final class ReduceKernels {

    /**
     * Bytes per block moved into scratch arrays: small enough for L1, large enough to amortise the
     * copies (system property {@code rc.kernels.blockBytes}; 8 KiB measured 5.9 GB/s for FLOAT32 SUM
     * of 64 MiB against 4.9 GB/s with 2 KiB, 5.1 with 16 KiB, 4.3 with 64 KiB on the 2-core build machine).
     */
    static final int BLOCK_BYTES = Math.max(64, Integer.getInteger("rc.kernels.blockBytes", 8192) & ~7);

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private ReduceKernels() {
    }

    /** True when the fast path (direct buffers through {@code sun.misc.Unsafe}) is in use on this JVM. */
    public static boolean fastPathAvailable() {
        return UnsafeMemory.AVAILABLE;
    }

    /**
     * Which kernels reduce off-heap tensors on this JVM, in words: {@code "native (...)"} when the
     * {@link NativeReduceKernels native kernels} are in use, else {@code "java"} and why (for logs
     * and benchmark headers).
     */
    public static String implementation() {
        return NativeReduceKernels.describe();
    }

    /**
     * {@code dst[i] = op(dst[i], src[i])} for {@code count} elements of {@code dtype}: dst elements
     * from byte index {@code dstByteIndex} of {@code dst} (an absolute index, as
     * {@link ByteBuf#getByte(int)}; reader and writer indexes are neither used nor changed), src
     * from {@code srcByteIndex} of {@code src}. Direct buffers take the fast path; heap buffers work
     * through the portable path. {@code dst} and {@code src} may be the same memory (in which case
     * the op is applied to each element with itself); other overlaps give unspecified results.
     *
     * @throws IllegalArgumentException for an invalid (op, dtype) pair or a negative count
     * @throws IndexOutOfBoundsException when a range is outside its buffer's capacity
     * @throws IllegalReferenceCountException when a buffer was released
     */
    public static void reduceInto(ReduceOp op, DType dtype, ByteBuf dst, int dstByteIndex,
                                  ByteBuf src, int srcByteIndex, int count) {
        op.validate("reduce", dtype);
        if (count < 0) {
            throw new IllegalArgumentException("reduce " + op + " on " + dtype + ": negative element count " + count);
        }
        checkRange(dst, dstByteIndex, count, dtype, "destination");
        checkRange(src, srcByteIndex, count, dtype, "source");
        if (count == 0) {
            return;
        }
        if (UnsafeMemory.AVAILABLE && dst.hasMemoryAddress() && src.hasMemoryAddress()) {
            reduceBlocks(op.kind(), dtype, null, dst.memoryAddress() + dstByteIndex,
                    null, src.memoryAddress() + srcByteIndex, count);
        } else {
            reduceBlocks(op.kind(), dtype, dst, dstByteIndex, src, srcByteIndex, count);
        }
    }

    /**
     * {@link #reduceInto(ReduceOp, DType, ByteBuf, int, ByteBuf, int, int)} for a source that may be
     * made of several memory regions (a {@code CompositeByteBuf} of socket reads, as the transport
     * hands out large frames without copying them together): each region is reduced in place where
     * it lies, and an element split between two regions is put together in a scratch of one
     * element. A contiguous source takes the plain path.
     *
     * @throws IllegalArgumentException as {@code reduceInto}
     */
    public static void reduceIntoScattered(ReduceOp op, DType dtype, ByteBuf dst, int dstByteIndex,
                                           ByteBuf src, int srcByteIndex, int count) {
        if (src.hasMemoryAddress() || !src.isDirect() || !UnsafeMemory.AVAILABLE || !dst.hasMemoryAddress()) {
            reduceInto(op, dtype, dst, dstByteIndex, src, srcByteIndex, count);
            return;
        }
        op.validate("reduce", dtype);
        if (count < 0) {
            throw new IllegalArgumentException("reduce " + op + " on " + dtype + ": negative element count " + count);
        }
        checkRange(dst, dstByteIndex, count, dtype, "destination");
        checkRange(src, srcByteIndex, count, dtype, "source");
        if (count == 0) {
            return;
        }
        int es = dtype.byteSize();
        java.nio.ByteBuffer[] parts = src.nioBuffers(srcByteIndex, count * es);
        for (java.nio.ByteBuffer part : parts) {
            if (!part.isDirect()) {
                reduceInto(op, dtype, dst, dstByteIndex, src, srcByteIndex, count);  // heap parts: element-wise path
                return;
            }
        }
        long element = SCRATCH.get().elementAddress();
        long d = dst.memoryAddress() + dstByteIndex;
        int carried = 0;
        for (java.nio.ByteBuffer part : parts) {
            long a = io.netty.util.internal.PlatformDependent.directBufferAddress(part) + part.position();
            int left = part.remaining();
            if (carried > 0) {
                int take = Math.min(es - carried, left);
                UnsafeMemory.copy(a, element + carried, take);
                carried += take;
                a += take;
                left -= take;
                if (carried == es) {
                    reduceBlocks(op.kind(), dtype, null, d, null, element, 1);
                    d += es;
                    carried = 0;
                }
            }
            int whole = left / es;
            if (whole > 0) {
                reduceBlocks(op.kind(), dtype, null, d, null, a, whole);
                d += (long) whole * es;
                a += (long) whole * es;
                left -= whole * es;
            }
            if (left > 0) {
                UnsafeMemory.copy(a, element + carried, left);
                carried += left;
            }
        }
    }

    /**
     * Whole-tensor form: {@code dst = op(dst, src)} element-wise; both CPU tensors with the same
     * dtype and number of elements (shapes may differ).
     *
     * @throws IllegalArgumentException for an invalid (op, dtype) pair, or when dtypes or element counts differ
     */
    public static void reduceInto(ReduceOp op, Tensor dst, Tensor src) {
        if (dst.dtype() != src.dtype() || dst.numel() != src.numel()) {
            throw new IllegalArgumentException("reduce " + op + ": destination " + dst + " and source " + src
                    + " differ in dtype or number of elements");
        }
        reduceInto(op, dst.dtype(), dst.buffer(), 0, src.buffer(), 0, Math.toIntExact(dst.numel()));
    }

    /**
     * Applied once to each rank's local input before a collective reduces: PREMUL_SUM multiplies
     * each element by its factor (in float32 for FLOAT16, BFLOAT16 and FLOAT32, rounding back to
     * the dtype; in float64 for FLOAT64); other ops leave the tensor as it is.
     *
     * @throws IllegalArgumentException for an invalid (op, dtype) pair
     */
    public static void preprocess(ReduceOp op, Tensor t) {
        op.validate("reduce", t.dtype());
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM || t.numel() == 0) {
            return;
        }
        scale(t, op.factor(), false);
    }

    /**
     * Applied once to the final reduced result: AVG divides each element by {@code worldSize}
     * (integers truncate toward zero, UINT8 as unsigned; floats divide in float32, or float64 for
     * FLOAT64); other ops leave the tensor as it is.
     *
     * @throws IllegalArgumentException for an invalid (op, dtype) pair or a world size below 1
     */
    public static void postprocess(ReduceOp op, Tensor t, int worldSize) {
        op.validate("reduce", t.dtype());
        if (worldSize <= 0) {
            throw new IllegalArgumentException("reduce " + op + " on " + t.dtype() + ": world size must be > 0, got " + worldSize);
        }
        if (op.kind() != ReduceOp.Kind.AVG || worldSize == 1 || t.numel() == 0) {
            return;
        }
        scale(t, worldSize, true);
    }

    private static void scale(Tensor t, double x, boolean divide) {
        ByteBuf b = t.buffer();
        int n = Math.toIntExact(t.numel());
        checkRange(b, 0, n, t.dtype(), "tensor");
        Scratch sc = SCRATCH.get();
        if (UnsafeMemory.AVAILABLE && b.hasMemoryAddress()) {
            scaleBlocks(t.dtype(), null, b.memoryAddress(), n, x, divide, sc);
        } else {
            scaleBlocks(t.dtype(), b, 0, n, x, divide, sc);
        }
    }

    private static void checkRange(ByteBuf buf, int byteIndex, int count, DType dtype, String what) {
        if (buf.refCnt() == 0) {
            throw new IllegalReferenceCountException(0);
        }
        long end = (long) byteIndex + (long) count * dtype.byteSize();
        if (byteIndex < 0 || end > buf.capacity()) {
            throw new IndexOutOfBoundsException("reduce: " + what + " bytes [" + byteIndex + ", " + end
                    + ") outside a buffer of capacity " + buf.capacity());
        }
    }

    // ------------------------------------------------------------------ block drivers

    /**
     * With {@code d == null} (and {@code s == null}) the positions are memory addresses, reduced by
     * the native kernels where they take the pair; otherwise, or for the pairs they leave, by
     * {@link #javaReduceBlocks} (the only path that needs this thread's scratch arrays).
     */
    private static void reduceBlocks(ReduceOp.Kind k, DType dtype, ByteBuf d, long dp, ByteBuf s, long sp, int n) {
        if (d == null && s == null && NativeReduceKernels.reduce(k, dtype, dp, sp, n)) {
            return;
        }
        javaReduceBlocks(k, dtype, d, dp, s, sp, n, SCRATCH.get());
    }

    /**
     * The Java kernels alone, over memory addresses: {@code dst[i] = op(dst[i], src[i])} for
     * {@code n} elements (tests compare the native kernels with these).
     */
    static void javaReduceInto(ReduceOp.Kind k, DType dtype, long dst, long src, int n) {
        javaReduceBlocks(k, dtype, null, dst, null, src, n, SCRATCH.get());
    }

    /**
     * Moves blocks in, reduces, moves them out. With {@code d == null} (and {@code s == null}) the
     * positions are memory addresses; otherwise byte indexes into the buffers.
     */
    private static void javaReduceBlocks(ReduceOp.Kind k, DType dtype, ByteBuf d, long dp, ByteBuf s, long sp,
                                         int n, Scratch sc) {
        int size = dtype.byteSize();
        int blk = BLOCK_BYTES / size;
        for (int off = 0; off < n; off += blk) {
            int m = Math.min(blk, n - off);
            long dpos = dp + (long) off * size;
            long spos = sp + (long) off * size;
            switch (dtype) {
                case BOOL: {
                    byte[] a = sc.bytesA(), b = sc.bytesB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.bools(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case UINT8:
                case INT8: {
                    byte[] a = sc.bytesA(), b = sc.bytesB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.bytes(k, dtype == DType.UINT8, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT32: {
                    int[] a = sc.intsA(), b = sc.intsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.ints(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT64: {
                    long[] a = sc.longsA(), b = sc.longsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.longs(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT16:
                case BFLOAT16: {
                    short[] a = sc.shortsA(), b = sc.shortsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    if (dtype == DType.BFLOAT16) {
                        ArrayKernels.bfloat16s(k, a, b, m);
                    } else {
                        ArrayKernels.float16s(k, a, b, m);
                    }
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT32: {
                    float[] a = sc.floatsA(), b = sc.floatsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.floats(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT64: {
                    double[] a = sc.doublesA(), b = sc.doublesB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    ArrayKernels.doubles(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                default:
                    throw new AssertionError(dtype);
            }
        }
    }

    private static void scaleBlocks(DType dtype, ByteBuf d, long dp, int n, double x, boolean divide, Scratch sc) {
        int size = dtype.byteSize();
        int blk = BLOCK_BYTES / size;
        for (int off = 0; off < n; off += blk) {
            int m = Math.min(blk, n - off);
            long dpos = dp + (long) off * size;
            switch (dtype) {
                case UINT8:
                case INT8: {
                    byte[] a = sc.bytesA();
                    Transfer.in(d, dpos, a, m);
                    ArrayKernels.divideBytes(a, m, (int) x, dtype == DType.UINT8);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT32: {
                    int[] a = sc.intsA();
                    Transfer.in(d, dpos, a, m);
                    ArrayKernels.divideInts(a, m, (int) x);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT64: {
                    long[] a = sc.longsA();
                    Transfer.in(d, dpos, a, m);
                    ArrayKernels.divideLongs(a, m, (long) x);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT16:
                case BFLOAT16: {
                    short[] a = sc.shortsA();
                    Transfer.in(d, dpos, a, m);
                    ArrayKernels.scaleHalves(a, m, (float) x, divide, dtype == DType.BFLOAT16);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT32: {
                    float[] a = sc.floatsA();
                    Transfer.in(d, dpos, a, m);
                    if (divide) {
                        ArrayKernels.divideFloats(a, m, (float) x);
                    } else {
                        ArrayKernels.multiplyFloats(a, m, (float) x);
                    }
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT64: {
                    double[] a = sc.doublesA();
                    Transfer.in(d, dpos, a, m);
                    if (divide) {
                        ArrayKernels.divideDoubles(a, m, x);
                    } else {
                        ArrayKernels.multiplyDoubles(a, m, x);
                    }
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                default:
                    // BOOL: AVG and PREMUL_SUM are rejected by validate before we get here
                    throw new AssertionError(dtype);
            }
        }
    }

    // ------------------------------------------------------------------ per-thread scratch

    /** One thread's block buffers, made on first use of each element type. */
    private static final class Scratch {
        private java.nio.ByteBuffer element;   // one element split between two source regions (JDK-freed)
        private long elementAddress;
        private byte[] bytesA;
        private byte[] bytesB;
        private short[] shortsA;
        private short[] shortsB;
        private int[] intsA;
        private int[] intsB;
        private long[] longsA;
        private long[] longsB;
        private float[] floatsA;
        private float[] floatsB;
        private double[] doublesA;
        private double[] doublesB;

        long elementAddress() {
            if (element == null) {
                element = java.nio.ByteBuffer.allocateDirect(8);
                elementAddress = io.netty.util.internal.PlatformDependent.directBufferAddress(element);
            }
            return elementAddress;
        }

        byte[] bytesA() {
            return bytesA != null ? bytesA : (bytesA = new byte[BLOCK_BYTES]);
        }

        byte[] bytesB() {
            return bytesB != null ? bytesB : (bytesB = new byte[BLOCK_BYTES]);
        }

        short[] shortsA() {
            return shortsA != null ? shortsA : (shortsA = new short[BLOCK_BYTES / 2]);
        }

        short[] shortsB() {
            return shortsB != null ? shortsB : (shortsB = new short[BLOCK_BYTES / 2]);
        }

        int[] intsA() {
            return intsA != null ? intsA : (intsA = new int[BLOCK_BYTES / 4]);
        }

        int[] intsB() {
            return intsB != null ? intsB : (intsB = new int[BLOCK_BYTES / 4]);
        }

        long[] longsA() {
            return longsA != null ? longsA : (longsA = new long[BLOCK_BYTES / 8]);
        }

        long[] longsB() {
            return longsB != null ? longsB : (longsB = new long[BLOCK_BYTES / 8]);
        }

        float[] floatsA() {
            return floatsA != null ? floatsA : (floatsA = new float[BLOCK_BYTES / 4]);
        }

        float[] floatsB() {
            return floatsB != null ? floatsB : (floatsB = new float[BLOCK_BYTES / 4]);
        }

        double[] doublesA() {
            return doublesA != null ? doublesA : (doublesA = new double[BLOCK_BYTES / 8]);
        }

        double[] doublesB() {
            return doublesB != null ? doublesB : (doublesB = new double[BLOCK_BYTES / 8]);
        }
    }

    // ------------------------------------------------------------------ moving blocks

    /**
     * Copies {@code m} elements between memory and an array: through {@code Unsafe.copyMemory}
     * when {@code buf} is null ({@code pos} is an address), else through the buffer's
     * little-endian accessors ({@code pos} is a byte index).
     */
    private static final class Transfer {
        private Transfer() {
        }

        static void in(ByteBuf buf, long pos, byte[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.BYTE_BASE, m);
            } else {
                buf.getBytes((int) pos, a, 0, m);
            }
        }

        static void out(byte[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.BYTE_BASE, pos, m);
            } else {
                ByteCopies.copy(a, 0, buf, (int) pos, m);
            }
        }

        static void in(ByteBuf buf, long pos, short[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.SHORT_BASE, 2L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    a[i] = buf.getShortLE(p + 2 * i);
                }
            }
        }

        static void out(short[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.SHORT_BASE, pos, 2L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    buf.setShortLE(p + 2 * i, a[i]);
                }
            }
        }

        static void in(ByteBuf buf, long pos, int[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.INT_BASE, 4L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    a[i] = buf.getIntLE(p + 4 * i);
                }
            }
        }

        static void out(int[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.INT_BASE, pos, 4L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    buf.setIntLE(p + 4 * i, a[i]);
                }
            }
        }

        static void in(ByteBuf buf, long pos, long[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.LONG_BASE, 8L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    a[i] = buf.getLongLE(p + 8 * i);
                }
            }
        }

        static void out(long[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.LONG_BASE, pos, 8L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    buf.setLongLE(p + 8 * i, a[i]);
                }
            }
        }

        static void in(ByteBuf buf, long pos, float[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.FLOAT_BASE, 4L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    a[i] = Float.intBitsToFloat(buf.getIntLE(p + 4 * i));
                }
            }
        }

        static void out(float[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.FLOAT_BASE, pos, 4L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    buf.setIntLE(p + 4 * i, Float.floatToRawIntBits(a[i]));
                }
            }
        }

        static void in(ByteBuf buf, long pos, double[] a, int m) {
            if (buf == null) {
                UnsafeMemory.toArray(pos, a, UnsafeMemory.DOUBLE_BASE, 8L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    a[i] = Double.longBitsToDouble(buf.getLongLE(p + 8 * i));
                }
            }
        }

        static void out(double[] a, ByteBuf buf, long pos, int m) {
            if (buf == null) {
                UnsafeMemory.fromArray(a, UnsafeMemory.DOUBLE_BASE, pos, 8L * m);
            } else {
                int p = (int) pos;
                for (int i = 0; i < m; i++) {
                    buf.setLongLE(p + 8 * i, Double.doubleToRawLongBits(a[i]));
                }
            }
        }
    }

    // ------------------------------------------------------------------ array kernels

    /**
     * The arithmetic, on blocks in Java arrays: {@code a[i] = op(a[i], b[i])} for {@code i < m}.
     * One small loop per (op, type), so that C2 compiles (and vectorises) each on its own.
     */
    static final class ArrayKernels {
        private ArrayKernels() {
        }

        static void bools(ReduceOp.Kind k, byte[] a, byte[] b, int m) {
            switch (k) {
                case SUM:
                case MAX:
                case BOR:
                    for (int i = 0; i < m; i++) {
                        a[i] = (byte) ((a[i] | b[i]) != 0 ? 1 : 0);
                    }
                    break;
                case PRODUCT:
                case MIN:
                case BAND:
                    for (int i = 0; i < m; i++) {
                        a[i] = (byte) (a[i] != 0 & b[i] != 0 ? 1 : 0);
                    }
                    break;
                case BXOR:
                    for (int i = 0; i < m; i++) {
                        a[i] = (byte) (a[i] != 0 ^ b[i] != 0 ? 1 : 0);
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void bytes(ReduceOp.Kind k, boolean unsigned, byte[] a, byte[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                    for (int i = 0; i < m; i++) {
                        a[i] = (byte) (a[i] + b[i]);
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] = (byte) (a[i] * b[i]);
                    }
                    break;
                case MIN:
                    if (unsigned) {
                        // branch-free: d = u - v; d >> 31 is all ones exactly when u < v
                        for (int i = 0; i < m; i++) {
                            int u = a[i] & 0xff;
                            int d = u - (b[i] & 0xff);
                            a[i] = (byte) (u - (d & ~(d >> 31)));
                        }
                    } else {
                        for (int i = 0; i < m; i++) {
                            int u = a[i];
                            int d = u - b[i];
                            a[i] = (byte) (u - (d & ~(d >> 31)));
                        }
                    }
                    break;
                case MAX:
                    if (unsigned) {
                        for (int i = 0; i < m; i++) {
                            int u = a[i] & 0xff;
                            int d = u - (b[i] & 0xff);
                            a[i] = (byte) (u - (d & (d >> 31)));
                        }
                    } else {
                        for (int i = 0; i < m; i++) {
                            int u = a[i];
                            int d = u - b[i];
                            a[i] = (byte) (u - (d & (d >> 31)));
                        }
                    }
                    break;
                case BAND:
                    for (int i = 0; i < m; i++) {
                        a[i] &= b[i];
                    }
                    break;
                case BOR:
                    for (int i = 0; i < m; i++) {
                        a[i] |= b[i];
                    }
                    break;
                case BXOR:
                    for (int i = 0; i < m; i++) {
                        a[i] ^= b[i];
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void ints(ReduceOp.Kind k, int[] a, int[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                    for (int i = 0; i < m; i++) {
                        a[i] += b[i];
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] *= b[i];
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.min(a[i], b[i]);
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.max(a[i], b[i]);
                    }
                    break;
                case BAND:
                    for (int i = 0; i < m; i++) {
                        a[i] &= b[i];
                    }
                    break;
                case BOR:
                    for (int i = 0; i < m; i++) {
                        a[i] |= b[i];
                    }
                    break;
                case BXOR:
                    for (int i = 0; i < m; i++) {
                        a[i] ^= b[i];
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void longs(ReduceOp.Kind k, long[] a, long[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                    for (int i = 0; i < m; i++) {
                        a[i] += b[i];
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] *= b[i];
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.min(a[i], b[i]);
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.max(a[i], b[i]);
                    }
                    break;
                case BAND:
                    for (int i = 0; i < m; i++) {
                        a[i] &= b[i];
                    }
                    break;
                case BOR:
                    for (int i = 0; i < m; i++) {
                        a[i] |= b[i];
                    }
                    break;
                case BXOR:
                    for (int i = 0; i < m; i++) {
                        a[i] ^= b[i];
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void floats(ReduceOp.Kind k, float[] a, float[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                case PREMUL_SUM:
                    for (int i = 0; i < m; i++) {
                        a[i] += b[i];
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] *= b[i];
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.min(a[i], b[i]);
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.max(a[i], b[i]);
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void doubles(ReduceOp.Kind k, double[] a, double[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                case PREMUL_SUM:
                    for (int i = 0; i < m; i++) {
                        a[i] += b[i];
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] *= b[i];
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.min(a[i], b[i]);
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = Math.max(a[i], b[i]);
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void float16s(ReduceOp.Kind k, short[] a, short[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                case PREMUL_SUM:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToHalf(HalfFloats.halfToFloat(a[i]) + HalfFloats.halfToFloat(b[i]));
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToHalf(HalfFloats.halfToFloat(a[i]) * HalfFloats.halfToFloat(b[i]));
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToHalf(Math.min(HalfFloats.halfToFloat(a[i]), HalfFloats.halfToFloat(b[i])));
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToHalf(Math.max(HalfFloats.halfToFloat(a[i]), HalfFloats.halfToFloat(b[i])));
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        /** bfloat16 to float32: the upper half of the bits. */
        private static float bf(short h) {
            return Float.intBitsToFloat(h << 16);
        }

        static void bfloat16s(ReduceOp.Kind k, short[] a, short[] b, int m) {
            switch (k) {
                case SUM:
                case AVG:
                case PREMUL_SUM:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToBfloat16(bf(a[i]) + bf(b[i]));
                    }
                    break;
                case PRODUCT:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToBfloat16(bf(a[i]) * bf(b[i]));
                    }
                    break;
                case MIN:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToBfloat16(Math.min(bf(a[i]), bf(b[i])));
                    }
                    break;
                case MAX:
                    for (int i = 0; i < m; i++) {
                        a[i] = HalfFloats.floatToBfloat16(Math.max(bf(a[i]), bf(b[i])));
                    }
                    break;
                default:
                    throw new AssertionError(k);
            }
        }

        static void divideBytes(byte[] a, int m, int n, boolean unsigned) {
            if (unsigned) {
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) ((a[i] & 0xff) / n);
                }
            } else {
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) (a[i] / n);
                }
            }
        }

        static void divideInts(int[] a, int m, int n) {
            for (int i = 0; i < m; i++) {
                a[i] /= n;
            }
        }

        static void divideLongs(long[] a, int m, long n) {
            for (int i = 0; i < m; i++) {
                a[i] /= n;
            }
        }

        static void scaleHalves(short[] a, int m, float x, boolean divide, boolean bf16) {
            for (int i = 0; i < m; i++) {
                float v = bf16 ? HalfFloats.bfloat16ToFloat(a[i]) : HalfFloats.halfToFloat(a[i]);
                v = divide ? v / x : v * x;
                a[i] = bf16 ? HalfFloats.floatToBfloat16(v) : HalfFloats.floatToHalf(v);
            }
        }

        static void divideFloats(float[] a, int m, float x) {
            for (int i = 0; i < m; i++) {
                a[i] /= x;
            }
        }

        static void multiplyFloats(float[] a, int m, float x) {
            for (int i = 0; i < m; i++) {
                a[i] *= x;
            }
        }

        static void divideDoubles(double[] a, int m, double x) {
            for (int i = 0; i < m; i++) {
                a[i] /= x;
            }
        }

        static void multiplyDoubles(double[] a, int m, double x) {
            for (int i = 0; i < m; i++) {
                a[i] *= x;
            }
        }
    }
}
