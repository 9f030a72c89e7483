package io.reactivecollectives.core;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The library's own bounded scheduler for work that may block (reading a small file, writing a
 * flight-recorder dump), used where such work is started from an event loop: daemon threads named
 * {@code rc-blocking-N}, at most {@code 4 x processors} of them, with a bounded queue.
 *
 * <p>Why not {@link Schedulers#boundedElastic()}: its first use creates the shared instance, and two
 * threads getting there at once make one of them dispose its spare copy, which takes a lock that
 * may park; on an event loop that is a blocking call (BlockHound caught it when several groups
 * started at once). This scheduler is created once, without that race, the first time any thread
 * asks for it, by Reactor's own implementation whatever scheduler factory is installed (see
 * {@link LibrarySchedulers}: a test's virtual time does not capture it).
 */
public final class BlockingScheduler {

    private BlockingScheduler() {
    }

    private static final class Holder {
        static final Scheduler INSTANCE = LibrarySchedulers.newBoundedElastic(
                4 * Runtime.getRuntime().availableProcessors(), 100_000, "rc-blocking", 60);
    }

    /**
     * The shared instance (never disposed: its idle threads end after 60 s).
     *
     * @return the scheduler
     */
    public static Scheduler get() {
        return Holder.INSTANCE;
    }
}
