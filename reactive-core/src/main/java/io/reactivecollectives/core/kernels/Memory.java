package io.reactivecollectives.core.kernels;

/**
 * The kernels' raw memory copies (between off-heap memory and Java arrays, and within off-heap
 * memory), through {@link ForeignCopies} ({@code java.lang.foreign}) on JDK 22 and later, else
 * through {@link UnsafeMemory} ({@code sun.misc.Unsafe}), which is then not touched on JDK 22+:
 * its memory access methods print a warning there from JDK 24 on. {@link #AVAILABLE} is false
 * when neither works; the kernels then take their portable path.
 */
final class Memory {

    /** Whether {@code java.lang.foreign} does the copies (else {@code sun.misc.Unsafe}). */
    static final boolean FOREIGN = ForeignCopies.AVAILABLE;

    /** Whether raw memory copies work on this JVM (the fast path of the kernels). */
    static final boolean AVAILABLE = FOREIGN || UnsafeMemory.AVAILABLE;

    private Memory() {
    }

    static void toArray(long address, byte[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.BYTE_BASE, n);
        }
    }

    static void toArray(long address, short[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.SHORT_BASE, 2L * n);
        }
    }

    static void toArray(long address, int[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.INT_BASE, 4L * n);
        }
    }

    static void toArray(long address, long[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.LONG_BASE, 8L * n);
        }
    }

    static void toArray(long address, float[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.FLOAT_BASE, 4L * n);
        }
    }

    static void toArray(long address, double[] a, int n) {
        if (FOREIGN) {
            ForeignCopies.toArray(address, a, n);
        } else {
            UnsafeMemory.toArray(address, a, UnsafeMemory.DOUBLE_BASE, 8L * n);
        }
    }

    static void fromArray(byte[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.BYTE_BASE, address, n);
        }
    }

    static void fromArray(short[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.SHORT_BASE, address, 2L * n);
        }
    }

    static void fromArray(int[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.INT_BASE, address, 4L * n);
        }
    }

    static void fromArray(long[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.LONG_BASE, address, 8L * n);
        }
    }

    static void fromArray(float[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.FLOAT_BASE, address, 4L * n);
        }
    }

    static void fromArray(double[] a, long address, int n) {
        if (FOREIGN) {
            ForeignCopies.fromArray(a, address, n);
        } else {
            UnsafeMemory.fromArray(a, UnsafeMemory.DOUBLE_BASE, address, 8L * n);
        }
    }

    /** {@code bytes} bytes from native {@code from} to native {@code to}. */
    static void copy(long from, long to, long bytes) {
        if (FOREIGN) {
            ForeignCopies.copy(from, to, bytes);
        } else {
            UnsafeMemory.copy(from, to, bytes);
        }
    }
}
