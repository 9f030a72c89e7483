package io.reactivecollectives.cuda;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded scheduler on which this module waits for CUDA: event synchronisation after copies,
 * {@code cudaFree}, {@code cudaHostAlloc} and {@code cudaFreeHost} (which synchronise the device).
 * A fixed set of daemon threads named {@code rc-cuda-N} (8, or the system property
 * {@code rc.cuda.threads}); never an event loop or a parallel thread, so BlockHound lets them wait.
 *
 * <p>Work is handed over through a FIFO {@link ForkJoinPool} (async mode) rather than Reactor's
 * {@code boundedElastic}: copies are scheduled from Netty event loops when a chunk's collective
 * completes, and a submission to {@code boundedElastic} that finds every thread busy reads the size
 * of a worker's queue under its lock, which can park the event loop (BlockHound reports it). A
 * submission to this pool never takes a lock. The pool does not grow beyond its threads (plain
 * tasks that block are not compensated), so at most {@link #THREADS} CUDA waits run at once and
 * the rest queue.
 */
public final class CudaScheduler {

    private CudaScheduler() {
    }

    /** Threads of the scheduler. */
    public static final int THREADS = Math.max(1, CudaSettings.THREADS.get());

    private static final class Holder {
        static final Scheduler SCHEDULER = Schedulers.fromExecutorService(pool(), "rc-cuda");

        private static ForkJoinPool pool() {
            AtomicInteger ids = new AtomicInteger();
            return new ForkJoinPool(THREADS, p -> {
                ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
                t.setName("rc-cuda-" + ids.incrementAndGet());
                t.setDaemon(true);
                return t;
            }, null, true);
        }
    }

    /**
     * The shared scheduler (created on first use, lives as long as the JVM).
     *
     * @return the CUDA scheduler
     */
    public static Scheduler get() {
        return Holder.SCHEDULER;
    }

    /**
     * True when the calling thread belongs to this scheduler.
     *
     * @return whether the caller runs on a CUDA scheduler thread
     */
    public static boolean isCurrentThread() {
        return Thread.currentThread().getName().startsWith("rc-cuda-");
    }
}
