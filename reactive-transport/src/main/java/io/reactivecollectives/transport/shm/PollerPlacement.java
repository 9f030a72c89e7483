package io.reactivecollectives.transport.shm;

import io.reactivecollectives.core.kernels.NativeAffinity;

/**
 * Which processor a local rank's polling thread is bound to, as Open MPI binds ranks to cores
 * by default: local rank {@code i} of {@code n} gets the {@code i}-th processor of its allowed set
 * when {@code n} is at most that set's size; with more local ranks than processors (or
 * {@code -Drc.transport.shmBind=false}, or without the native library) nothing is bound.
 *
 * <p>Why: the scheduler moves a thread that sleeps and wakes often next to the one that woke it.
 * Two pollers that ended up on one processor take turns through futex wake-ups, a context switch
 * or two per message where two processors pass it through a cache line (perf/RESULTS.md, "Small
 * messages, second pass"). Only the polling thread is bound, not the rank's other threads.
 */
final class PollerPlacement {

    /** No processor: leave the thread where the scheduler puts it. */
    static final int NONE = -1;

    private PollerPlacement() {
    }

    /**
     * The processor for local rank {@code local} of {@code locals}, or {@link #NONE}.
     *
     * @param local  this rank's index among the host's ranks
     * @param locals how many ranks the host has
     * @return a processor number, or {@link #NONE}
     */
    static int cpuFor(int local, int locals) {
        String setting = System.getProperty("rc.transport.shmBind", "auto");
        if ("false".equalsIgnoreCase(setting) || "off".equalsIgnoreCase(setting) || !NativeAffinity.isAvailable()) {
            return NONE;
        }
        return cpuFor(local, locals, NativeAffinity.allowedCpus());
    }

    /** {@link #cpuFor(int, int)} for the allowed set {@code cpus}. */
    static int cpuFor(int local, int locals, int[] cpus) {
        if (local < 0 || locals > cpus.length) {
            return NONE;
        }
        return cpus[local];
    }

    /** Binds the calling thread to {@code cpu} unless it is {@link #NONE}; whether it is bound now. */
    static boolean bind(int cpu) {
        return cpu != NONE && NativeAffinity.bindCurrentThread(cpu) == 0;
    }
}
