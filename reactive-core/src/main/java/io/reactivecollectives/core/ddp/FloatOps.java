package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.Tensor;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * Element-wise arithmetic on CPU tensors that the hooks need. FLOAT32 runs through bulk copies to and
 * from {@code float[]}; the other floating types go element by element.
 */
final class FloatOps {

    private FloatOps() {
    }

    static FloatBuffer floats(Tensor t) {
        return t.buffer().nioBuffer(0, (int) t.nbytes()).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    }

    /** The elements of {@code t} as floats. */
    static float[] read(Tensor t) {
        if (t.dtype() == DType.FLOAT32) {
            float[] out = new float[Math.toIntExact(t.numel())];
            floats(t).get(out);
            return out;
        }
        return t.toFloatArray();
    }

    /** Writes {@code values} into {@code t}, converting to its dtype. */
    static void write(Tensor t, float[] values) {
        if (values.length != t.numel()) {
            throw new IllegalArgumentException("writing " + values.length + " values into " + t);
        }
        if (t.dtype() == DType.FLOAT32) {
            floats(t).put(values);
            return;
        }
        for (int i = 0; i < values.length; i++) {
            t.setDouble(i, values[i]);
        }
    }

    /** {@code dst += src}, in place. */
    static void add(Tensor dst, Tensor src) {
        float[] a = read(dst);
        float[] b = read(src);
        for (int i = 0; i < a.length; i++) {
            a[i] += b[i];
        }
        write(dst, a);
    }

    /** A new tensor of {@code dtype} holding {@code src * factor}, rounded to nearest-even. */
    static Tensor convert(Tensor src, DType dtype, double factor) {
        float[] v = read(src);
        Tensor out = Tensor.empty(dtype, src.shape());
        float f = (float) factor;
        switch (dtype) {
            case FLOAT16 -> {
                for (int i = 0; i < v.length; i++) {
                    out.buffer().setShortLE(2 * i, HalfFloats.floatToHalf(v[i] * f));
                }
            }
            case BFLOAT16 -> {
                for (int i = 0; i < v.length; i++) {
                    out.buffer().setShortLE(2 * i, HalfFloats.floatToBfloat16(v[i] * f));
                }
            }
            default -> {
                for (int i = 0; i < v.length; i++) {
                    v[i] *= f;
                }
                write(out, v);
            }
        }
        return out;
    }

    /** Copies {@code src} (any floating dtype) into {@code dst}, converting. */
    static void copyConverting(Tensor dst, Tensor src) {
        if (src.dtype() == dst.dtype()) {
            dst.copyFrom(src);
            return;
        }
        float[] v = new float[Math.toIntExact(src.numel())];
        switch (src.dtype()) {
            case FLOAT16 -> {
                for (int i = 0; i < v.length; i++) {
                    v[i] = HalfFloats.halfToFloat(src.buffer().getShortLE(2 * i));
                }
            }
            case BFLOAT16 -> {
                for (int i = 0; i < v.length; i++) {
                    v[i] = HalfFloats.bfloat16ToFloat(src.buffer().getShortLE(2 * i));
                }
            }
            default -> v = read(src);
        }
        write(dst, v);
    }
}
