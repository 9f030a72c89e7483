package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The native kernels against the Java kernels, bit for bit, on random bit patterns (every float
 * NaN, infinity, subnormal and signed zero among them), at every misalignment and at lengths around
 * the vector widths; and the loading contract: a build that made the library must load it.
 * (ReduceKernelsTest checks every pair against independent references through
 * {@link ReduceKernels}, which is the native path when the library is loaded.)
 */
class NativeReduceKernelsTest {

    private static final Set<DType> NATIVE_DTYPES =
            EnumSet.complementOf(EnumSet.of(DType.BOOL));

    private static final int[] LENGTHS = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4099};

    @Test
    void theCLibraryNumbersOpsAndDtypesAsTheJavaEnumsDo() {
        // rc_reduce_kernels.c: enum { OP_SUM = 0, ... } and enum { DT_BOOL = 0, ... }
        assertEquals("[SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, PREMUL_SUM]",
                Arrays.toString(ReduceOp.Kind.values()));
        assertEquals("[BOOL, UINT8, INT8, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64]",
                Arrays.toString(Arrays.stream(DType.values()).map(Enum::name).toArray()));
    }

    @Test
    void platformsNameTheLibraryFolders() {
        assertEquals(Optional.of("linux-x86_64"), NativeReduceKernels.platform("Linux", "amd64"));
        assertEquals(Optional.of("linux-x86_64"), NativeReduceKernels.platform("Linux", "x86_64"));
        assertEquals(Optional.of("linux-aarch64"), NativeReduceKernels.platform("Linux", "aarch64"));
        assertEquals(Optional.empty(), NativeReduceKernels.platform("Mac OS X", "aarch64"));
        assertEquals(Optional.empty(), NativeReduceKernels.platform("Linux", "riscv64"));
    }

    @Test
    void aBuildThatMadeTheLibraryLoadsIt() {
        Optional<String> platform = NativeReduceKernels.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        Assumptions.assumeTrue(platform.isPresent(), "no native kernels are built for this platform");
        boolean built = NativeReduceKernels.class.getResource(
                "native/" + platform.get() + "/" + NativeReduceKernels.LIBRARY_FILE) != null;
        Assumptions.assumeTrue(built, "this build made no native library (no C compiler at build time, "
                + "or -Drc.native.skip=true): ReduceKernels runs its Java kernels");
        assertTrue(NativeReduceKernels.isAvailable(),
                () -> "built but not loaded: " + NativeReduceKernels.unavailableReason().orElse("?"));
        assertTrue(ReduceKernels.implementation().startsWith("native (FLOAT16 conversions: "), ReduceKernels.implementation());
    }

    @Test
    void nativeAndJavaKernelsAgreeBitForBitOnEveryPairTheyTake() {
        assumeLoaded();
        Random rnd = new Random(20261123);
        int pairs = 0;
        for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
            for (DType dtype : DType.values()) {
                if (!supports(op, dtype)) {
                    continue;
                }
                boolean taken = false;
                for (int n : LENGTHS) {
                    for (int misalign = 0; misalign < Math.min(dtype.byteSize(), 3) + 1; misalign++) {
                        taken |= compare(op, dtype, n, misalign, false, rnd);
                    }
                }
                assertEquals(NATIVE_DTYPES.contains(dtype), taken, () -> op + " on " + dtype + " taken by native kernels");
                pairs += taken ? 1 : 0;
            }
        }
        // 4 integer types x every op but PREMUL_SUM; 4 float types x SUM, AVG, PRODUCT, MIN, MAX, PREMUL_SUM
        assertEquals(4 * 8 + 4 * 6, pairs);
    }

    @Test
    void everyFloat16ConversionThisCpuHasMatchesTheJavaKernels() {
        assumeLoaded();
        String chosen = NativeReduceKernels.halfConversions();
        Random rnd = new Random(16);
        java.util.List<String> covered = new java.util.ArrayList<>();
        try {
            for (String conversions : new String[] {"portable", "f16c", "avx512f"}) {
                if (!NativeReduceKernels.useHalfConversions(conversions)) {
                    continue;
                }
                covered.add(conversions);
                for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
                    if (supports(op, DType.FLOAT16)) {
                        for (int n : LENGTHS) {
                            assertTrue(compare(op, DType.FLOAT16, n, 1, false, rnd));
                        }
                    }
                }
            }
        } finally {
            assertTrue(NativeReduceKernels.useHalfConversions(chosen));
        }
        System.out.println("FLOAT16 conversions checked: " + covered + " (in use: " + chosen + ")");
        assertTrue(covered.contains("portable") && covered.contains(chosen), covered::toString);
    }

    @Test
    void reducingMemoryWithItselfMatchesTheJavaKernels() {
        assumeLoaded();
        Random rnd = new Random(5);
        for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
            for (DType dtype : NATIVE_DTYPES) {
                if (supports(op, dtype)) {
                    for (int n : new int[] {1, 17, 1000}) {
                        assertTrue(compare(op, dtype, n, 0, true, rnd));
                    }
                }
            }
        }
    }

    @Test
    void pairsLeftToJavaAreLeftUntouched() {
        assumeLoaded();
        ByteBuf d = Unpooled.directBuffer(64).writeZero(64);
        ByteBuf s = Unpooled.directBuffer(64).writeZero(64);
        try {
            s.setByte(0, 1);
            for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
                assertFalse(NativeReduceKernels.reduce(op, DType.BOOL, d.memoryAddress(), s.memoryAddress(), 8), op::toString);
            }
            assertEquals(0, d.getByte(0));
        } finally {
            d.release();
            s.release();
        }
    }

    private static void assumeLoaded() {
        Assumptions.assumeTrue(NativeReduceKernels.isAvailable(),
                () -> "native kernels not in use: " + NativeReduceKernels.unavailableReason().orElse("?"));
    }

    private static boolean supports(ReduceOp.Kind op, DType dtype) {
        return ReduceOp.of(op).supports(dtype);
    }

    /**
     * One (op, dtype, length, misalignment) through both kernels over copies of the same random
     * bytes (with {@code self}, dst and src are one buffer); true when the native kernels took it.
     */
    private static boolean compare(ReduceOp.Kind op, DType dtype, int n, int misalign, boolean self, Random rnd) {
        int es = dtype.byteSize();
        int bytes = n * es;
        byte[] a = new byte[bytes];
        byte[] b = new byte[bytes];
        rnd.nextBytes(a);
        rnd.nextBytes(b);
        plantSpecialValues(dtype, a, b, rnd);
        ByteBuf dn = Unpooled.directBuffer(bytes + 8).writeZero(bytes + 8);
        ByteBuf dj = Unpooled.directBuffer(bytes + 8).writeZero(bytes + 8);
        ByteBuf src = Unpooled.directBuffer(bytes + 8).writeZero(bytes + 8);
        try {
            dn.setBytes(misalign, a);
            dj.setBytes(misalign, a);
            src.setBytes(misalign, b);
            long srcNative = self ? dn.memoryAddress() + misalign : src.memoryAddress() + misalign;
            long srcJava = self ? dj.memoryAddress() + misalign : src.memoryAddress() + misalign;
            boolean taken = NativeReduceKernels.reduce(op, dtype, dn.memoryAddress() + misalign, srcNative, n);
            if (!taken) {
                return false;
            }
            ReduceKernels.javaReduceInto(op, dtype, dj.memoryAddress() + misalign, srcJava, n);
            // read out once: element-wise reads of a tracked buffer are slow under the PARANOID leak detector
            ByteBuf nat = Unpooled.wrappedBuffer(copy(dn));
            ByteBuf java = Unpooled.wrappedBuffer(copy(dj));
            for (int i = 0; i < n; i++) {
                int at = misalign + i * es;
                if (!sameElement(dtype, nat, java, at)) {
                    fail(op + " on " + dtype + ", n=" + n + ", misalign=" + misalign + (self ? ", self" : "")
                            + ": element " + i + " native " + describe(dtype, nat, at) + ", java " + describe(dtype, java, at));
                }
            }
            for (int i = 0; i < misalign; i++) {
                assertEquals(0, nat.getByte(i), "byte before the range written");
            }
            for (int i = misalign + bytes; i < bytes + 8; i++) {
                assertEquals(0, nat.getByte(i), "byte after the range written");
            }
            return true;
        } finally {
            dn.release();
            dj.release();
            src.release();
        }
    }

    private static byte[] copy(ByteBuf buf) {
        byte[] out = new byte[buf.capacity()];
        buf.getBytes(0, out);
        return out;
    }

    /** Zeros of both signs, NaN, infinities and the integer extremes, at random places on both sides. */
    private static void plantSpecialValues(DType dtype, byte[] a, byte[] b, Random rnd) {
        int es = dtype.byteSize();
        int n = a.length / es;
        long[] specials;
        switch (dtype) {
            case FLOAT32:
                specials = new long[] {0, 0x80000000L, 0x7fc00000L, 0x7f800001L, 0x7f800000L, 0xff800000L, 1, 0x3f800000L};
                break;
            case FLOAT64:
                specials = new long[] {0, 0x8000000000000000L, 0x7ff8000000000000L, 0x7ff0000000000001L,
                    0x7ff0000000000000L, 0xfff0000000000000L, 1, 0x3ff0000000000000L};
                break;
            case FLOAT16:  // zeros, quiet and signalling NaN, infinities, smallest subnormal, largest finite, 1
                specials = new long[] {0, 0x8000, 0x7e00, 0x7c01, 0x7c00, 0xfc00, 1, 0x7bff, 0x3c00};
                break;
            case BFLOAT16:
                specials = new long[] {0, 0x8000, 0x7fc0, 0x7f81, 0x7f80, 0xff80, 1, 0x7f7f, 0x3f80};
                break;
            default:
                specials = new long[] {0, 1, -1, (1L << (es * 8 - 1)), (1L << (es * 8 - 1)) - 1};
        }
        for (int k = 0; k < n / 2; k++) {
            put(a, rnd.nextInt(n) * es, es, specials[rnd.nextInt(specials.length)]);
            put(b, rnd.nextInt(n) * es, es, specials[rnd.nextInt(specials.length)]);
        }
    }

    private static void put(byte[] to, int at, int es, long v) {
        for (int i = 0; i < es; i++) {
            to[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private static boolean sameElement(DType dtype, ByteBuf x, ByteBuf y, int at) {
        switch (dtype) {
            case FLOAT32: {
                float p = x.getFloatLE(at);
                float q = y.getFloatLE(at);
                return Float.floatToRawIntBits(p) == Float.floatToRawIntBits(q) || (Float.isNaN(p) && Float.isNaN(q));
            }
            case FLOAT64: {
                double p = x.getDoubleLE(at);
                double q = y.getDoubleLE(at);
                return Double.doubleToRawLongBits(p) == Double.doubleToRawLongBits(q) || (Double.isNaN(p) && Double.isNaN(q));
            }
            case FLOAT16:
            case BFLOAT16: {
                short p = x.getShortLE(at);
                short q = y.getShortLE(at);
                return p == q || (isHalfNaN(dtype, p) && isHalfNaN(dtype, q));
            }
            default:
                for (int i = 0; i < dtype.byteSize(); i++) {
                    if (x.getByte(at + i) != y.getByte(at + i)) {
                        return false;
                    }
                }
                return true;
        }
    }

    private static boolean isHalfNaN(DType dtype, short bits) {
        return dtype == DType.FLOAT16 ? (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0
                : (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    }

    private static String describe(DType dtype, ByteBuf buf, int at) {
        switch (dtype) {
            case FLOAT32:
                return buf.getFloatLE(at) + " (0x" + Integer.toHexString(buf.getIntLE(at)) + ")";
            case FLOAT64:
                return buf.getDoubleLE(at) + " (0x" + Long.toHexString(buf.getLongLE(at)) + ")";
            case INT32:
                return Integer.toString(buf.getIntLE(at));
            case INT64:
                return Long.toString(buf.getLongLE(at));
            case UINT8:
                return Integer.toString(buf.getUnsignedByte(at));
            case FLOAT16:
            case BFLOAT16:
                return "0x" + Integer.toHexString(buf.getUnsignedShortLE(at));
            default:
                return Byte.toString(buf.getByte(at));
        }
    }
}
