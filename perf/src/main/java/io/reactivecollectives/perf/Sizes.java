package io.reactivecollectives.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Byte sizes with K/M/G suffixes (powers of 1024), as nccl-tests' -b/-e take them, and the sweep between them. */
final class Sizes {

    private Sizes() {
    }

    /** The largest tensor, in bytes ({@code Tensor.empty}'s limit). */
    static final long MAX_TENSOR_BYTES = Integer.MAX_VALUE - 8;

    /** The bytes of the largest tensor a size of {@code size} bytes makes: whole elements, at least one. */
    static long tensorBytes(long size, int elementBytes) {
        return Math.max(1, size / elementBytes) * elementBytes;
    }

    static long parse(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1L << 10;
        } else if (t.endsWith("M")) {
            mult = 1L << 20;
        } else if (t.endsWith("G")) {
            mult = 1L << 30;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t) * mult;
            if (v <= 0) {
                throw new IllegalArgumentException("size must be positive: '" + s + "'");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + s + "' (use e.g. 4, 64K, 1M, 2G)", e);
        }
    }

    /**
     * The sizes from {@code min} to {@code max}: multiplied by {@code factor} each step, or, when
     * {@code stepBytes > 0}, increased by it (nccl-tests' {@code -f} and {@code -i}).
     */
    static List<Long> sweep(long min, long max, long factor, long stepBytes) {
        List<Long> sizes = new ArrayList<>();
        for (long s = min; s <= max; ) {
            sizes.add(s);
            long next = stepBytes > 0 ? s + stepBytes : s * factor;
            if (next <= s) {
                break; // overflow
            }
            s = next;
        }
        return sizes;
    }
}
