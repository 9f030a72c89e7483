package io.reactivecollectives.core.kernels;

import java.util.Arrays;

/**
 * Thread placement on Linux ({@code sched_getaffinity}/{@code sched_setaffinity} for the calling
 * thread), from the library of the native reduction kernels ({@link NativeReduceKernels}).
 *
 * <p>Used by the shared-memory transport to keep each local rank's polling thread on its own
 * processor, as Open MPI binds its ranks to cores by default: two polling threads that the kernel's
 * scheduler put on one processor take turns through futex wake-ups instead of passing messages
 * through a cache line. Available only where the native
 * library is ({@link #isAvailable()}); without it threads are left where the scheduler puts them.
 */
public final class NativeAffinity {

    private static volatile Boolean available;

    private NativeAffinity() {
    }

    /**
     * Whether thread placement can be used: the native library is loaded (this loads it, blocking,
     * as {@link ReduceKernels#load()} does) and has these entry points.
     *
     * @return whether {@link #allowedCpus()} and {@link #bindCurrentThread(int)} work
     */
    public static boolean isAvailable() {
        Boolean a = available;
        if (a == null) {
            available = a = NativeEntryPoints.present(NativeAffinity::affinityAbi0);
        }
        return a;
    }

    /**
     * The processors the calling thread may run on (its affinity mask: all of the machine's, or
     * the container's or {@code taskset}'s set), in increasing order.
     *
     * @return their numbers; empty when unavailable or the call failed
     */
    public static int[] allowedCpus() {
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
    public static int bindCurrentThread(int cpu) {
        if (!isAvailable()) {
            return -1;
        }
        return bindThisThread0(cpu);
    }

    private static native int affinityAbi0();

    private static native int allowedCpus0(int[] out);

    private static native int bindThisThread0(int cpu);
}
