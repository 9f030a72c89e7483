package io.reactivecollectives.transport.runtime;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The library's result threads ({@code rc-results-N}): a bounded pool, daemon threads, blocking allowed. */
public final class ResultThreads {

    private ResultThreads() {
    }

    private static final class Holder {
        static final Scheduler INSTANCE = Schedulers.newBoundedElastic(
                Math.max(4, 2 * Runtime.getRuntime().availableProcessors()), 100_000, "rc-results", 60, true);
    }

    /** The shared instance (never disposed: idle threads end after 60 s). */
    public static Scheduler get() {
        return Holder.INSTANCE;
    }
}
