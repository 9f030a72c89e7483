package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Java loops generated from {@code src/main/codegen} ({@link FloatLoops}, {@link IntegerLoops}),
 * reached through {@link BlockDrivers} as the kernels reach them, for every (op, dtype) pair the
 * {@link ReduceOp.Kind} and {@link DType} enums allow: a pair without a generated loop fails here
 * (the loops' switch throws), and each result is compared with a plain scalar reference, element by
 * element, on random bit patterns with the edge values mixed in (NaN, infinities, signed zeros,
 * MIN_VALUE/MAX_VALUE). Both ways into the loops are checked: heap buffers (the portable copies)
 * and memory addresses (raw copies, where this JVM has them), over several blocks.
 */
class GeneratedLoopsTest {

    private static final long[] INTEGER_EDGES = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE,
        Integer.MIN_VALUE, Integer.MAX_VALUE, Byte.MIN_VALUE, Byte.MAX_VALUE, 0xff, 0x80, 0x7f};
    private static final double[] FLOAT_EDGES = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        0.0, -0.0, 1.0, -1.0, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, Double.MIN_VALUE, Double.MAX_VALUE};

    private final Random rnd = new Random(43);

    @Test
    void everyPairTheEnumsAllowHasALoopThatMatchesTheScalarReference() {
        List<String> pairs = new ArrayList<>();
        for (ReduceOp.Kind kind : ReduceOp.Kind.values()) {
            for (DType dtype : DType.values()) {
                if (!ReduceOp.of(kind).supports(dtype)) {
                    continue;
                }
                pairs.add(kind + "/" + dtype);
                int n = 3 * BlockDrivers.BLOCK_BYTES / dtype.byteSize() + 5;
                ByteBuf a = randomElements(dtype, n);
                ByteBuf b = randomElements(dtype, n);
                checkHeap(kind, dtype, a, b, n);
                if (Memory.AVAILABLE) {
                    checkAddresses(kind, dtype, a, b, n);
                }
                a.release();
                b.release();
            }
        }
        // 9 kinds x 9 dtypes, less AVG on BOOL, 3 bitwise kinds on 4 floating types, PREMUL_SUM on 5 others
        assertEquals(81 - 1 - 12 - 5, pairs.size(), pairs.toString());
    }

    @Test
    void scalingMatchesTheScalarReferenceForEveryDtypeThatAvgOrPremulSumTakes() {
        for (DType dtype : DType.values()) {
            boolean floating = ReduceOp.premulSum(0.3).supports(dtype);
            if (!ReduceOp.AVG.supports(dtype)) {
                continue;
            }
            int n = 2 * BlockDrivers.BLOCK_BYTES / dtype.byteSize() + 3;
            for (boolean divide : floating ? new boolean[] {true, false} : new boolean[] {true}) {
                double x = divide ? 3 : 0.3;
                ByteBuf a = randomElements(dtype, n);
                ByteBuf got = a.copy();
                BlockDrivers.scaleBlocks(dtype, got, 0, n, x, divide);
                for (int i = 0; i < n; i++) {
                    int at = i * dtype.byteSize();
                    assertSame(dtype, scaled(dtype, bits(dtype, a, at), x, divide), bits(dtype, got, at),
                            () -> (divide ? "divide " : "multiply ") + dtype + " at " + at);
                }
                a.release();
                got.release();
            }
        }
    }

    private void checkHeap(ReduceOp.Kind kind, DType dtype, ByteBuf a, ByteBuf b, int n) {
        ByteBuf got = a.copy();
        BlockDrivers.reduceBlocks(kind, dtype, got, 0, b, 0, n);
        compare(kind, dtype, a, b, got, n, "heap");
        got.release();
    }

    private void checkAddresses(ReduceOp.Kind kind, DType dtype, ByteBuf a, ByteBuf b, int n) {
        ByteBuf got = Unpooled.directBuffer(a.capacity()).writeBytes(a, 0, a.capacity());
        ByteBuf src = Unpooled.directBuffer(b.capacity()).writeBytes(b, 0, b.capacity());
        try {
            assertTrue(got.hasMemoryAddress() && src.hasMemoryAddress(), "direct buffers without an address");
            BlockDrivers.javaReduceBlocks(kind, dtype, got.memoryAddress(), src.memoryAddress(), n);
            compare(kind, dtype, a, b, got, n, "addresses");
        } finally {
            got.release();
            src.release();
        }
    }

    private static void compare(ReduceOp.Kind kind, DType dtype, ByteBuf a, ByteBuf b, ByteBuf got, int n, String path) {
        for (int i = 0; i < n; i++) {
            int at = i * dtype.byteSize();
            long x = bits(dtype, a, at);
            long y = bits(dtype, b, at);
            assertSame(dtype, reference(kind, dtype, x, y), bits(dtype, got, at),
                    () -> kind + " on " + dtype + " (" + path + ") of " + hex(dtype, x) + " and " + hex(dtype, y));
        }
    }

    // ------------------------------------------------------------------ the scalar reference

    /** op(x, y) on the elements' bits (sign-extended integers, raw float bits), as the element's bits. */
    static long reference(ReduceOp.Kind kind, DType dtype, long x, long y) {
        switch (dtype) {
            case BOOL:
                boolean p = x != 0;
                boolean q = y != 0;
                boolean r = kind == ReduceOp.Kind.BXOR ? p ^ q
                        : kind == ReduceOp.Kind.SUM || kind == ReduceOp.Kind.MAX || kind == ReduceOp.Kind.BOR ? p | q : p & q;
                return r ? 1 : 0;
            case UINT8:
                return wrap(dtype, integer(kind, x & 0xff, y & 0xff));
            case INT8:
            case INT32:
            case INT64:
                return wrap(dtype, integer(kind, x, y));
            case FLOAT64:
                return Double.doubleToRawLongBits(floating(kind, Double.longBitsToDouble(x), Double.longBitsToDouble(y)));
            default:
                // FLOAT32, FLOAT16 and BFLOAT16: computed in float32, then rounded to the format
                return fromFloat(dtype, (float) floating(kind, toFloat(dtype, x), toFloat(dtype, y)));
        }
    }

    private static long integer(ReduceOp.Kind kind, long x, long y) {
        switch (kind) {
            case SUM:
            case AVG:
                return x + y;
            case PRODUCT:
                return x * y;
            case MIN:
                return x < y ? x : y;
            case MAX:
                return x > y ? x : y;
            case BAND:
                return x & y;
            case BOR:
                return x | y;
            case BXOR:
                return x ^ y;
            default:
                throw new AssertionError(kind);
        }
    }

    /** In double: exact for float32 operands of SUM, PRODUCT, MIN and MAX before their one rounding to float. */
    private static double floating(ReduceOp.Kind kind, double x, double y) {
        boolean nan = x != x || y != y;
        switch (kind) {
            case SUM:
            case AVG:
            case PREMUL_SUM:
                return x + y;
            case PRODUCT:
                return x * y;
            case MIN:
                return nan ? Double.NaN : x < y || (x == y && 1 / x < 0) ? x : y;
            case MAX:
                return nan ? Double.NaN : x > y || (x == y && 1 / x > 0) ? x : y;
            default:
                throw new AssertionError(kind);
        }
    }

    private static long scaled(DType dtype, long x, double by, boolean divide) {
        switch (dtype) {
            case UINT8:
                return wrap(dtype, (x & 0xff) / (long) by);
            case INT8:
            case INT32:
            case INT64:
                return wrap(dtype, x / (long) by);
            case FLOAT64:
                double d = Double.longBitsToDouble(x);
                return Double.doubleToRawLongBits(divide ? d / by : d * by);
            default:
                float f = toFloat(dtype, x);
                return fromFloat(dtype, divide ? f / (float) by : f * (float) by);
        }
    }

    // ------------------------------------------------------------------ element bits

    private static long wrap(DType dtype, long v) {
        switch (dtype) {
            case UINT8:
            case INT8:
                return (byte) v;
            case INT32:
                return (int) v;
            default:
                return v;
        }
    }

    private static float toFloat(DType dtype, long bits) {
        switch (dtype) {
            case FLOAT16:
                return HalfFloats.halfToFloat((short) bits);
            case BFLOAT16:
                return HalfFloats.bfloat16ToFloat((short) bits);
            default:
                return Float.intBitsToFloat((int) bits);
        }
    }

    private static long fromFloat(DType dtype, float f) {
        switch (dtype) {
            case FLOAT16:
                return HalfFloats.floatToHalf(f);
            case BFLOAT16:
                return HalfFloats.floatToBfloat16(f);
            default:
                return Float.floatToRawIntBits(f);
        }
    }

    /** The element at byte {@code at}: integers sign-extended, floats as their raw bits. */
    private static long bits(DType dtype, ByteBuf buf, int at) {
        switch (dtype.byteSize()) {
            case 1:
                return buf.getByte(at);
            case 2:
                return buf.getShortLE(at);
            case 4:
                return buf.getIntLE(at);
            default:
                return buf.getLongLE(at);
        }
    }

    /** Equal bits, or both NaN (a NaN's payload is not part of the contract). */
    private static void assertSame(DType dtype, long want, long got, Supplier<String> where) {
        if (want == got || (isNaN(dtype, want) && isNaN(dtype, got))) {
            return;
        }
        fail(where.get() + ": expected " + hex(dtype, want) + ", got " + hex(dtype, got));
    }

    private static String hex(DType dtype, long bits) {
        return "0x" + Long.toHexString(dtype.byteSize() == 8 ? bits : bits & ((1L << (8 * dtype.byteSize())) - 1));
    }

    private static boolean isNaN(DType dtype, long bits) {
        switch (dtype) {
            case FLOAT64:
                return Double.isNaN(Double.longBitsToDouble(bits));
            case FLOAT32:
            case FLOAT16:
            case BFLOAT16:
                return Float.isNaN(toFloat(dtype, bits));
            default:
                return false;
        }
    }

    /** Random bit patterns, one element in four an edge value of the dtype. */
    private ByteBuf randomElements(DType dtype, int n) {
        ByteBuf buf = Unpooled.buffer(n * dtype.byteSize());
        for (int i = 0; i < n; i++) {
            long v = rnd.nextLong();
            if (rnd.nextInt(4) == 0) {
                v = edge(dtype);
            }
            switch (dtype.byteSize()) {
                case 1:
                    buf.writeByte((int) v);
                    break;
                case 2:
                    buf.writeShortLE((int) v);
                    break;
                case 4:
                    buf.writeIntLE((int) v);
                    break;
                default:
                    buf.writeLongLE(v);
            }
        }
        return buf;
    }

    private long edge(DType dtype) {
        double f = FLOAT_EDGES[rnd.nextInt(FLOAT_EDGES.length)];
        switch (dtype) {
            case FLOAT64:
                return Double.doubleToRawLongBits(f);
            case FLOAT32:
            case FLOAT16:
            case BFLOAT16:
                return fromFloat(dtype, (float) f);
            default:
                return INTEGER_EDGES[rnd.nextInt(INTEGER_EDGES.length)];
        }
    }
}
