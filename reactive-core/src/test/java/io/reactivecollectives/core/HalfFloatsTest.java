package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link HalfFloats} against an independent decoder (the binary16 / bfloat16 definitions written
 * out) and an independent round-to-nearest-even ({@link ReduceKernelsTest#roundToFormat}).
 */
class HalfFloatsTest {

    /** binary16 by its definition: (-1)^s * 2^(e-15) * 1.m, subnormals 0.m * 2^-14. */
    static double decodeHalf(int bits) {
        int s = (bits >>> 15) & 1;
        int e = (bits >>> 10) & 0x1f;
        int m = bits & 0x3ff;
        double sign = s == 1 ? -1 : 1;
        if (e == 0x1f) {
            return m == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        if (e == 0) {
            return sign * m / 1024.0 * Math.pow(2, -14);
        }
        return sign * (1 + m / 1024.0) * Math.pow(2, e - 15);
    }

    /** bfloat16 by its definition: (-1)^s * 2^(e-127) * 1.m (7 fraction bits), subnormals 0.m * 2^-126. */
    static double decodeBfloat16(int bits) {
        int s = (bits >>> 15) & 1;
        int e = (bits >>> 7) & 0xff;
        int m = bits & 0x7f;
        double sign = s == 1 ? -1 : 1;
        if (e == 0xff) {
            return m == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        if (e == 0) {
            return sign * m / 128.0 * Math.pow(2, -126);
        }
        return sign * (1 + m / 128.0) * Math.pow(2, e - 127);
    }

    @Test
    void everyHalfPatternDecodesExactlyAndRoundTrips() {
        int nans = 0;
        for (int bits = 0; bits < 0x10000; bits++) {
            float f = HalfFloats.halfToFloat((short) bits);
            double want = decodeHalf(bits);
            if (Double.isNaN(want)) {
                nans++;
                assertTrue(Float.isNaN(f), "pattern " + Integer.toHexString(bits) + " is NaN");
                short back = HalfFloats.floatToHalf(f);
                assertTrue(Double.isNaN(decodeHalf(back & 0xffff)), "NaN stays NaN: " + Integer.toHexString(bits));
                assertEquals(bits & 0x8000, back & 0x8000, "NaN keeps its sign");
                continue;
            }
            if (Double.compare(want, f) != 0) {
                fail("half " + Integer.toHexString(bits) + ": expected " + want + ", got " + f);
            }
            assertEquals(bits, HalfFloats.floatToHalf(f) & 0xffff, "round trip of " + Integer.toHexString(bits));
        }
        assertEquals(2 * 1023, nans);
    }

    @Test
    void everyBfloat16PatternDecodesExactlyAndRoundTrips() {
        for (int bits = 0; bits < 0x10000; bits++) {
            float f = HalfFloats.bfloat16ToFloat((short) bits);
            double want = decodeBfloat16(bits);
            if (Double.isNaN(want)) {
                assertTrue(Float.isNaN(f));
                short back = HalfFloats.floatToBfloat16(f);
                assertTrue(Double.isNaN(decodeBfloat16(back & 0xffff)), "NaN stays NaN: " + Integer.toHexString(bits));
                assertEquals(bits & 0x8000, back & 0x8000, "NaN keeps its sign");
                continue;
            }
            if (Double.compare(want, f) != 0) {
                fail("bfloat16 " + Integer.toHexString(bits) + ": expected " + want + ", got " + f);
            }
            assertEquals(bits, HalfFloats.floatToBfloat16(f) & 0xffff, "round trip of " + Integer.toHexString(bits));
        }
    }

    @Test
    void floatToHalfRoundsToNearestEvenAcrossTheFloatRange() {
        // every 1021st float32 pattern, both signs: normals, subnormals, overflow, NaN
        for (long p = 0; p <= 0xffffffffL; p += 1021) {
            checkHalf(Float.intBitsToFloat((int) p));
        }
    }

    @Test
    void floatToHalfAtEveryTieAndItsNeighbours() {
        // the midpoints between consecutive finite halves (exact in float32) and one float ulp either side
        for (int bits = 0; bits < 0x7c00; bits++) {
            double lo = decodeHalf(bits);
            double hi = bits + 1 == 0x7c00 ? 65536.0 : decodeHalf(bits + 1);
            float mid = (float) ((lo + hi) / 2);
            assertEquals((lo + hi) / 2, mid, 0.0, "midpoint exact in float32");
            for (float f : new float[] {mid, Math.nextDown(mid), Math.nextUp(mid)}) {
                checkHalf(f);
                checkHalf(-f);
            }
        }
    }

    @Test
    void floatToBfloat16RoundsToNearestEvenAcrossTheFloatRange() {
        for (long p = 0; p <= 0xffffffffL; p += 1021) {
            checkBfloat16(Float.intBitsToFloat((int) p));
        }
        // ties: the low 16 bits exactly 0x8000, with even and odd kept parts, and their neighbours
        for (int hi = 0; hi < 0x7f80; hi += 3) {
            int tie = (hi << 16) | 0x8000;
            for (int b : new int[] {tie, tie - 1, tie + 1}) {
                checkBfloat16(Float.intBitsToFloat(b));
                checkBfloat16(Float.intBitsToFloat(b | 0x80000000));
            }
        }
    }

    @Test
    void specialValues() {
        // overflow: 65520 is the tie between 65504 and 2^16, which rounds (even) to infinity
        assertEquals(0x7c00, HalfFloats.floatToHalf(65520f) & 0xffff);
        assertEquals(0x7bff, HalfFloats.floatToHalf(Math.nextDown(65520f)) & 0xffff);
        assertEquals(0xfc00, HalfFloats.floatToHalf(-1e10f) & 0xffff);
        assertEquals(0x7c00, HalfFloats.floatToHalf(Float.POSITIVE_INFINITY) & 0xffff);
        // subnormals: 2^-24 is the smallest; 2^-25 ties to 0 (even); 3 * 2^-25 ties to 2^-23 (even)
        assertEquals(0x0001, HalfFloats.floatToHalf(0x1p-24f) & 0xffff);
        assertEquals(0x0000, HalfFloats.floatToHalf(0x1p-25f) & 0xffff);
        assertEquals(0x0001, HalfFloats.floatToHalf(Math.nextUp(0x1p-25f)) & 0xffff);
        assertEquals(0x0002, HalfFloats.floatToHalf(3 * 0x1p-25f) & 0xffff);
        assertEquals(0x8000, HalfFloats.floatToHalf(-0x1p-30f) & 0xffff, "underflow keeps the sign");
        // the largest subnormal rounds up into the smallest normal
        assertEquals(0x0400, HalfFloats.floatToHalf(Math.nextDown(0x1p-14f)) & 0xffff);
        assertTrue(Float.isNaN(HalfFloats.halfToFloat(HalfFloats.floatToHalf(Float.NaN))));
        assertTrue(Float.isNaN(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(Float.NaN))));
        // a NaN whose payload sits only in the low 16 bits must not become infinity in bfloat16
        float lowPayloadNaN = Float.intBitsToFloat(0x7f800001);
        assertTrue(Float.isNaN(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(lowPayloadNaN))));
        assertTrue(Float.isNaN(HalfFloats.halfToFloat(HalfFloats.floatToHalf(lowPayloadNaN))));
        assertEquals(0x7f80, HalfFloats.floatToBfloat16(Float.MAX_VALUE) & 0xffff, "max float rounds to infinity");
        assertEquals(0x8000, HalfFloats.floatToBfloat16(-0.0f) & 0xffff);
    }

    private static void checkHalf(float f) {
        short h = HalfFloats.floatToHalf(f);
        double got = decodeHalf(h & 0xffff);
        if (Float.isNaN(f)) {
            assertTrue(Double.isNaN(got), "NaN " + Integer.toHexString(Float.floatToRawIntBits(f)));
            return;
        }
        double want = ReduceKernelsTest.roundToFormat(f, 10, -14, 15);
        if (Double.compare(want, got) != 0) {
            fail("floatToHalf(" + f + " = 0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + "): expected "
                    + want + ", got " + got);
        }
    }

    private static void checkBfloat16(float f) {
        short h = HalfFloats.floatToBfloat16(f);
        double got = decodeBfloat16(h & 0xffff);
        if (Float.isNaN(f)) {
            assertTrue(Double.isNaN(got), "NaN " + Integer.toHexString(Float.floatToRawIntBits(f)));
            return;
        }
        double want = ReduceKernelsTest.roundToFormat(f, 7, -126, 127);
        if (Double.compare(want, got) != 0) {
            fail("floatToBfloat16(" + f + " = 0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + "): expected "
                    + want + ", got " + got);
        }
    }
}
