package io.reactivecollectives.core;

import java.util.Objects;

/**
 * A reduction applied element-wise by all-reduce, reduce and reduce-scatter, with the rules of
 * PyTorch's c10d:
 * <ul>
 *   <li>{@link #SUM} on BOOL is logical OR, {@link #PRODUCT} on BOOL is logical AND;</li>
 *   <li>{@link #AVG} on BOOL is an error; on integers it is the sum divided by the world size,
 *       truncated toward zero, and the sum is taken in the element type first, so it wraps as
 *       {@link #SUM} does: the AVG of three UINT8 200s is (600 mod 256) / 3 = 29, not 200 (as
 *       NCCL's); average wide values in a wider type, or in floating point;</li>
 *   <li>{@link #BAND}, {@link #BOR}, {@link #BXOR} only on integer and bool types;</li>
 *   <li>{@link #premulSum(double)} only on floating types: each rank's input is multiplied by the
 *       factor, then summed. The factor is each rank's own, as NCCL's pre-multiplied sum allows (a
 *       rank may weigh its contribution); the ranks compare the kind of op, not the factor;</li>
 *   <li>{@link #MIN} and {@link #MAX} propagate NaN; integer arithmetic wraps on overflow.</li>
 * </ul>
 * Use {@link #validate(String, DType)} to reject an (op, dtype) pair before anything is sent.
 */
public final class ReduceOp {

    /** The operation, without its parameter. */
    public enum Kind {
        /** Sum (logical OR on BOOL). */
        SUM,
        /** Average: the sum divided by the world size. */
        AVG,
        /** Product (logical AND on BOOL). */
        PRODUCT,
        /** Minimum. */
        MIN,
        /** Maximum. */
        MAX,
        /** Bitwise AND. */
        BAND,
        /** Bitwise OR. */
        BOR,
        /** Bitwise XOR. */
        BXOR,
        /** Sum of the inputs each multiplied by a factor. */
        PREMUL_SUM
    }

    /** Sum; logical OR on BOOL. */
    public static final ReduceOp SUM = new ReduceOp(Kind.SUM, 1.0);
    /** Average: the sum divided by the world size (truncated toward zero on integers; not on BOOL). */
    public static final ReduceOp AVG = new ReduceOp(Kind.AVG, 1.0);
    /** Product; logical AND on BOOL. */
    public static final ReduceOp PRODUCT = new ReduceOp(Kind.PRODUCT, 1.0);
    /** Minimum (NaN propagates). */
    public static final ReduceOp MIN = new ReduceOp(Kind.MIN, 1.0);
    /** Maximum (NaN propagates). */
    public static final ReduceOp MAX = new ReduceOp(Kind.MAX, 1.0);
    /** Bitwise AND, on integer and bool types only. */
    public static final ReduceOp BAND = new ReduceOp(Kind.BAND, 1.0);
    /** Bitwise OR, on integer and bool types only. */
    public static final ReduceOp BOR = new ReduceOp(Kind.BOR, 1.0);
    /** Bitwise XOR, on integer and bool types only. */
    public static final ReduceOp BXOR = new ReduceOp(Kind.BXOR, 1.0);

    private final Kind kind;
    private final double factor;

    private ReduceOp(Kind kind, double factor) {
        this.kind = kind;
        this.factor = factor;
    }

    /**
     * Sum of each rank's input multiplied by {@code factor} (c10d's {@code _make_nccl_premul_sum}).
     *
     * @param factor the factor, finite
     * @return the op
     * @throws IllegalArgumentException for an infinite or NaN factor
     */
    public static ReduceOp premulSum(double factor) {
        if (!Double.isFinite(factor)) {
            throw new IllegalArgumentException("PREMUL_SUM factor must be finite, got " + factor);
        }
        return new ReduceOp(Kind.PREMUL_SUM, factor);
    }

    /**
     * Every op without a parameter, and PREMUL_SUM with a factor of 1.
     *
     * @return the ops
     */
    public static ReduceOp[] values() {
        return new ReduceOp[] {SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, premulSum(1.0)};
    }

    /**
     * Parses {@code sum}, {@code avg}, ..., {@code premul_sum:0.5}.
     *
     * @param s the name, case-insensitive
     * @return the op
     * @throws IllegalArgumentException for an unknown name
     */
    public static ReduceOp parse(String s) {
        String n = s.trim().toUpperCase(java.util.Locale.ROOT);
        if (n.startsWith("PREMUL_SUM")) {
            int colon = n.indexOf(':');
            return premulSum(colon < 0 ? 1.0 : Double.parseDouble(n.substring(colon + 1)));
        }
        if (n.equals("PROD")) {
            return PRODUCT;
        }
        for (Kind k : Kind.values()) {
            if (k.name().equals(n)) {
                return of(k);
            }
        }
        throw new IllegalArgumentException("unknown reduce op '" + s + "'; expected one of "
                + java.util.Arrays.toString(Kind.values()) + " (premul_sum:FACTOR for a factor)");
    }

    /**
     * The op of a kind without parameter.
     *
     * @param kind the kind
     * @return the op (PREMUL_SUM with a factor of 1)
     */
    public static ReduceOp of(Kind kind) {
        switch (kind) {
            case SUM: return SUM;
            case AVG: return AVG;
            case PRODUCT: return PRODUCT;
            case MIN: return MIN;
            case MAX: return MAX;
            case BAND: return BAND;
            case BOR: return BOR;
            case BXOR: return BXOR;
            default: return premulSum(1.0);
        }
    }

    /** {@return the operation, without its parameter} */
    public Kind kind() {
        return kind;
    }

    /**
     * The factor of PREMUL_SUM; 1 for the other ops.
     *
     * @return the factor
     */
    public double factor() {
        return factor;
    }

    /**
     * Whether this op may reduce tensors of {@code dtype}.
     *
     * @param dtype the element type
     * @return whether the pair is allowed
     */
    public boolean supports(DType dtype) {
        return rejection(dtype) == null;
    }

    /**
     * Checks that this op may reduce {@code dtype}.
     *
     * @param dtype the element type
     * @param opName the collective, named in the message ({@code allReduce})
     * @throws IllegalArgumentException naming the op and dtype
     */
    public void validate(String opName, DType dtype) {
        String why = rejection(dtype);
        if (why != null) {
            throw new IllegalArgumentException(opName + ": " + why);
        }
    }

    private String rejection(DType dtype) {
        switch (kind) {
            case AVG:
                return dtype.isBool() ? "ReduceOp.AVG is not supported for bool tensors" : null;
            case BAND:
            case BOR:
            case BXOR:
                return dtype.isFloatingPoint()
                        ? "ReduceOp." + kind + " is only supported for integer and bool tensors, not " + dtype : null;
            case PREMUL_SUM:
                return dtype.isFloatingPoint()
                        ? null : "ReduceOp.PREMUL_SUM is only supported for floating-point tensors, not " + dtype;
            default:
                return null;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReduceOp && ((ReduceOp) o).kind == kind
                && Double.compare(((ReduceOp) o).factor, factor) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, factor);
    }

    @Override
    public String toString() {
        return kind == Kind.PREMUL_SUM ? "PREMUL_SUM(" + factor + ")" : kind.name();
    }
}
