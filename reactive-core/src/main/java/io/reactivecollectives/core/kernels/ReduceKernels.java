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
 * <p>Semantics follow PyTorch's c10d: SUM on BOOL is logical OR and PRODUCT logical AND, MIN/MAX
 * on BOOL are AND/OR; in the combine step AVG and PREMUL_SUM combine as SUM (their scaling is
 * applied once by {@link #preprocess} and {@link #postprocess}); BAND/BOR/BXOR apply to integer
 * and bool types only; MIN/MAX propagate NaN as {@code torch.minimum}/{@code torch.maximum};
 * integer arithmetic wraps on overflow (UINT8 is unsigned); FLOAT16 and BFLOAT16 are computed in
 * float32 and rounded to nearest-even. Elements are little-endian. The kernels allocate nothing.
 */
public final class ReduceKernels {

    private ReduceKernels() {
    }

    /**
     * {@code dst[i] = op(dst[i], src[i])} for {@code count} elements of {@code dtype}: dst elements
     * from byte index {@code dstByteIndex} of {@code dst} (absolute index, as {@link ByteBuf#getByte(int)}),
     * src from {@code srcByteIndex} of {@code src}. Direct buffers take the fast path; heap buffers work.
     * {@code dst} and {@code src} may be the same memory; other overlaps give unspecified results.
     *
     * @throws IllegalArgumentException for an invalid (op, dtype) pair or a negative count
     * @throws IndexOutOfBoundsException when a range is outside its buffer's capacity
     * @throws IllegalReferenceCountException when a buffer was released
     */
    public static void reduceInto(ReduceOp op, DType dtype, ByteBuf dst, int dstByteIndex,
                                  ByteBuf src, int srcByteIndex, int count) {
        op.validate("reduce", dtype);
        if (count < 0) {
            throw new IllegalArgumentException("reduce: negative element count " + count);
        }
        checkRange(dst, dstByteIndex, count, dtype, "destination");
        checkRange(src, srcByteIndex, count, dtype, "source");
        if (count == 0) {
            return;
        }
        Generic.reduce(op.kind(), dtype, dst, dstByteIndex, src, srcByteIndex, count);
    }

    /**
     * Whole-tensor form: {@code dst = op(dst, src)} element-wise; both CPU tensors with the same
     * dtype and number of elements (shapes may differ).
     */
    public static void reduceInto(ReduceOp op, Tensor dst, Tensor src) {
        if (dst.dtype() != src.dtype() || dst.numel() != src.numel()) {
            throw new IllegalArgumentException("reduce " + op + ": destination " + dst + " and source " + src
                    + " differ in dtype or number of elements");
        }
        op.validate("reduce", dst.dtype());
        reduceInto(op, dst.dtype(), dst.buffer(), 0, src.buffer(), 0, Math.toIntExact(dst.numel()));
    }

    /**
     * Applied once to each rank's local input before a collective reduces: PREMUL_SUM multiplies
     * each element by its factor (in float32 for the 16-bit floats and FLOAT32, in float64 for
     * FLOAT64); other ops leave the tensor as it is.
     */
    public static void preprocess(ReduceOp op, Tensor t) {
        op.validate("reduce", t.dtype());
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM || t.numel() == 0) {
            return;
        }
        ByteBuf b = t.buffer();
        checkRange(b, 0, Math.toIntExact(t.numel()), t.dtype(), "tensor");
        Generic.scale(t.dtype(), b, Math.toIntExact(t.numel()), op.factor(), false);
    }

    /**
     * Applied once to the final reduced result: AVG divides each element by {@code worldSize}
     * (integers truncate toward zero; UINT8 as unsigned); other ops leave the tensor as it is.
     */
    public static void postprocess(ReduceOp op, Tensor t, int worldSize) {
        op.validate("reduce", t.dtype());
        if (worldSize <= 0) {
            throw new IllegalArgumentException("reduce " + op + ": world size must be > 0, got " + worldSize);
        }
        if (op.kind() != ReduceOp.Kind.AVG || worldSize == 1 || t.numel() == 0) {
            return;
        }
        ByteBuf b = t.buffer();
        checkRange(b, 0, Math.toIntExact(t.numel()), t.dtype(), "tensor");
        Generic.scale(t.dtype(), b, Math.toIntExact(t.numel()), worldSize, true);
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

    /** Portable kernels through ByteBuf accessors: any buffer kind. */
    static final class Generic {
        private Generic() {
        }

        static void reduce(ReduceOp.Kind kind, DType dtype, ByteBuf d, int di, ByteBuf s, int si, int n) {
            switch (dtype) {
                case BOOL: bool(kind, d, di, s, si, n); break;
                case UINT8:
                case INT8: int8(kind, dtype == DType.UINT8, d, di, s, si, n); break;
                case INT32: int32(kind, d, di, s, si, n); break;
                case INT64: int64(kind, d, di, s, si, n); break;
                case FLOAT16:
                case BFLOAT16: half(kind, dtype == DType.BFLOAT16, d, di, s, si, n); break;
                case FLOAT32: float32(kind, d, di, s, si, n); break;
                case FLOAT64: float64(kind, d, di, s, si, n); break;
                default: throw new AssertionError(dtype);
            }
        }

        private static void bool(ReduceOp.Kind kind, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                boolean a = d.getByte(di + i) != 0;
                boolean b = s.getByte(si + i) != 0;
                boolean r;
                switch (kind) {
                    case SUM: case MAX: case BOR: r = a | b; break;
                    case PRODUCT: case MIN: case BAND: r = a & b; break;
                    case BXOR: r = a ^ b; break;
                    default: throw new AssertionError(kind);
                }
                d.setByte(di + i, r ? 1 : 0);
            }
        }

        private static void int8(ReduceOp.Kind kind, boolean unsigned, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                int a = unsigned ? d.getUnsignedByte(di + i) : d.getByte(di + i);
                int b = unsigned ? s.getUnsignedByte(si + i) : s.getByte(si + i);
                int r;
                switch (kind) {
                    case SUM: case AVG: r = a + b; break;
                    case PRODUCT: r = a * b; break;
                    case MIN: r = Math.min(a, b); break;
                    case MAX: r = Math.max(a, b); break;
                    case BAND: r = a & b; break;
                    case BOR: r = a | b; break;
                    case BXOR: r = a ^ b; break;
                    default: throw new AssertionError(kind);
                }
                d.setByte(di + i, r);
            }
        }

        private static void int32(ReduceOp.Kind kind, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                int a = d.getIntLE(di + 4 * i);
                int b = s.getIntLE(si + 4 * i);
                int r;
                switch (kind) {
                    case SUM: case AVG: r = a + b; break;
                    case PRODUCT: r = a * b; break;
                    case MIN: r = Math.min(a, b); break;
                    case MAX: r = Math.max(a, b); break;
                    case BAND: r = a & b; break;
                    case BOR: r = a | b; break;
                    case BXOR: r = a ^ b; break;
                    default: throw new AssertionError(kind);
                }
                d.setIntLE(di + 4 * i, r);
            }
        }

        private static void int64(ReduceOp.Kind kind, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                long a = d.getLongLE(di + 8 * i);
                long b = s.getLongLE(si + 8 * i);
                long r;
                switch (kind) {
                    case SUM: case AVG: r = a + b; break;
                    case PRODUCT: r = a * b; break;
                    case MIN: r = Math.min(a, b); break;
                    case MAX: r = Math.max(a, b); break;
                    case BAND: r = a & b; break;
                    case BOR: r = a | b; break;
                    case BXOR: r = a ^ b; break;
                    default: throw new AssertionError(kind);
                }
                d.setLongLE(di + 8 * i, r);
            }
        }

        static float combine(ReduceOp.Kind kind, float a, float b) {
            switch (kind) {
                case SUM: case AVG: case PREMUL_SUM: return a + b;
                case PRODUCT: return a * b;
                case MIN: return a != a ? a : (b != b ? b : Math.min(a, b));
                case MAX: return a != a ? a : (b != b ? b : Math.max(a, b));
                default: throw new AssertionError(kind);
            }
        }

        static double combine(ReduceOp.Kind kind, double a, double b) {
            switch (kind) {
                case SUM: case AVG: case PREMUL_SUM: return a + b;
                case PRODUCT: return a * b;
                case MIN: return a != a ? a : (b != b ? b : Math.min(a, b));
                case MAX: return a != a ? a : (b != b ? b : Math.max(a, b));
                default: throw new AssertionError(kind);
            }
        }

        private static void half(ReduceOp.Kind kind, boolean bf16, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                short ab = d.getShortLE(di + 2 * i);
                short bb = s.getShortLE(si + 2 * i);
                float a = bf16 ? HalfFloats.bfloat16ToFloat(ab) : HalfFloats.halfToFloat(ab);
                float b = bf16 ? HalfFloats.bfloat16ToFloat(bb) : HalfFloats.halfToFloat(bb);
                float r = combine(kind, a, b);
                d.setShortLE(di + 2 * i, bf16 ? HalfFloats.floatToBfloat16(r) : HalfFloats.floatToHalf(r));
            }
        }

        private static void float32(ReduceOp.Kind kind, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                d.setFloatLE(di + 4 * i, combine(kind, d.getFloatLE(di + 4 * i), s.getFloatLE(si + 4 * i)));
            }
        }

        private static void float64(ReduceOp.Kind kind, ByteBuf d, int di, ByteBuf s, int si, int n) {
            for (int i = 0; i < n; i++) {
                d.setDoubleLE(di + 8 * i, combine(kind, d.getDoubleLE(di + 8 * i), s.getDoubleLE(si + 8 * i)));
            }
        }

        /** Multiplies by {@code x} (divide == false) or divides by it (divide == true), from byte 0. */
        static void scale(DType dtype, ByteBuf b, int n, double x, boolean divide) {
            switch (dtype) {
                case UINT8:
                    for (int i = 0; i < n; i++) {
                        b.setByte(i, b.getUnsignedByte(i) / (int) x);
                    }
                    break;
                case INT8:
                    for (int i = 0; i < n; i++) {
                        b.setByte(i, b.getByte(i) / (int) x);
                    }
                    break;
                case INT32:
                    for (int i = 0; i < n; i++) {
                        b.setIntLE(4 * i, b.getIntLE(4 * i) / (int) x);
                    }
                    break;
                case INT64:
                    for (int i = 0; i < n; i++) {
                        b.setLongLE(8 * i, b.getLongLE(8 * i) / (long) x);
                    }
                    break;
                case FLOAT16:
                case BFLOAT16: {
                    boolean bf16 = dtype == DType.BFLOAT16;
                    float f = (float) x;
                    for (int i = 0; i < n; i++) {
                        short h = b.getShortLE(2 * i);
                        float v = bf16 ? HalfFloats.bfloat16ToFloat(h) : HalfFloats.halfToFloat(h);
                        v = divide ? v / f : v * f;
                        b.setShortLE(2 * i, bf16 ? HalfFloats.floatToBfloat16(v) : HalfFloats.floatToHalf(v));
                    }
                    break;
                }
                case FLOAT32: {
                    float f = (float) x;
                    for (int i = 0; i < n; i++) {
                        float v = b.getFloatLE(4 * i);
                        b.setFloatLE(4 * i, divide ? v / f : v * f);
                    }
                    break;
                }
                case FLOAT64:
                    for (int i = 0; i < n; i++) {
                        double v = b.getDoubleLE(8 * i);
                        b.setDoubleLE(8 * i, divide ? v / x : v * x);
                    }
                    break;
                default:
                    throw new AssertionError(dtype);
            }
        }
    }
}
