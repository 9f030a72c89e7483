package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Element access of CPU tensors (the slow path, for tests, tools and factories): one element by
 * byte index converted to and from double, whole-tensor copies to and from Java arrays, and the
 * element-wise comparison. Elements are little-endian, as {@link Tensor} stores them.
 */
final class TensorElements {

    private TensorElements() {
    }

    static double get(ByteBuf host, DType dtype, int b) {
        switch (dtype) {
            case BOOL: return host.getByte(b) != 0 ? 1 : 0;
            case UINT8: return host.getUnsignedByte(b);
            case INT8: return host.getByte(b);
            case INT32: return host.getIntLE(b);
            case INT64: return host.getLongLE(b);
            case FLOAT16: return HalfFloats.halfToFloat(host.getShortLE(b));
            case BFLOAT16: return HalfFloats.bfloat16ToFloat(host.getShortLE(b));
            case FLOAT32: return host.getFloatLE(b);
            case FLOAT64: return host.getDoubleLE(b);
            default: throw new AssertionError(dtype);
        }
    }

    /**
     * Refuses {@code v} where {@code dtype} cannot hold it, as PyTorch's {@code fill_} does ("value
     * cannot be converted to type int8_t without overflow"): an integer dtype takes a finite value
     * in its range (uint8 also -255..-1, which wrap, as in PyTorch), a floating one any value
     * within its largest magnitude, infinities and NaN included; bool and float64 take anything.
     */
    static void requireFits(String op, DType dtype, double v) {
        double max = switch (dtype) {
            case INT8 -> Byte.MAX_VALUE;
            case UINT8 -> 255;
            case INT32 -> Integer.MAX_VALUE;
            case INT64 -> 0x1p63;       // Long.MAX_VALUE + 1 as a double: the first value past the range
            case FLOAT16 -> 65504;
            case BFLOAT16 -> 0x1.fep127;
            case FLOAT32 -> Float.MAX_VALUE;
            default -> Double.POSITIVE_INFINITY;
        };
        double min = switch (dtype) {
            case INT8 -> Byte.MIN_VALUE;
            case UINT8 -> -255;
            case INT32 -> Integer.MIN_VALUE;
            case INT64 -> -0x1p63;
            default -> -max;
        };
        boolean integral = !dtype.isFloatingPoint() && dtype != DType.BOOL;
        boolean fits = integral ? v >= min && (dtype == DType.INT64 ? v < max : v <= max)
                : Double.isNaN(v) || Double.isInfinite(v) || (v >= min && v <= max);
        if (!fits) {
            throw new IllegalArgumentException(op + ": " + v + " cannot be converted to " + dtype + " without overflow");
        }
    }

    static void set(ByteBuf host, DType dtype, int b, double v) {
        switch (dtype) {
            case BOOL: host.setByte(b, v != 0 ? 1 : 0); break;
            case UINT8:
            case INT8: host.setByte(b, (int) (long) v); break;
            case INT32: host.setIntLE(b, (int) (long) v); break;
            case INT64: host.setLongLE(b, (long) v); break;
            case FLOAT16: host.setShortLE(b, HalfFloats.floatToHalf((float) v)); break;
            case BFLOAT16: host.setShortLE(b, HalfFloats.floatToBfloat16((float) v)); break;
            case FLOAT32: host.setFloatLE(b, (float) v); break;
            case FLOAT64: host.setDoubleLE(b, v); break;
            default: throw new AssertionError(dtype);
        }
    }

    /**
     * A little-endian view of {@code host}'s first {@code bytes}, or null where the buffer has no
     * single view (then the element loop is used). A bulk copy through it is one buffer access
     * instead of one per element (which the leak detector records at PARANOID, one stack trace each).
     */
    private static ByteBuffer view(ByteBuf host, int bytes) {
        return host.nioBufferCount() == 1 ? host.nioBuffer(0, bytes).order(ByteOrder.LITTLE_ENDIAN) : null;
    }

    static void put(ByteBuf host, float[] values) {
        ByteBuffer v = view(host, values.length * 4);
        if (v != null) {
            v.asFloatBuffer().put(values);
            return;
        }
        for (int i = 0; i < values.length; i++) {
            host.setFloatLE(i * 4, values[i]);
        }
    }

    static void put(ByteBuf host, double[] values) {
        ByteBuffer v = view(host, values.length * 8);
        if (v != null) {
            v.asDoubleBuffer().put(values);
            return;
        }
        for (int i = 0; i < values.length; i++) {
            host.setDoubleLE(i * 8, values[i]);
        }
    }

