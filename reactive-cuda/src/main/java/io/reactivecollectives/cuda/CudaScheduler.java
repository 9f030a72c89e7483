package io.reactivecollectives.cuda;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The bounded scheduler on which this module waits for CUDA: event synchronisation after copies,
 * {@code cudaFree}, {@code cudaHostAlloc} and {@code cudaFreeHost} (which synchronise the device).
 * A {@code boundedElastic} scheduler named {@code rc-cuda} with a small thread cap (8, or the
 * system property {@code rc.cuda.threads}), daemon threads; never an event loop or a parallel
 * thread, so BlockHound lets it wait.
 */
public final class CudaScheduler {

    private CudaScheduler() {
    }

    /** Thread cap of the scheduler. */
    public static final int THREADS = Math.max(1, Integer.getInteger("rc.cuda.threads", 8));

    private static final class Holder {
        static final Scheduler SCHEDULER = Schedulers.newBoundedElastic(THREADS, 100_000, "rc-cuda", 60, true);
    }

    /** The shared scheduler (created on first use, lives as long as the JVM). */
    public static Scheduler get() {
        return Holder.SCHEDULER;
    }

    /** True when the calling thread belongs to this scheduler. */
    public static boolean isCurrentThread() {
        return Thread.currentThread().getName().startsWith("rc-cuda-");
    }
}
