package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.settings.CoreSettings;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Block copies between off-heap memory and Java arrays through {@code java.lang.foreign} (JDK 22
 * and later), the fast path of {@link ReduceKernels} there: what {@link UnsafeMemory} does on
 * JDK 17 to 21, without {@code sun.misc.Unsafe} (whose memory access methods print a warning on
 * JDK 24 and later and are to be removed).
 *
 * <p>The library is compiled for JDK 17, so the API is reached through method handles, each bound
 * to a segment over all of memory and to the layout of its array type; they are constants, so the
 * JIT compiles a call to a plain {@code MemorySegment.copy}. Making that segment calls the
 * restricted method {@code MemorySegment.reinterpret}: the JVM prints a one-time warning for the
 * library's module unless it is started with {@code --enable-native-access=ALL-UNNAMED} (or the
 * module's name); loading the native kernels ({@code System.load}) asks for the same flag.
 *
 * <p>{@link #AVAILABLE} is false, and {@link Memory} tries {@link UnsafeMemory}, on JDK 21 and
 * earlier, where native access is denied ({@code --illegal-native-access=deny}), on big-endian
 * platforms, or with {@code -Dio.reactivecollectives.kernels.portable=true}.
 */
final class ForeignCopies {

    static final boolean AVAILABLE;

    private static final MethodHandle TO_BYTES;
    private static final MethodHandle TO_SHORTS;
    private static final MethodHandle TO_INTS;
    private static final MethodHandle TO_LONGS;
    private static final MethodHandle TO_FLOATS;
    private static final MethodHandle TO_DOUBLES;
    private static final MethodHandle FROM_BYTES;
    private static final MethodHandle FROM_SHORTS;
    private static final MethodHandle FROM_INTS;
    private static final MethodHandle FROM_LONGS;
    private static final MethodHandle FROM_FLOATS;
    private static final MethodHandle FROM_DOUBLES;
    private static final MethodHandle COPY;

    static {
        MethodHandle[] h = handles();
        boolean ok = h != null;
        AVAILABLE = ok;
        MethodHandle[] v = ok ? h : new MethodHandle[13];
        TO_BYTES = v[0];
        TO_SHORTS = v[1];
        TO_INTS = v[2];
        TO_LONGS = v[3];
        TO_FLOATS = v[4];
        TO_DOUBLES = v[5];
        FROM_BYTES = v[6];
        FROM_SHORTS = v[7];
        FROM_INTS = v[8];
        FROM_LONGS = v[9];
        FROM_FLOATS = v[10];
        FROM_DOUBLES = v[11];
        COPY = v[12];
    }

    private ForeignCopies() {
    }

    /**
     * The handles: to array (address, array, count) for byte, short, int, long, float, double; from
     * array (array, address, count) in the same order; copy (from, to, bytes). Null where the JDK
     * has no {@code java.lang.foreign} (or the fast path is turned off).
     */
    private static MethodHandle[] handles() {
        if (Runtime.version().feature() < 22 || CoreSettings.KERNELS_PORTABLE.get()
                || ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            return null;
        }
        try {
            Class<?> seg = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
            // this class's own lookup: reinterpret is caller-sensitive (restricted), a public lookup cannot find it
            MethodHandles.Lookup l = MethodHandles.lookup();
            Object nul = l.findStaticGetter(seg, "NULL", seg).invoke();
            Object all = l.findVirtual(seg, "reinterpret", MethodType.methodType(seg, long.class))
                    .invoke(nul, Long.MAX_VALUE);  // restricted: every address, no bounds of its own
            // copy(MemorySegment src, ValueLayout srcLayout, long srcOffset, Object dstArray, int dstIndex, int count)
            MethodHandle toArray = l.findStatic(seg, "copy", MethodType.methodType(void.class,
                    seg, valueLayout, long.class, Object.class, int.class, int.class));
            // copy(Object srcArray, int srcIndex, MemorySegment dst, ValueLayout dstLayout, long dstOffset, int count)
            MethodHandle fromArray = l.findStatic(seg, "copy", MethodType.methodType(void.class,
                    Object.class, int.class, seg, valueLayout, long.class, int.class));
            // copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes)
            MethodHandle copy = l.findStatic(seg, "copy", MethodType.methodType(void.class,
                    seg, long.class, seg, long.class, long.class));
            String[] layouts = {"JAVA_BYTE", "JAVA_SHORT_UNALIGNED", "JAVA_INT_UNALIGNED", "JAVA_LONG_UNALIGNED",
                "JAVA_FLOAT_UNALIGNED", "JAVA_DOUBLE_UNALIGNED"};
            Class<?>[] arrays = {byte[].class, short[].class, int[].class, long[].class, float[].class, double[].class};
            MethodHandle[] h = new MethodHandle[13];
            for (int i = 0; i < 6; i++) {
                Object layout = valueLayout.getField(layouts[i]).get(null);
                // (long address, T[] array, int count) -> copy(all, layout, address, array, 0, count)
                MethodHandle to = MethodHandles.insertArguments(toArray, 0, all, layout);
                h[i] = MethodHandles.insertArguments(to, 2, 0).asType(MethodType.methodType(void.class, long.class, arrays[i], int.class));
                // (T[] array, long address, int count) -> copy(array, 0, all, layout, address, count)
                MethodHandle from = MethodHandles.insertArguments(fromArray, 1, 0, all, layout);
                h[6 + i] = from.asType(MethodType.methodType(void.class, arrays[i], long.class, int.class));
            }
            // (long from, long to, long bytes) -> copy(all, from, all, to, bytes)
            MethodHandle c = MethodHandles.insertArguments(copy, 2, all);
            h[12] = MethodHandles.insertArguments(c, 0, all);
            // probed on a direct buffer's memory (its address through the unrestricted ofBuffer)
            ByteBuffer probe = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN);
            long address = (long) l.findVirtual(seg, "address", MethodType.methodType(long.class)).invoke(
                    l.findStatic(seg, "ofBuffer", MethodType.methodType(seg, java.nio.Buffer.class)).invoke(probe));
            return probe(h, probe, address) ? h : null;
        } catch (Throwable t) {
            return null;  // no java.lang.foreign, or native access denied (IllegalCallerException)
        }
    }

    /** A round trip array -> native -> native -> array, to find out now whether the handles work. */
    private static boolean probe(MethodHandle[] h, ByteBuffer memory, long address) throws Throwable {
        float[] in = {1.5f, -2.25f};
        float[] out = new float[2];
        h[10].invokeExact(in, address, 2);
        h[12].invokeExact(address, address + 8, 8L);
        h[4].invokeExact(address + 8, out, 2);
        return out[0] == 1.5f && out[1] == -2.25f && memory.getFloat(12) == -2.25f;
    }

    static void toArray(long address, byte[] a, int n) {
        try {
            TO_BYTES.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void toArray(long address, short[] a, int n) {
        try {
            TO_SHORTS.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void toArray(long address, int[] a, int n) {
        try {
            TO_INTS.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void toArray(long address, long[] a, int n) {
        try {
            TO_LONGS.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void toArray(long address, float[] a, int n) {
        try {
            TO_FLOATS.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void toArray(long address, double[] a, int n) {
        try {
            TO_DOUBLES.invokeExact(address, a, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(byte[] a, long address, int n) {
        try {
            FROM_BYTES.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(short[] a, long address, int n) {
        try {
            FROM_SHORTS.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(int[] a, long address, int n) {
        try {
            FROM_INTS.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(long[] a, long address, int n) {
        try {
            FROM_LONGS.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(float[] a, long address, int n) {
        try {
            FROM_FLOATS.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void fromArray(double[] a, long address, int n) {
        try {
            FROM_DOUBLES.invokeExact(a, address, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void copy(long from, long to, long bytes) {
        try {
            COPY.invokeExact(from, to, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new IllegalStateException("memory copy failed", t);
    }
}
