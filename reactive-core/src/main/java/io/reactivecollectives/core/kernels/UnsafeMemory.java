package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.settings.CoreSettings;

import java.lang.reflect.Field;
import java.nio.ByteOrder;

/**
 * Block copies between off-heap memory and Java arrays through {@code sun.misc.Unsafe}
 * (module {@code jdk.unsupported}), the fast path of {@link ReduceKernels} on JDK 17 to 21 (and
 * on later JDKs only where {@link ForeignCopies} does not work: {@link Memory} picks).
 *
 * <p>{@link #AVAILABLE} is false, and the kernels use their portable path, when Unsafe cannot be
 * reached or its memory access is denied ({@code --sun-misc-unsafe-memory-access=deny} on newer
 * JDKs), on big-endian platforms (tensors are little-endian), or with the system property
 * {@code io.reactivecollectives.kernels.portable=true}. Used on JDK 24 or later, the JVM
 * prints a one-time warning about Unsafe memory access unless it is started with
 * {@code --sun-misc-unsafe-memory-access=allow}; results are the same either way.
 */
final class UnsafeMemory {

    static final boolean AVAILABLE;
    static final long BYTE_BASE;
    static final long SHORT_BASE;
    static final long INT_BASE;
    static final long LONG_BASE;
    static final long FLOAT_BASE;
    static final long DOUBLE_BASE;

    @SuppressWarnings("removal")
    private static final sun.misc.Unsafe U;

    static {
        sun.misc.Unsafe u = null;
        long[] bases = new long[6];
        boolean ok = false;
        if (!CoreSettings.KERNELS_PORTABLE.get()
                && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                u = (sun.misc.Unsafe) f.get(null);
                bases[0] = u.arrayBaseOffset(byte[].class);
                bases[1] = u.arrayBaseOffset(short[].class);
                bases[2] = u.arrayBaseOffset(int[].class);
                bases[3] = u.arrayBaseOffset(long[].class);
                bases[4] = u.arrayBaseOffset(float[].class);
                bases[5] = u.arrayBaseOffset(double[].class);
                ok = probe(u, bases[4]);
            } catch (Throwable t) {
                ok = false;
            }
        }
        AVAILABLE = ok;
        U = ok ? u : null;
        BYTE_BASE = bases[0];
        SHORT_BASE = bases[1];
        INT_BASE = bases[2];
        LONG_BASE = bases[3];
        FLOAT_BASE = bases[4];
        DOUBLE_BASE = bases[5];
    }

    private UnsafeMemory() {
    }

    /** A round trip array -> native -> array, to find out now whether memory access is allowed. */
    private static boolean probe(sun.misc.Unsafe u, long floatBase) {
        float[] in = {1.5f, -2.25f};
        float[] out = new float[2];
        long addr = u.allocateMemory(8);
        try {
            u.copyMemory(in, floatBase, null, addr, 8);
            u.copyMemory(null, addr, out, floatBase, 8);
        } finally {
            u.freeMemory(addr);
        }
        return out[0] == 1.5f && out[1] == -2.25f;
    }

    /** {@code bytes} bytes (a block: small) from native {@code address} into {@code array} from {@code base}. */
    static void toArray(long address, Object array, long base, long bytes) {
        U.copyMemory(null, address, array, base, bytes);
    }

    /** {@code bytes} bytes from native {@code from} to native {@code to} (Netty's own Unsafe may be off, as on JDK 24+). */
    static void copy(long from, long to, long bytes) {
        U.copyMemory(from, to, bytes);
    }

    /** {@code bytes} bytes from {@code array} (from {@code base}) to native {@code address}. */
    static void fromArray(Object array, long base, long address, long bytes) {
        U.copyMemory(array, base, null, address, bytes);
    }
}
