package io.reactivecollectives.transport.shm;

import java.util.Arrays;

/**
 * Thread placement on Linux ({@code sched_getaffinity}/{@code sched_setaffinity} for the calling
 * thread), from the shared memory's JNI library ({@link ShmNativeLibrary}, {@code librc_shm.so}).
 *
 * <p>Used by the shared-memory transport to keep each local rank's polling thread on its own
 * processor, as Open MPI binds its ranks to cores by default: two polling threads that the kernel's
 * scheduler put on one processor take turns through futex wake-ups instead of passing messages
 * through a cache line. Available only where the native
 * library is ({@link #isAvailable()}); without it threads are left where the scheduler puts them.
 */
final class NativeAffinity {

    private static volatile Boolean available;

    private NativeAffinity() {
    }

    /**
     * Whether thread placement can be used: the native library is loaded (this loads it, blocking,
     * on the first call) and has these entry points.
     *
     * @return whether {@link #allowedCpus()} and {@link #bindCurrentThread(int)} work
     */
    static boolean isAvailable() {
        Boolean a = available;
        if (a == null) {
            available = a = ShmNativeLibrary.SHARED.has(NativeAffinity::affinityAbi0);
        }
        return a;
    }

    /**
     * The processors the calling thread may run on (its affinity mask: all of the machine's, or
     * the container's or {@code taskset}'s set), in increasing order.
     *
     * @return their numbers; empty when unavailable or the call failed
     */
    static int[] allowedCpus() {
        if (!isAvailable()) {
            return new int[0];
        }
        int[] cpus = new int[Math.max(8, Runtime.getRuntime().availableProcessors())];
        int n = allowedCpus0(cpus);
        if (n > cpus.length) {
            cpus = new int[n];
            n = allowedCpus0(cpus);
        }
        return n <= 0 ? new int[0] : Arrays.copyOf(cpus, Math.min(n, cpus.length));
    }

    /**
     * Binds the calling thread to processor {@code cpu} (only that one, from now on).
     *
     * @param cpu a processor number, one of {@link #allowedCpus()}
     * @return 0 on success, else the system's error number (e.g. 22, EINVAL, for a processor the
     *     thread may not use); -1 when unavailable
     */
    static int bindCurrentThread(int cpu) {
        if (!isAvailable()) {
            return -1;
        }
        return bindThisThread0(cpu);
    }

    /**
     * Why {@link #isAvailable()} is false, or an empty string when it is true.
     *
     * @return the reason
     */
    static String unavailableReason() {
        return isAvailable() ? "" : ShmNativeLibrary.SHARED.reasonWithout("the thread placement entry points");
    }

    private static native int affinityAbi0();

    private static native int allowedCpus0(int[] out);

    private static native int bindThisThread0(int cpu);
}
