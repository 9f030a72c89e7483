package io.reactivecollectives.core;

/**
 * Conversions between float32 and the two 16-bit float formats, rounding to nearest-even as
 * PyTorch does. FLOAT16 is IEEE 754 binary16; BFLOAT16 is the upper 16 bits of a binary32.
 */
public final class HalfFloats {

    private HalfFloats() {
    }

    /**
     * binary16 bits to float32 (exact).
     *
     * @param bits the binary16 bits
     * @return the float
     */
    public static float halfToFloat(short bits) {
        int h = bits & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            if (mant == 0) {
                return Float.intBitsToFloat(sign);
            }
            // subnormal: value = mant * 2^-24
            float v = mant * 0x1p-24f;
            return sign == 0 ? v : -v;
        }
        return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
    }

    /**
     * float32 to binary16 bits, round to nearest-even; overflow gives infinity, NaN stays NaN.
     *
     * @param f the float
     * @return the binary16 bits
     */
    public static short floatToHalf(float f) {
        int x = Float.floatToRawIntBits(f);
        int sign = (x >>> 16) & 0x8000;
        int exp = (x >>> 23) & 0xff;
        int mant = x & 0x7fffff;
        if (exp == 0xff) {
            return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
        }
        int e = exp - 127 + 15;
        if (e >= 0x1f) {
            return (short) (sign | 0x7c00);
        }
        if (e <= 0) {
            if (e < -10) {
                return (short) sign;
            }
            int m = mant | 0x800000;
            int shift = 14 - e;
            int half = m >>> shift;
            int rem = m & ((1 << shift) - 1);
            int mid = 1 << (shift - 1);
            if (rem > mid || (rem == mid && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (e << 10) | (mant >>> 13);
        int rem = mant & 0x1fff;
        if (rem > 0x1000 || (rem == 0x1000 && (half & 1) != 0)) {
            half++; // may carry into the exponent, and up to infinity: both are correct
        }
        return (short) (sign | half);
    }

    /**
     * bfloat16 bits to float32 (exact).
     *
     * @param bits the bfloat16 bits
     * @return the float
     */
    public static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xffff) << 16);
    }

    /**
     * float32 to bfloat16 bits, round to nearest-even; NaN stays a quiet NaN.
     *
     * @param f the float
     * @return the bfloat16 bits
     */
    public static short floatToBfloat16(float f) {
        int x = Float.floatToRawIntBits(f);
        if ((x & 0x7fffffff) > 0x7f800000) {
            return (short) ((x >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((x >>> 16) & 1);
        return (short) ((x + rounding) >>> 16);
    }
}
