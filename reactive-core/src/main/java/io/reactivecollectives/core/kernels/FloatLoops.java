package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;

/**
 * The floating-point arithmetic of the Java kernels, on blocks in Java arrays:
 * {@code a[i] = op(a[i], b[i])} for {@code i < m} (MIN/MAX as {@link Math#min}/{@link Math#max};
 * FLOAT16 and BFLOAT16 computed in float32 and rounded to nearest-even), and the scaling of AVG
 * and PREMUL_SUM. One small loop per (op, type), so that C2 compiles (and vectorises) each on its own.
 */
final class FloatLoops {
    private FloatLoops() {
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
