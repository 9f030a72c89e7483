package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.settings.CoreSettings;

import java.nio.ByteBuffer;

/**
 * The loops of {@link ReduceKernels} that walk memory in blocks: each block is reduced by the
 * {@link NativeReduceKernels native kernels} where they take it, else moved into this thread's
 * {@link Scratch} arrays ({@link Transfer}), combined there by the per-type loops
 * ({@link IntegerLoops}, {@link FloatLoops}, generated at build time from the templates in
 * {@code src/main/codegen}) and moved back. Also the walk over a source made of
 * several memory regions ({@link #reduceScattered}). Arguments are checked by the caller.
 */
final class BlockDrivers {

    /**
     * Bytes per block moved into scratch arrays: small enough for L1, large enough to amortise the
     * copies (system property {@code rc.kernels.blockBytes}, default 8 KiB; the measurements behind
     * the default are in {@code perf/RESULTS.md}).
     */
    static final int BLOCK_BYTES = Math.max(64, CoreSettings.KERNELS_BLOCK_BYTES.get() & ~7);

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private BlockDrivers() {
    }

    /**
     * With {@code d == null} (and {@code s == null}) the positions are memory addresses, reduced by
     * the native kernels where they take the pair; otherwise, or for the pairs they leave, by
     * {@link #javaReduceBlocks} (the only path that needs this thread's scratch arrays).
     */
    static void reduceBlocks(ReduceOp.Kind k, DType dtype, ByteBuf d, long dp, ByteBuf s, long sp, int n) {
        if (d == null && s == null && NativeReduceKernels.reduce(k, dtype, dp, sp, n)) {
            return;
        }
        javaReduceBlocks(k, dtype, d, dp, s, sp, n, SCRATCH.get());
    }

    /**
     * {@code dst = op(dst, src)} for {@code count} elements, {@code src} given as its direct memory
     * regions in order ({@code parts}, as {@code ByteBuf.nioBuffers}): each region is reduced where it
     * lies, and an element split between two regions is put together in a scratch of one element.
     */
    static void reduceScattered(ReduceOp.Kind k, DType dtype, long dst, ByteBuffer[] parts) {
        int es = dtype.byteSize();
        long element = SCRATCH.get().elementAddress();
        long d = dst;
        int carried = 0;
        for (ByteBuffer part : parts) {
            long a = PlatformDependent.directBufferAddress(part) + part.position();
            int left = part.remaining();
            if (carried > 0) {
                int take = Math.min(es - carried, left);
                Memory.copy(a, element + carried, take);
                carried += take;
                a += take;
                left -= take;
                if (carried == es) {
                    reduceBlocks(k, dtype, null, d, null, element, 1);
                    d += es;
                    carried = 0;
                }
            }
            int whole = left / es;
            if (whole > 0) {
                reduceBlocks(k, dtype, null, d, null, a, whole);
                d += (long) whole * es;
                a += (long) whole * es;
                left -= whole * es;
            }
            if (left > 0) {
                Memory.copy(a, element + carried, left);
                carried += left;
            }
        }
    }

    /**
     * The Java kernels alone, over memory addresses: {@code dst[i] = op(dst[i], src[i])} for
     * {@code n} elements (tests compare the native kernels with these).
     */
    static void javaReduceBlocks(ReduceOp.Kind k, DType dtype, long dst, long src, int n) {
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
                    IntegerLoops.bools(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case UINT8:
                case INT8: {
                    byte[] a = sc.bytesA(), b = sc.bytesB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    IntegerLoops.bytes(k, dtype == DType.UINT8, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT32: {
                    int[] a = sc.intsA(), b = sc.intsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    IntegerLoops.ints(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT64: {
                    long[] a = sc.longsA(), b = sc.longsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    IntegerLoops.longs(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT16:
                case BFLOAT16: {
                    short[] a = sc.shortsA(), b = sc.shortsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    if (dtype == DType.BFLOAT16) {
                        FloatLoops.bfloat16s(k, a, b, m);
                    } else {
                        FloatLoops.float16s(k, a, b, m);
                    }
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT32: {
                    float[] a = sc.floatsA(), b = sc.floatsB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    FloatLoops.floats(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT64: {
                    double[] a = sc.doublesA(), b = sc.doublesB();
                    Transfer.in(d, dpos, a, m);
                    Transfer.in(s, spos, b, m);
                    FloatLoops.doubles(k, a, b, m);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                default:
                    throw new AssertionError(dtype);
            }
        }
    }

    /**
     * {@code x} times (or, with {@code divide}, over {@code x}) each of {@code n} elements, in place:
     * integers divide by {@code (long) x} (truncating, UINT8 unsigned), FLOAT16, BFLOAT16 and
     * FLOAT32 compute in float32 and FLOAT64 in float64. {@code d == null}: {@code dp} is an address.
     */
    static void scaleBlocks(DType dtype, ByteBuf d, long dp, int n, double x, boolean divide) {
        Scratch sc = SCRATCH.get();
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
                    IntegerLoops.divideBytes(a, m, (int) x, dtype == DType.UINT8);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT32: {
                    int[] a = sc.intsA();
                    Transfer.in(d, dpos, a, m);
                    IntegerLoops.divideInts(a, m, (int) x);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case INT64: {
                    long[] a = sc.longsA();
                    Transfer.in(d, dpos, a, m);
                    IntegerLoops.divideLongs(a, m, (long) x);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT16:
                case BFLOAT16: {
                    short[] a = sc.shortsA();
                    Transfer.in(d, dpos, a, m);
                    if (dtype == DType.BFLOAT16) {
                        FloatLoops.scaleBfloat16s(a, m, (float) x, divide);
                    } else {
                        FloatLoops.scaleFloat16s(a, m, (float) x, divide);
                    }
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT32: {
                    float[] a = sc.floatsA();
                    Transfer.in(d, dpos, a, m);
                    FloatLoops.scaleFloats(a, m, (float) x, divide);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                case FLOAT64: {
                    double[] a = sc.doublesA();
                    Transfer.in(d, dpos, a, m);
                    FloatLoops.scaleDoubles(a, m, x, divide);
                    Transfer.out(a, d, dpos, m);
                    break;
                }
                default:
                    // BOOL: AVG and PREMUL_SUM are rejected by validate before we get here
                    throw new AssertionError(dtype);
            }
        }
    }
}
