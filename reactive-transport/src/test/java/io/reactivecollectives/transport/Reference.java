package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Independent, element-by-element computations of what the collectives must produce, written
 * without any of the library's kernels, and input generators whose reductions are exact in every
 * dtype whatever the order of evaluation (so results compare bit for bit).
 */
final class Reference {

    private Reference() {
    }

    /**
     * A new tensor of {@code shape} with values of {@code dtype} for which a reduction with
     * {@code op} over up to 5 ranks is exact: floats are multiples of 1/2 in [-8, 8] (PRODUCT: one
     * of +-0.5, +-1, +-2), integers take their full range (wrap-around is order-independent) except
     * for AVG (a quarter of the range, so the sum never wraps), bools are random.
     */
    static Tensor input(DType dtype, ReduceOp op, long seed, long... shape) {
        Tensor t = Tensor.zeros(dtype, shape);
        SplittableRandom rnd = new SplittableRandom(seed);
        ReduceOp.Kind kind = op == null ? ReduceOp.Kind.SUM : op.kind();
        for (long i = 0; i < t.numel(); i++) {
            if (dtype.isBool()) {
                t.setDouble(i, rnd.nextInt(2));
            } else if (dtype.isFloatingPoint()) {
                if (kind == ReduceOp.Kind.PRODUCT) {
                    double[] choices = {-2, -1, -0.5, 0.5, 1, 2};
                    t.setDouble(i, choices[rnd.nextInt(choices.length)]);
                } else {
                    t.setDouble(i, (rnd.nextInt(33) - 16) / 2.0);
                }
            } else {
                long v = rnd.nextLong();
                if (kind == ReduceOp.Kind.AVG) {
                    v >>= 3;
                    switch (dtype) {
                        case INT8: v = rnd.nextInt(-32, 32); break;
                        case UINT8: v = rnd.nextInt(0, 64); break;
                        case INT32: v = rnd.nextInt(Integer.MIN_VALUE / 8, Integer.MAX_VALUE / 8); break;
                        default: break;
                    }
                }
                t.setLong(i, v);
            }
        }
        return t;
    }

    /** A new tensor like {@code inputs.get(0)} holding the element-wise reduction of {@code inputs}. */
    static Tensor reduce(List<Tensor> inputs, ReduceOp op) {
        Tensor first = inputs.get(0);
        DType dtype = first.dtype();
        Tensor out = Tensor.zeros(dtype, first.shape());
        int n = inputs.size();
        for (long i = 0; i < first.numel(); i++) {
            if (dtype.isFloatingPoint()) {
                double acc = op.kind() == ReduceOp.Kind.PREMUL_SUM ? inputs.get(0).getDouble(i) * op.factor() : inputs.get(0).getDouble(i);
                for (int r = 1; r < n; r++) {
                    double v = inputs.get(r).getDouble(i);
                    switch (op.kind()) {
                        case SUM: case AVG: acc += v; break;
                        case PREMUL_SUM: acc += v * op.factor(); break;
                        case PRODUCT: acc *= v; break;
                        case MIN: acc = (Double.isNaN(acc) || Double.isNaN(v)) ? Double.NaN : Math.min(acc, v); break;
                        case MAX: acc = (Double.isNaN(acc) || Double.isNaN(v)) ? Double.NaN : Math.max(acc, v); break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                }
                if (op.kind() == ReduceOp.Kind.AVG) {
                    acc /= n;
                }
                out.setDouble(i, acc);
            } else if (dtype.isBool()) {
                boolean acc = inputs.get(0).getDouble(i) != 0;
                for (int r = 1; r < n; r++) {
                    boolean v = inputs.get(r).getDouble(i) != 0;
                    switch (op.kind()) {
                        case SUM: case MAX: case BOR: acc |= v; break;
                        case PRODUCT: case MIN: case BAND: acc &= v; break;
                        case BXOR: acc ^= v; break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                }
                out.setDouble(i, acc ? 1 : 0);
            } else {
                boolean unsigned = dtype == DType.UINT8;
                long acc = value(inputs.get(0), i, unsigned);
                for (int r = 1; r < n; r++) {
                    long v = value(inputs.get(r), i, unsigned);
                    switch (op.kind()) {
                        case SUM: case AVG: acc += v; break;
                        case PRODUCT: acc *= v; break;
                        case MIN: acc = Math.min(acc, v); break;
                        case MAX: acc = Math.max(acc, v); break;
                        case BAND: acc &= v; break;
                        case BOR: acc |= v; break;
                        case BXOR: acc ^= v; break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                    acc = wrap(acc, dtype);
                }
                if (op.kind() == ReduceOp.Kind.AVG) {
                    acc = acc / n; // Java's division truncates toward zero
                }
                out.setLong(i, acc);
            }
        }
        return out;
    }

    private static long value(Tensor t, long i, boolean unsigned) {
        long v = t.getLong(i);
        return unsigned ? v & 0xFF : v;
    }

    private static long wrap(long v, DType dtype) {
        switch (dtype) {
            case INT8: return (byte) v;
            case UINT8: return v & 0xFF;
            case INT32: return (int) v;
            default: return v;
        }
    }

    /** Valid reduce ops for a dtype (c10d's rules), PREMUL_SUM with a factor of 0.5. */
    static List<ReduceOp> opsFor(DType dtype) {
        if (dtype.isBool()) {
            return List.of(ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR);
        }
        if (dtype.isFloatingPoint()) {
            return List.of(ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.premulSum(0.5));
        }
        return List.of(ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.BAND,
                ReduceOp.BOR, ReduceOp.BXOR);
    }

    /** True for reductions compared within float tolerance (AVG, PREMUL_SUM on floats), not bit for bit. */
    static boolean approximate(ReduceOp op, DType dtype) {
        return dtype.isFloatingPoint() && (op.kind() == ReduceOp.Kind.AVG || op.kind() == ReduceOp.Kind.PREMUL_SUM);
    }
}
