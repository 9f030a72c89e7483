package io.reactivecollectives.transport.shm;

import io.reactivecollectives.transport.settings.TransportSettings;

/**
 * Which processor a local rank's polling thread is bound to, as Open MPI binds ranks to cores
 * by default: local rank {@code i} gets the {@code i}-th processor of its allowed set, and with more
 * local ranks than processors the {@code (i mod p)}-th of the {@code p}, so that ranks next to each
 * other (neighbours in a ring) poll on different processors. With
 * {@code -Drc.transport.shmBind=false}, or without the native library, nothing is bound.
 *
 * <p>Why: the scheduler moves a thread that sleeps and wakes often next to the one that woke it.
 * Two pollers that ended up on one processor take turns through futex wake-ups, a context switch
 * or two per message where two processors pass it through a cache line (perf/RESULTS.md, "Small
 * messages, second pass"). With more ranks than processors, unbound pollers keep landing next to
 * the neighbour that woke them; bound apart, each hand-off crosses processors (perf/RESULTS.md,
 * "2026-11-28 (evening)"). Only the polling thread is bound, not the rank's other threads.
 */
final class PollerPlacement {

    /** No processor: leave the thread where the scheduler puts it. */
    static final int NONE = -1;

    private PollerPlacement() {
    }

    /**
     * The processor for local rank {@code local}, or {@link #NONE}.
     *
     * @param local this rank's index among the host's ranks
     * @return a processor number, or {@link #NONE}
     */
    static int cpuFor(int local) {
        String setting = TransportSettings.SHM_BIND.get();
        if (!setting.equals("auto") || !NativeAffinity.isAvailable()) {
            return NONE;
        }
        return cpuFor(local, NativeAffinity.allowedCpus());
    }

    /** {@link #cpuFor(int)} for the allowed set {@code cpus}. */
    static int cpuFor(int local, int[] cpus) {
        if (local < 0 || cpus.length == 0) {
            return NONE;
        }
        return cpus[local % cpus.length];
    }

    /** Binds the calling thread to {@code cpu} unless it is {@link #NONE}; whether it is bound now. */
    static boolean bind(int cpu) {
        return cpu != NONE && NativeAffinity.bindCurrentThread(cpu) == 0;
    }
}
