package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

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
 * move blocks of 8 KiB into per-thread scratch arrays with raw memory copies
 * ({@code java.lang.foreign} on JDK 22 and later, {@code sun.misc.Unsafe} on JDK 17 to 21), reduce
 * them with plain array loops that HotSpot's C2 vectorises (SSE/AVX), and copy the result back.
 * Neither allocates per call (each thread's scratch arrays are made once). Heap buffers, or a JVM
 * where neither kind of raw memory access works (or with
 * {@code -Dio.reactivecollectives.kernels.portable=true}), take a portable path through
 * {@link ByteBuf} accessors with the same results, slower.
 *
 * <p>On JDK 22 and later, loading the native kernels ({@code System.load}) and the raw copies
 * ({@code MemorySegment.reinterpret}) are restricted methods: start the JVM with
 * {@code --enable-native-access=ALL-UNNAMED} (or the library's module name on the module path) to
 * avoid the JVM's one-time warning about them. JDK 17 to 21 accept the flag too.
 *
 * <h2>Loading the native kernels</h2>
 * {@link #load()} loads the native library (it may copy it out of the jar into a temporary file:
 * blocking), {@link #loadAsync()} does the same on the library's {@link
 * io.reactivecollectives.core.BlockingScheduler}; a process group calls {@code loadAsync()} when it
 * connects. A reduction that finds them not loaded yet loads them on its own thread if that thread
 * may block; on a thread that may not (a Reactor non-blocking thread such as
 * {@code Schedulers.parallel()}, a Netty event loop) it reduces with the Java kernels, which give
 * the same results, and starts {@code loadAsync()}, so an event loop never waits for the file.
 *
 * <p>All methods are thread-safe; concurrent calls on the same destination elements race.
 */
public final class ReduceKernels {

    private ReduceKernels() {
    }


    /**
     * True when the fast path (raw copies of direct buffers' memory, through {@code java.lang.foreign}
     * on JDK 22 and later, {@code sun.misc.Unsafe} before) is in use on this JVM.
     *
     * @return whether the fast path is in use
     */
    public static boolean fastPathAvailable() {
        return Memory.AVAILABLE;
    }

    /**
     * Which kernels reduce off-heap tensors on this JVM, in words: {@code "native (...)"} when the
     * {@link NativeReduceKernels native kernels} are in use, else {@code "java"} and why (for logs
     * and benchmark headers). Not loaded yet, they are loaded first as a reduction on this thread
     * would: on a thread that may not block the answer is {@code "java (... not loaded yet ...)"}
     * while they load in the background.
     *
     * @return the description
     */
    public static String implementation() {
        return NativeReduceKernels.describe();
    }

    /**
     * Loads the {@link NativeReduceKernels native kernels} now, on this thread: blocking (the
     * library may be copied out of the jar into a temporary file before {@code System.load}), so not
     * for an event loop (use {@link #loadAsync()} there). Idempotent and thread-safe: the first call
     * loads, concurrent calls wait for it, later calls return at once. A library that cannot be
     * loaded is not an error: the Java kernels then do the work and {@link #implementation()} says why.
     */
    public static void load() {
        NativeReduceKernels.load();
    }

    /**
     * {@link #load()} on the library's bounded {@link io.reactivecollectives.core.BlockingScheduler}:
     * completes when the native kernels are loaded (or found unusable); at once, without changing
     * threads, when that was settled already. Cold: nothing happens until it is subscribed.
     *
     * @return a cold {@code Mono} completing once the kernels are settled
     */
    public static Mono<Void> loadAsync() {
        return NativeReduceKernels.loadAsync();
    }

    /**
     * {@code dst[i] = op(dst[i], src[i])} for {@code count} elements of {@code dtype}: dst elements
     * from byte index {@code dstByteIndex} of {@code dst} (an absolute index, as
     * {@link ByteBuf#getByte(int)}; reader and writer indexes are neither used nor changed), src
     * from {@code srcByteIndex} of {@code src}. Direct buffers take the fast path; heap buffers work
     * through the portable path. {@code dst} and {@code src} may be the same memory (in which case
     * the op is applied to each element with itself); other overlaps give unspecified results.
     *
     * @param op           the reduction
     * @param dtype        the element type
     * @param dst          the buffer reduced into
     * @param dstByteIndex absolute byte index of the first destination element
     * @param src          the buffer read
     * @param srcByteIndex absolute byte index of the first source element
     * @param count        the number of elements
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
        if (Memory.AVAILABLE && dst.hasMemoryAddress() && src.hasMemoryAddress()) {
            NativeReduceKernels.ensureLoaded();
            BlockDrivers.reduceBlocks(op.kind(), dtype, null, dst.memoryAddress() + dstByteIndex,
                    null, src.memoryAddress() + srcByteIndex, count);
        } else {
            BlockDrivers.reduceBlocks(op.kind(), dtype, dst, dstByteIndex, src, srcByteIndex, count);
        }
    }

    /**
     * {@link #reduceInto(ReduceOp, DType, ByteBuf, int, ByteBuf, int, int)} for a source that may be
     * made of several memory regions (a {@code CompositeByteBuf} of socket reads, as the transport
     * hands out large frames without copying them together): each region is reduced in place where
     * it lies, and an element split between two regions is put together in a scratch of one
     * element. A contiguous source takes the plain path.
     *
     * @param op           the reduction
     * @param dtype        the element type
     * @param dst          the buffer reduced into
     * @param dstByteIndex absolute byte index of the first destination element
     * @param src          the buffer read
     * @param srcByteIndex absolute byte index of the first source element
     * @param count        the number of elements
     * @throws IllegalArgumentException as {@code reduceInto}
     */
    public static void reduceIntoScattered(ReduceOp op, DType dtype, ByteBuf dst, int dstByteIndex,
                                           ByteBuf src, int srcByteIndex, int count) {
        if (src.hasMemoryAddress() || !src.isDirect() || !Memory.AVAILABLE || !dst.hasMemoryAddress()) {
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
        java.nio.ByteBuffer[] parts = src.nioBuffers(srcByteIndex, count * dtype.byteSize());
        for (java.nio.ByteBuffer part : parts) {
            if (!part.isDirect()) {
                reduceInto(op, dtype, dst, dstByteIndex, src, srcByteIndex, count);  // heap parts: element-wise path
                return;
            }
        }
        NativeReduceKernels.ensureLoaded();
        BlockDrivers.reduceScattered(op.kind(), dtype, dst.memoryAddress() + dstByteIndex, parts);
    }

    /**
     * Whole-tensor form: {@code dst = op(dst, src)} element-wise; both CPU tensors with the same
     * dtype and number of elements (shapes may differ).
     *
     * @param op  the reduction
     * @param dst the tensor reduced into
     * @param src the tensor read
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
     * @param op the reduction
     * @param t  the tensor, changed in place
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
     * @param op        the reduction
     * @param t         the tensor, changed in place
     * @param worldSize the group's size
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
        if (Memory.AVAILABLE && b.hasMemoryAddress()) {
            BlockDrivers.scaleBlocks(t.dtype(), null, b.memoryAddress(), n, x, divide);
        } else {
            BlockDrivers.scaleBlocks(t.dtype(), b, 0, n, x, divide);
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

    /**
     * The Java kernels alone, over memory addresses: {@code dst[i] = op(dst[i], src[i])} for
     * {@code n} elements (tests compare the native kernels with these).
     */
    static void javaReduceInto(ReduceOp.Kind k, DType dtype, long dst, long src, int n) {
        BlockDrivers.javaReduceBlocks(k, dtype, dst, src, n);
    }
}
