package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every valid (op, dtype) pair of {@link ReduceKernels} against a reference computed independently:
 * integers with {@link BigInteger} (then wrapped to the dtype's width), floats exactly with
 * {@link BigDecimal} and then rounded (16-bit floats: to float32 first, then to the 16-bit format by
 * {@link #roundToFormat}), bools with boolean logic. Both the fast path (direct tensors) and the
 * portable path (heap buffers at odd byte offsets) are checked.
 */
class ReduceKernelsTest {

    /** Lengths around the kernels' 2 KiB blocks and loop unrolling, for every element size. */
    private static final int[] LENGTHS = {0, 1, 2, 3, 7, 15, 16, 17, 255, 256, 257, 511, 512, 513,
        1023, 1024, 1025, 2047, 2048, 2049, 5003};

    private static final String[] OPS = {"sum", "avg", "product", "min", "max", "band", "bor", "bxor", "premul_sum:0.5"};

    // ------------------------------------------------------------------ every pair

    @Test
    void everyValidPairMatchesTheReferenceOnTheFastPath() {
        Random rnd = new Random(20261122);
        int pairs = 0;
        for (String opName : OPS) {
            ReduceOp op = ReduceOp.parse(opName);
            for (DType dtype : DType.values()) {
                if (!op.supports(dtype)) {
                    continue;
                }
                pairs++;
                for (int n : LENGTHS) {
                    checkDirect(op, dtype, n, rnd);
                }
            }
        }
        // 9 ops x 9 dtypes, less AVG/bool, 3 bitwise ops x 4 floating types, PREMUL_SUM x 5 others
        assertEquals(81 - 1 - 12 - 5, pairs);
    }

    @Test
    void everyValidPairMatchesTheReferenceOnThePortablePath() {
        Random rnd = new Random(7);
        for (String opName : OPS) {
            ReduceOp op = ReduceOp.parse(opName);
            for (DType dtype : DType.values()) {
                if (op.supports(dtype)) {
                    for (int n : new int[] {0, 1, 5, 513, 2049}) {
                        checkHeap(op, dtype, n, rnd);
                    }
                }
            }
        }
    }

    @Test
    void viewsAtOddElementOffsetsReduceOnlyTheirElements() {
        Random rnd = new Random(3);
        for (DType dtype : DType.values()) {
            Tensor whole = random(dtype, 3000, rnd);
            Tensor other = random(dtype, 3000, rnd);
            Tensor before = whole.copy();
            try {
                Tensor dst = whole.narrow(13, 2500);
                Tensor src = other.narrow(101, 2500);
                ReduceKernels.reduceInto(ReduceOp.MAX, dst, src);
                Snapshot sb = new Snapshot(before);
                Snapshot so = new Snapshot(other);
                Snapshot sw = new Snapshot(whole);
                for (int i = 0; i < 3000; i++) {
                    if (i < 13 || i >= 13 + 2500) {
                        assertEquals(sb.getDouble(i), sw.getDouble(i), "untouched element " + i);
                    } else {
                        checkElement(ReduceOp.MAX, dtype, sb, i, so, i - 13 + 101, sw, i);
                    }
                }
            } finally {
                whole.release();
                other.release();
                before.release();
            }
        }
    }

    @Test
    void reducingATensorWithItselfAppliesTheOpToEachElementWithItself() {
        Tensor t = Tensor.fromInts(new int[] {1, -2, 3, Integer.MAX_VALUE});
        try {
            ReduceKernels.reduceInto(ReduceOp.SUM, t, t);
            assertEquals(List.of(2, -4, 6, -2), boxed(t.toIntArray()));
        } finally {
            t.release();
        }
    }

    private static void checkDirect(ReduceOp op, DType dtype, int n, Random rnd) {
        Tensor a = random(dtype, n, rnd);
        Tensor b = random(dtype, n, rnd);
        Tensor a0 = a.copy();
        try {
            ReduceKernels.reduceInto(op, a, b);
            Snapshot sa0 = new Snapshot(a0);
            Snapshot sb = new Snapshot(b);
            Snapshot out = new Snapshot(a);
            for (int i = 0; i < n; i++) {
                checkElement(op, dtype, sa0, sb, i, out, i);
            }
        } finally {
            a.release();
            b.release();
            a0.release();
        }
    }

    private static void checkHeap(ReduceOp op, DType dtype, int n, Random rnd) {
        Tensor a = random(dtype, n, rnd);
        Tensor b = random(dtype, n, rnd);
        int size = dtype.byteSize();
        ByteBuf ha = Unpooled.buffer(3 + n * size);
        ByteBuf hb = Unpooled.buffer(5 + n * size);
        try {
            ha.setBytes(3, a.buffer(), 0, n * size);
            hb.setBytes(5, b.buffer(), 0, n * size);
            assertTrue(!ha.hasMemoryAddress() || !ha.isDirect(), "expected a heap buffer");
            ReduceKernels.reduceInto(op, dtype, ha, 3, hb, 5, n);
            // the fast path on the direct tensors must give the same bytes as the portable path
            ReduceKernels.reduceInto(op, a, b);
            byte[] portable = new byte[n * size];
            ha.getBytes(3, portable);
            assertTrue(java.util.Arrays.equals(portable, a.toByteArray()),
                    () -> op + " on " + dtype + " n=" + n + ": the portable path differs from the fast path");
        } finally {
            ha.release();
            hb.release();
            a.release();
            b.release();
        }
    }

    // ------------------------------------------------------------------ edge cases

    @Test
    void minAndMaxPropagateNaNFromEitherSide() {
        for (DType dtype : new DType[] {DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64}) {
            for (ReduceOp op : new ReduceOp[] {ReduceOp.MIN, ReduceOp.MAX}) {
                double nan = Double.NaN;
                double[] x = {nan, 1, nan, -0.0, 2, Double.NEGATIVE_INFINITY};
                double[] y = {1, nan, nan, 0.0, 2, 3};
                Tensor a = Tensor.fromDoubles(dtype, x);
                Tensor b = Tensor.fromDoubles(dtype, y);
                try {
                    ReduceKernels.reduceInto(op, a, b);
                    for (int i = 0; i < 3; i++) {
                        assertTrue(Double.isNaN(a.getDouble(i)), op + " " + dtype + " element " + i + " must be NaN");
                    }
                    boolean min = op == ReduceOp.MIN;
                    // -0.0 orders below 0.0
                    assertEquals(min ? Double.doubleToRawLongBits(-0.0) : 0L, Double.doubleToRawLongBits(a.getDouble(3)));
                    assertEquals(2.0, a.getDouble(4));
                    assertEquals(min ? Double.NEGATIVE_INFINITY : 3.0, a.getDouble(5));
                } finally {
                    a.release();
                    b.release();
                }
            }
        }
    }

    @Test
    void sumsOfInfinitiesFollowIeee() {
        for (DType dtype : new DType[] {DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64}) {
            double inf = Double.POSITIVE_INFINITY;
            Tensor a = Tensor.fromDoubles(dtype, new double[] {inf, inf, -inf, Double.NaN});
            Tensor b = Tensor.fromDoubles(dtype, new double[] {1, -inf, -inf, 1});
            try {
                ReduceKernels.reduceInto(ReduceOp.SUM, a, b);
                assertEquals(inf, a.getDouble(0));
                assertTrue(Double.isNaN(a.getDouble(1)), "inf + -inf is NaN");
                assertEquals(-inf, a.getDouble(2));
                assertTrue(Double.isNaN(a.getDouble(3)), "NaN + 1 is NaN");
            } finally {
                a.release();
                b.release();
            }
        }
    }

    @Test
    void integerOverflowWraps() {
        Tensor i32 = Tensor.fromInts(new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE, 65536});
        Tensor j32 = Tensor.fromInts(new int[] {1, -1, 65536});
        Tensor i64 = Tensor.fromLongs(new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        Tensor j64 = Tensor.fromLongs(new long[] {1, -1});
        Tensor p32 = Tensor.fromInts(new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE, 65536});
        try {
            ReduceKernels.reduceInto(ReduceOp.SUM, i32, j32);
            ReduceKernels.reduceInto(ReduceOp.SUM, i64, j64);
            ReduceKernels.reduceInto(ReduceOp.PRODUCT, p32, j32);
            assertEquals(List.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 131072), boxed(i32.toIntArray()));
            assertEquals(Long.MIN_VALUE, i64.toLongArray()[0]);
            assertEquals(Long.MAX_VALUE, i64.toLongArray()[1]);
            // MAX * 1, MIN * -1 wraps to MIN, 2^16 * 2^16 wraps to 0
            assertEquals(List.of(Integer.MAX_VALUE, Integer.MIN_VALUE, 0), boxed(p32.toIntArray()));
        } finally {
            i32.release();
            j32.release();
            i64.release();
            j64.release();
            p32.release();
        }
    }

    @Test
    void uint8IsUnsignedAndWraps() {
        Tensor a = Tensor.fromBytes(DType.UINT8, new byte[] {(byte) 200, (byte) 255, 16, (byte) 128});
        Tensor b = Tensor.fromBytes(DType.UINT8, new byte[] {100, 1, 16, 127});
        Tensor c = Tensor.fromBytes(DType.UINT8, new byte[] {(byte) 200, (byte) 255, 16, (byte) 128});
        Tensor d = Tensor.fromBytes(DType.UINT8, new byte[] {(byte) 200, (byte) 255, 16, (byte) 128});
        Tensor e = Tensor.fromBytes(DType.INT8, new byte[] {127, -128, 16, -1});
        Tensor f = Tensor.fromBytes(DType.INT8, new byte[] {1, -1, 16, 1});
        try {
            ReduceKernels.reduceInto(ReduceOp.SUM, a, b);
            assertEquals(List.of(44.0, 0.0, 32.0, 255.0), boxed(a.toDoubleArray()));
            ReduceKernels.reduceInto(ReduceOp.MAX, c, b);
            assertEquals(List.of(200.0, 255.0, 16.0, 128.0), boxed(c.toDoubleArray()));
            ReduceKernels.reduceInto(ReduceOp.MIN, d, b);
            assertEquals(List.of(100.0, 1.0, 16.0, 127.0), boxed(d.toDoubleArray()));
            ReduceKernels.reduceInto(ReduceOp.SUM, e, f);
            assertEquals(List.of(-128.0, 127.0, 32.0, 0.0), boxed(e.toDoubleArray()));
        } finally {
            a.release();
            b.release();
            c.release();
            d.release();
            e.release();
            f.release();
        }
    }

    @Test
    void boolOpsAreLogicalAndGiveZeroOrOne() {
        // every combination of false, true, and a non-canonical true byte (2)
        byte[] x = {0, 0, 1, 1, 0, 2, 2, 1, 2};
        byte[] y = {0, 1, 0, 1, 2, 0, 2, 2, 1};
        for (String opName : new String[] {"sum", "product", "min", "max", "band", "bor", "bxor"}) {
            ReduceOp op = ReduceOp.parse(opName);
            Tensor a = Tensor.zeros(DType.BOOL, x.length);
            Tensor b = Tensor.zeros(DType.BOOL, y.length);
            try {
                a.buffer().setBytes(0, x);
                b.buffer().setBytes(0, y);
                ReduceKernels.reduceInto(op, a, b);
                for (int i = 0; i < x.length; i++) {
                    boolean p = x[i] != 0;
                    boolean q = y[i] != 0;
                    boolean want;
                    switch (opName) {
                        case "sum": case "max": case "bor": want = p || q; break;
                        case "bxor": want = p != q; break;
                        default: want = p && q; break;
                    }
                    assertEquals(want ? 1 : 0, a.buffer().getByte(i), opName + "(" + x[i] + ", " + y[i] + ")");
                }
            } finally {
                a.release();
                b.release();
            }
        }
    }

    @Test
    void halfPrecisionSumsRoundTiesToEven() {
        // float16: ulp(1) = 2^-10, so 2^-11 is half an ulp; bfloat16: ulp(1) = 2^-7
        double h = Math.scalb(1.0, -11);
        double hb = Math.scalb(1.0, -8);
        Tensor f16a = Tensor.fromDoubles(DType.FLOAT16, new double[] {1.0, 1 + 2 * h, 1.0, 65504, 65504});
        Tensor f16b = Tensor.fromDoubles(DType.FLOAT16, new double[] {h, h, h * (1 + Math.scalb(1.0, -10)), 16, 15});
        Tensor bfa = Tensor.fromDoubles(DType.BFLOAT16, new double[] {1.0, 1 + 2 * hb, 3.3895313892515355e38});
        Tensor bfb = Tensor.fromDoubles(DType.BFLOAT16, new double[] {hb, hb, 3.3895313892515355e38});
        try {
            ReduceKernels.reduceInto(ReduceOp.SUM, f16a, f16b);
            assertEquals(1.0, f16a.getDouble(0), "1 + half ulp ties to even (1)");
            assertEquals(1 + 4 * h, f16a.getDouble(1), "(1 + ulp) + half ulp ties to even (1 + 2 ulp)");
            assertEquals(1 + 2 * h, f16a.getDouble(2), "just above the tie rounds up");
            assertEquals(Double.POSITIVE_INFINITY, f16a.getDouble(3), "65504 + 16 (the tie with 65536) rounds to infinity");
            assertEquals(65504.0, f16a.getDouble(4), "65504 + 15 stays finite");
            ReduceKernels.reduceInto(ReduceOp.SUM, bfa, bfb);
            assertEquals(1.0, bfa.getDouble(0));
            assertEquals(1 + 4 * hb, bfa.getDouble(1));
            assertEquals(Double.POSITIVE_INFINITY, bfa.getDouble(2), "max bfloat16 doubled overflows");
        } finally {
            f16a.release();
            f16b.release();
            bfa.release();
            bfb.release();
        }
    }

    // ------------------------------------------------------------------ invalid input

    @Test
    void invalidPairsAreRejectedNamingOpAndDtype() {
        int rejected = 0;
        for (String opName : OPS) {
            ReduceOp op = ReduceOp.parse(opName);
            for (DType dtype : DType.values()) {
                if (op.supports(dtype)) {
                    continue;
                }
                rejected++;
                Tensor a = Tensor.zeros(dtype, 4);
                Tensor b = Tensor.zeros(dtype, 4);
                try {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> ReduceKernels.reduceInto(op, a, b));
                    String kindName = op.kind().name();
                    assertTrue(e.getMessage().contains(kindName) && e.getMessage().contains(dtype.toString()),
                            "message names op and dtype: " + e.getMessage());
                    assertThrows(IllegalArgumentException.class,
                            () -> ReduceKernels.reduceInto(op, dtype, a.buffer(), 0, b.buffer(), 0, 4));
                    assertThrows(IllegalArgumentException.class, () -> ReduceKernels.preprocess(op, a));
                    assertThrows(IllegalArgumentException.class, () -> ReduceKernels.postprocess(op, a, 2));
                } finally {
                    a.release();
                    b.release();
                }
            }
        }
        assertEquals(18, rejected);
    }

    @Test
    void badRangesAndReleasedBuffersAreRejected() {
        Tensor a = Tensor.zeros(DType.FLOAT32, 8);
        Tensor b = Tensor.zeros(DType.FLOAT32, 8);
        Tensor c = Tensor.zeros(DType.FLOAT32, 9);
        Tensor i = Tensor.zeros(DType.INT32, 8);
        try {
            assertThrows(IndexOutOfBoundsException.class,
                    () -> ReduceKernels.reduceInto(ReduceOp.SUM, DType.FLOAT32, a.buffer(), 4, b.buffer(), 0, 8));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> ReduceKernels.reduceInto(ReduceOp.SUM, DType.FLOAT32, a.buffer(), 0, b.buffer(), -4, 1));
            assertThrows(IllegalArgumentException.class,
                    () -> ReduceKernels.reduceInto(ReduceOp.SUM, DType.FLOAT32, a.buffer(), 0, b.buffer(), 0, -1));
            assertThrows(IllegalArgumentException.class, () -> ReduceKernels.reduceInto(ReduceOp.SUM, a, c));
            assertThrows(IllegalArgumentException.class, () -> ReduceKernels.reduceInto(ReduceOp.SUM, a, i));
            assertThrows(IllegalArgumentException.class, () -> ReduceKernels.postprocess(ReduceOp.AVG, a, 0));
        } finally {
            b.release();
            c.release();
            i.release();
        }
        ByteBuf released = a.buffer();
        a.release();
        Tensor d = Tensor.zeros(DType.FLOAT32, 8);
        try {
            assertThrows(IllegalReferenceCountException.class,
                    () -> ReduceKernels.reduceInto(ReduceOp.SUM, DType.FLOAT32, released, 0, d.buffer(), 0, 8));
        } finally {
            d.release();
        }
    }

    // ------------------------------------------------------------------ pre/post-processing

    @Test
    void premulSumMultipliesEachFloatingTypeByItsFactor() {
        Random rnd = new Random(11);
        double factor = 0.3;
        ReduceOp op = ReduceOp.premulSum(factor);
        for (DType dtype : new DType[] {DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64}) {
            Tensor t = random(dtype, 1500, rnd);
            Tensor before = t.copy();
            try {
                ReduceKernels.preprocess(op, t);
                for (int i = 0; i < 1500; i++) {
                    double x = before.getDouble(i);
                    double want = x == 0 ? x * factor : dtype == DType.FLOAT64
                            ? new BigDecimal(x).multiply(new BigDecimal(factor)).doubleValue()
                            : roundTo(dtype, new BigDecimal(x).multiply(new BigDecimal((float) factor)));
                    assertSameValue(dtype, want, t.getDouble(i), "premul " + dtype + " element " + i + " of " + x);
                }
            } finally {
                t.release();
                before.release();
            }
        }
        // the other ops do not touch the input
        Tensor t = Tensor.fromInts(new int[] {3, 5});
        try {
            ReduceKernels.preprocess(ReduceOp.AVG, t);
            ReduceKernels.preprocess(ReduceOp.SUM, t);
            assertEquals(List.of(3, 5), boxed(t.toIntArray()));
        } finally {
            t.release();
        }
    }

    @Test
    void avgDividesByWorldSizeTruncatingIntegersTowardZero() {
        Random rnd = new Random(5);
        int world = 3;
        for (DType dtype : DType.values()) {
            if (dtype == DType.BOOL) {
                continue;
            }
            for (int n : new int[] {0, 1, 1000}) {
                Tensor t = random(dtype, n, rnd);
                Tensor before = t.copy();
                try {
                    ReduceKernels.postprocess(ReduceOp.AVG, t, world);
                    for (int i = 0; i < n; i++) {
                        double x = before.getDouble(i);
                        double got = t.getDouble(i);
                        if (dtype.isInteger()) {
                            BigInteger q = BigInteger.valueOf(before.getLong(i)).divide(BigInteger.valueOf(world));
                            assertEquals(q.longValue(), t.getLong(i), dtype + " " + x + " / 3");
                        } else {
                            assertCorrectlyRoundedQuotient(dtype, x, world, got);
                        }
                    }
                } finally {
                    t.release();
                    before.release();
                }
            }
        }
        Tensor u = Tensor.fromBytes(DType.UINT8, new byte[] {(byte) 200, (byte) 255});
        Tensor s = Tensor.fromInts(new int[] {-7, 7, Integer.MIN_VALUE});
        Tensor keep = Tensor.fromInts(new int[] {-7, 7});
        try {
            ReduceKernels.postprocess(ReduceOp.AVG, u, 3);
            ReduceKernels.postprocess(ReduceOp.AVG, s, 2);
            ReduceKernels.postprocess(ReduceOp.SUM, keep, 2);
            assertEquals(List.of(66.0, 85.0), boxed(u.toDoubleArray()));
            assertEquals(List.of(-3, 3, Integer.MIN_VALUE / 2), boxed(s.toIntArray()));
            assertEquals(List.of(-7, 7), boxed(keep.toIntArray()));
        } finally {
            u.release();
            s.release();
            keep.release();
        }
    }

    // ------------------------------------------------------------------ allocation

    @Test
    void reductionAllocatesNothingPerCall() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Tensor a = Tensor.zeros(DType.FLOAT32, 100_000);
        Tensor b = Tensor.zeros(DType.FLOAT32, 100_000);
        Tensor c = Tensor.zeros(DType.FLOAT16, 1000);
        try {
            for (int i = 0; i < 200; i++) {
                ReduceKernels.reduceInto(ReduceOp.SUM, a, b);
                ReduceKernels.reduceInto(ReduceOp.MAX, c, c);
                ReduceKernels.postprocess(ReduceOp.AVG, a, 2);
            }
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1000; i++) {
                ReduceKernels.reduceInto(ReduceOp.SUM, a, b);
                ReduceKernels.reduceInto(ReduceOp.MAX, c, c);
                ReduceKernels.postprocess(ReduceOp.AVG, a, 2);
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            // 3000 calls: anything per call would be at least 48 KB
            assertTrue(allocated < 1024, "kernels allocated " + allocated + " bytes in 3000 calls");
        } finally {
            a.release();
            b.release();
            c.release();
        }
    }

    // ------------------------------------------------------------------ reference

    /** Random elements: full-range bit patterns for integers; for floats a mix of magnitudes, zeros and signed zeros. */
    static Tensor random(DType dtype, int n, Random rnd) {
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(n * dtype.byteSize()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            switch (dtype) {
                case BOOL:
                    bytes.put((byte) (rnd.nextInt(4) == 0 ? 1 : 0));
                    break;
                case UINT8:
                case INT8:
                    bytes.put((byte) rnd.nextInt());
                    break;
                case INT32:
                    bytes.putInt(rnd.nextInt(8) == 0 ? rnd.nextInt(7) - 3 : rnd.nextInt());
                    break;
                case INT64:
                    bytes.putLong(rnd.nextInt(8) == 0 ? rnd.nextInt(7) - 3 : rnd.nextLong());
                    break;
                default: {
                    int kind = rnd.nextInt(10);
                    double v;
                    if (kind == 0) {
                        v = rnd.nextBoolean() ? 0.0 : -0.0;
                    } else if (kind < 4) {
                        v = rnd.nextInt(41) - 20; // small integers: exact sums, ties and equal elements
                    } else if (kind < 7) {
                        v = (rnd.nextDouble() - 0.5) * 200;
                    } else {
                        // float16 holds magnitudes up to 65504: keep its inputs finite
                        int top = dtype == DType.FLOAT16 ? 15 : 30;
                        v = (rnd.nextDouble() - 0.5) * Math.scalb(1.0, rnd.nextInt(top + 30) - 30);
                    }
                    switch (dtype) {
                        case FLOAT16: bytes.putShort(HalfFloats.floatToHalf((float) v)); break;
                        case BFLOAT16: bytes.putShort(HalfFloats.floatToBfloat16((float) v)); break;
                        case FLOAT32: bytes.putFloat((float) v); break;
                        default: bytes.putDouble(v); break;
                    }
                }
            }
        }
        Tensor t = Tensor.empty(dtype, n);
        t.buffer().setBytes(0, bytes.array());
        return t;
    }

    private static void checkElement(ReduceOp op, DType dtype, Snapshot a, Snapshot b, int i, Snapshot out, int idx) {
        checkElement(op, dtype, a, i, b, i, out, idx);
    }

    /**
     * The elements of a tensor copied once to a heap buffer (element access through the tensor
     * itself is slow under the PARANOID leak detector, which records every access).
     */
    static final class Snapshot {
        final DType dtype;
        final java.nio.ByteBuffer bytes;

        Snapshot(Tensor t) {
            dtype = t.dtype();
            bytes = java.nio.ByteBuffer.wrap(t.toByteArray()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }

        double getDouble(int i) {
            switch (dtype) {
                case BOOL: return bytes.get(i) != 0 ? 1 : 0;
                case FLOAT16: return HalfFloats.halfToFloat(bytes.getShort(2 * i));
                case BFLOAT16: return HalfFloats.bfloat16ToFloat(bytes.getShort(2 * i));
                case FLOAT32: return bytes.getFloat(4 * i);
                case FLOAT64: return bytes.getDouble(8 * i);
                default: return intValue(dtype, this, i);
            }
        }

        byte getByte(int i) {
            return bytes.get(i);
        }
    }

    /** Checks {@code out[idx] == op(a[i], b[j])}. */
    private static void checkElement(ReduceOp op, DType dtype, Snapshot a, int i, Snapshot b, int j, Snapshot out, int idx) {
        Supplier<String> where = () -> op + " on " + dtype + " element " + idx + " of (" + a.getDouble(i) + ", " + b.getDouble(j) + ")";
        if (dtype == DType.BOOL) {
            boolean p = a.getByte(i) != 0;
            boolean q = b.getByte(j) != 0;
            boolean want;
            switch (op.kind()) {
                case SUM: case MAX: case BOR: want = p | q; break;
                case PRODUCT: case MIN: case BAND: want = p & q; break;
                case BXOR: want = p ^ q; break;
                default: throw new AssertionError(op);
            }
            assertEquals(want ? 1 : 0, out.getByte(idx), where);
            return;
        }
        if (dtype.isInteger()) {
            assertEquals(referenceInteger(op, dtype, a, i, b, j), intValue(dtype, out, idx), where);
            return;
        }
        assertSameValue(dtype, referenceFloat(op, a.getDouble(i), b.getDouble(j), dtype), out.getDouble(idx), where);
    }

    /** The reference result of {@code op(a[i], b[j])} for an integer dtype, wrapped to its width. */
    private static long referenceInteger(ReduceOp op, DType dtype, Snapshot a, int i, Snapshot b, int j) {
        {
            BigInteger x = BigInteger.valueOf(intValue(dtype, a, i));
            BigInteger y = BigInteger.valueOf(intValue(dtype, b, j));
            BigInteger r;
            switch (op.kind()) {
                case SUM: case AVG: r = x.add(y); break;
                case PRODUCT: r = x.multiply(y); break;
                case MIN: r = x.min(y); break;
                case MAX: r = x.max(y); break;
                case BAND: r = x.and(y); break;
                case BOR: r = x.or(y); break;
                case BXOR: r = x.xor(y); break;
                default: throw new AssertionError(op);
            }
            return wrap(dtype, r);
        }
    }

    /** The reference result of {@code op(x, y)} for a floating dtype (x and y are elements of it). */
    private static double referenceFloat(ReduceOp op, double x, double y, DType dtype) {
        switch (op.kind()) {
            case MIN:
            case MAX: {
                if (Double.isNaN(x) || Double.isNaN(y)) {
                    return Double.NaN;
                }
                int c = new BigDecimal(x).compareTo(new BigDecimal(y));
                boolean min = op.kind() == ReduceOp.Kind.MIN;
                if (c == 0) {
                    // equal values: only the sign of a zero can differ; -0.0 is the smaller
                    boolean xNeg = Double.doubleToRawLongBits(x) < 0;
                    return min == xNeg ? x : y;
                }
                return (c < 0) == min ? x : y;
            }
            case SUM:
            case AVG:
            case PREMUL_SUM: {
                BigDecimal s = new BigDecimal(x).add(new BigDecimal(y));
                if (s.signum() == 0) {
                    // IEEE: the exact zero sum is -0 only when both addends are -0
                    boolean neg = Double.doubleToRawLongBits(x) < 0 && Double.doubleToRawLongBits(y) < 0;
                    return neg ? -0.0 : 0.0;
                }
                return roundTo(dtype, s);
            }
            case PRODUCT: {
                BigDecimal p = new BigDecimal(x).multiply(new BigDecimal(y));
                if (p.signum() == 0) {
                    boolean neg = (Double.doubleToRawLongBits(x) < 0) != (Double.doubleToRawLongBits(y) < 0);
                    return neg ? -0.0 : 0.0;
                }
                double r = roundTo(dtype, p);
                if (r == 0) {
                    // underflow to zero keeps the sign of the exact product
                    return p.signum() < 0 ? -0.0 : 0.0;
                }
                return r;
            }
            default:
                throw new AssertionError(op);
        }
    }

    private static long intValue(DType dtype, Snapshot t, int i) {
        switch (dtype) {
            case UINT8: return t.bytes.get(i) & 0xff;
            case INT8: return t.bytes.get(i);
            case INT32: return t.bytes.getInt(4 * i);
            case INT64: return t.bytes.getLong(8 * i);
            default: throw new AssertionError(dtype);
        }
    }

    /** The low bits of {@code r} as the dtype holds them (two's complement wrap, UINT8 unsigned). */
    private static long wrap(DType dtype, BigInteger r) {
        switch (dtype) {
            case UINT8: return r.intValue() & 0xff;
            case INT8: return (byte) r.intValue();
            case INT32: return r.intValue();
            case INT64: return r.longValue();
            default: throw new AssertionError(dtype);
        }
    }

    /** An exact value rounded to nearest-even in the dtype (16-bit floats: to float32 first, as the kernels compute). */
    static double roundTo(DType dtype, BigDecimal exact) {
        switch (dtype) {
            case FLOAT64: return exact.doubleValue();
            case FLOAT32: return exact.floatValue();
            case FLOAT16: return roundToFormat(exact.floatValue(), 10, -14, 15);
            case BFLOAT16: return roundToFormat(exact.floatValue(), 7, -126, 127);
            default: throw new AssertionError(dtype);
        }
    }

    /**
     * Rounds {@code v} to nearest-even in a binary format with {@code mantBits} fraction bits and
     * exponents {@code [minExp, maxExp]} (subnormals below 2^minExp); overflow gives infinity.
     */
    static double roundToFormat(double v, int mantBits, int minExp, int maxExp) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
            return v;
        }
        int e = Math.max(Math.getExponent(v), minExp);
        double quantum = Math.scalb(1.0, e - mantBits);
        double r = Math.rint(v / quantum) * quantum; // exact scaling; rint ties to even
        if (Math.abs(r) >= Math.scalb(1.0, maxExp + 1)) {
            return Math.copySign(Double.POSITIVE_INFINITY, v);
        }
        return r == 0 ? Math.copySign(0.0, v) : r;
    }

    private static void assertCorrectlyRoundedQuotient(DType dtype, double x, int n, double got) {
        if (x == 0) {
            assertEquals(Double.doubleToRawLongBits(x), Double.doubleToRawLongBits(got), dtype + " 0 / n keeps the sign");
            return;
        }
        BigDecimal exact = new BigDecimal(x).divide(new BigDecimal(n), MathContext.DECIMAL128);
        double want = roundTo(dtype, exact);
        if (want != got) {
            // DECIMAL128 cut the quotient: accept only a result within half an ulp of the exact quotient
            BigDecimal err = new BigDecimal(got).multiply(new BigDecimal(n)).subtract(new BigDecimal(x)).abs();
            BigDecimal halfUlp = new BigDecimal(ulp(dtype, got)).multiply(new BigDecimal(n)).divide(new BigDecimal(2));
            assertTrue(err.compareTo(halfUlp) <= 0, dtype + " " + x + " / " + n + " gave " + got + ", expected " + want);
        }
    }

    private static double ulp(DType dtype, double v) {
        switch (dtype) {
            case FLOAT64: return Math.ulp(v);
            case FLOAT32: return Math.ulp((float) v);
            case FLOAT16: return Math.scalb(1.0, Math.max(Math.getExponent(v), -14) - 10);
            default: return Math.scalb(1.0, Math.max(Math.getExponent(v), -126) - 7);
        }
    }

    private static void assertSameValue(DType dtype, double want, double got, String where) {
        assertSameValue(dtype, want, got, () -> where);
    }

    private static void assertSameValue(DType dtype, double want, double got, Supplier<String> where) {
        if (Double.isNaN(want)) {
            if (!Double.isNaN(got)) {
                fail(where.get() + ": expected NaN, got " + got);
            }
            return;
        }
        if (Double.compare(want, got) != 0) {
            fail(where.get() + ": expected " + want + ", got " + got);
        }
    }

    private static List<Object> boxed(Object array) {
        List<Object> out = new ArrayList<>();
        int n = java.lang.reflect.Array.getLength(array);
        for (int i = 0; i < n; i++) {
            out.add(java.lang.reflect.Array.get(array, i));
        }
        return out;
    }
}