    static void put(ByteBuf host, int[] values) {
        ByteBuffer v = view(host, values.length * 4);
        if (v != null) {
            v.asIntBuffer().put(values);
            return;
        }
        for (int i = 0; i < values.length; i++) {
            host.setIntLE(i * 4, values[i]);
        }
    }

    static void put(ByteBuf host, long[] values) {
        ByteBuffer v = view(host, values.length * 8);
        if (v != null) {
            v.asLongBuffer().put(values);
            return;
        }
        for (int i = 0; i < values.length; i++) {
            host.setLongLE(i * 8, values[i]);
        }
    }

    static void put(ByteBuf host, boolean[] values) {
        for (int i = 0; i < values.length; i++) {
            host.setByte(i, values[i] ? 1 : 0);
        }
    }

    static float[] floats(Tensor t) {
        float[] out = new float[Math.toIntExact(t.numel())];
        if (t.dtype() == DType.FLOAT32) {
            readLE(t).asFloatBuffer().get(out);
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) t.getDouble(i);
        }
        return out;
    }

    static double[] doubles(Tensor t) {
        double[] out = new double[Math.toIntExact(t.numel())];
        if (t.dtype() == DType.FLOAT64) {
            readLE(t).asDoubleBuffer().get(out);
            return out;
        }
        ByteBuf bytes = untracked(readLE(t));
        int size = t.dtype().byteSize();
        for (int i = 0; i < out.length; i++) {
            out[i] = get(bytes, t.dtype(), i * size);
        }
        return out;
    }

    /** Writes {@code values} converted to {@code dtype} (as {@link #set} does element by element), in one buffer access where it can. */
    static void put(ByteBuf host, DType dtype, double[] values) {
        int size = dtype.byteSize();
        ByteBuffer v = view(host, values.length * size);
        ByteBuf target = v == null ? host : untracked(v);
        for (int i = 0; i < values.length; i++) {
            set(target, dtype, i * size, values[i]);
        }
    }

    /** A buffer over {@code view}'s memory that no leak detector tracks (its element accesses are not recorded). */
    private static ByteBuf untracked(ByteBuffer view) {
        return Unpooled.wrappedBuffer(view.duplicate().order(ByteOrder.BIG_ENDIAN));   // get/set read LE explicitly
    }

    static int[] ints(Tensor t) {
        require(t, DType.INT32);
        int[] out = new int[Math.toIntExact(t.numel())];
        readLE(t).asIntBuffer().get(out);
        return out;
    }

    static long[] longs(Tensor t) {
        require(t, DType.INT64);
        long[] out = new long[Math.toIntExact(t.numel())];
        readLE(t).asLongBuffer().get(out);
        return out;
    }

    /** The tensor's bytes, little-endian, read in one access (a copy where the buffer has no single view). */
    private static ByteBuffer readLE(Tensor t) {
        return t.buffer().nioBuffer(0, Math.toIntExact(t.nbytes())).order(ByteOrder.LITTLE_ENDIAN);
    }

    static boolean[] booleans(Tensor t) {
        require(t, DType.BOOL);
        boolean[] out = new boolean[Math.toIntExact(t.numel())];
        for (int i = 0; i < out.length; i++) {
            out[i] = t.buffer().getByte(i) != 0;
        }
        return out;
    }

    private static void require(Tensor t, DType want) {
        if (t.dtype() != want) {
            throw new IllegalStateException("tensor is " + t.dtype() + ", not " + want);
        }
    }

    /** {@link Tensor#allClose}: {@code |a - b| <= atol + rtol * |b|} everywhere, NaN matching NaN. */
    static boolean allClose(Tensor x, Tensor other, double rtol, double atol) {
        if (other == null || other.dtype() != x.dtype() || !Arrays.equals(other.shape(), x.shape())) {
            return false;
        }
        for (long i = 0; i < x.numel(); i++) {
            double a = x.getDouble(i);
            double b = other.getDouble(i);
            if (Double.isNaN(a) || Double.isNaN(b)) {
                if (Double.isNaN(a) != Double.isNaN(b)) {
                    return false;
                }
            } else if (a != b && (Double.isInfinite(a) || Double.isInfinite(b)
                    || !(Math.abs(a - b) <= atol + rtol * Math.abs(b)))) {
                return false; // an infinity is close only to itself, as in torch.isclose
            }
        }
        return true;
    }
}
