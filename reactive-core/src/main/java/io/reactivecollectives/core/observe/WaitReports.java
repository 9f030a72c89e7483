package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.settings.CoreSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reports a rank prints while it waits for other ranks (at the rendezvous, in a collective, in
 * a shrink), every {@link #defaultInterval()}: who it waits for and for how long, through
 * {@link Notices}. Each wait is one periodic task on one daemon thread the JVM shares
 * ({@code rc-wait-reports}), cancelled when the wait ends; a group's collectives share one task.
 *
 * <p>The interval is the system property {@value #PROPERTY}, else the environment variable
 * {@value #ENV}, else 5 s: a number of seconds ({@code 2}, {@code 0.5}) or with a unit
 * ({@code 1500ms}, {@code 2s}); {@code 0} or {@code off} turns the reports off.
 */
public final class WaitReports {

    /** System property with the interval between reports. */
    public static final String PROPERTY = "rc.wait-reports.interval";
    /** Environment variable with the interval, read when the property is not set. */
    public static final String ENV = "RC_WAIT_REPORTS_INTERVAL";
    /** The interval when neither is set. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(WaitReports.class);

    private WaitReports() {
    }

    /**
     * One daemon thread. Not a Reactor single scheduler: those remove a cancelled task from their
     * queue under its lock, and a wait ends on an event loop, where that lock must not be waited
     * for (BlockHound caught it; an error thrown there left the queue's lock unusable and every
     * later report silent). Here a cancelled task stays queued until its time comes and is dropped
     * then, and a report's own end is a flag the task reads on its thread.
     */
    private static final class Reports {
        static final Scheduler SCHEDULER = Schedulers.fromExecutorService(executor(), "rc-wait-reports");

        private static ScheduledThreadPoolExecutor executor() {
            AtomicLong n = new AtomicLong();
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "rc-wait-reports-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(false);
            return e;
        }
    }

    /** A periodic report that ends itself, on its own thread, once {@link #dispose()} was called. */
    private static final class Periodic implements Runnable, Disposable {
        /** Null once stopped: the task stays queued until its next time, holding nothing of the wait. */
        private volatile Runnable report;
        private volatile boolean stopped;
        private volatile Disposable task;

        Periodic(Runnable report) {
            this.report = report;
        }

        @Override
        public void run() {
            Runnable r = report;
            if (stopped || r == null) {
                Disposable t = task;
                if (t != null) {
                    t.dispose();   // on the reports' thread: no interrupt, and nothing removed under a lock
                }
                return;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("a wait report failed", e);
            }
        }

        /** Stops the reports without taking a lock: safe on an event loop. */
        @Override
        public void dispose() {
            stopped = true;
            report = null;
        }

        @Override
        public boolean isDisposed() {
            return stopped;
        }
    }

    /**
     * The interval the property or the environment variable set, else {@link #DEFAULT_INTERVAL}
     * (read on each call); zero when the reports are off.
     *
     * @return the interval between reports, zero for none
     * @throws IllegalArgumentException when the setting cannot be read as a duration
     */
    public static Duration defaultInterval() {
        return CoreSettings.WAIT_REPORTS_INTERVAL.get();
    }

    /**
     * Reads an interval: seconds ({@code 5}, {@code 0.5}), or a number with {@code ms} or {@code s};
     * {@code 0} or {@code off} for none.
     *
     * @param text the setting
     * @return the interval, zero for none
     * @throws IllegalArgumentException when {@code text} is not such a duration
     */
    public static Duration parse(String text) {
        return CoreSettings.WAIT_REPORTS_INTERVAL.parse(text);
    }

    /**
     * The reports' thread, for the timeouts of what a report asks before it speaks (cancelling one
     * takes no lock, so it may be done on an event loop).
     *
     * @return the reports' scheduler
     */
    public static Scheduler scheduler() {
        return Reports.SCHEDULER;
    }

    /**
     * Runs {@code report} every {@code interval} (the first time one interval from now) on the
     * reports' thread until the returned {@code Disposable} is disposed; a report that throws is
     * logged and the next one still runs. {@code report} must not block.
     *
     * @param interval how often; zero or negative for never
     * @param report   what to say
     * @return what stops the reports
     */
    public static Disposable every(Duration interval, Runnable report) {
        if (interval == null || interval.isZero() || interval.isNegative()) {
            return Disposables.disposed();
        }
        long nanos = interval.toNanos();
        Periodic p = new Periodic(report);
        p.task = Reports.SCHEDULER.schedulePeriodically(p, nanos, nanos, TimeUnit.NANOSECONDS);
        return p;
    }

    /**
     * A duration as a report gives it: {@code 850 ms} below a second, {@code 12 s} below two
     * minutes, else {@code 4 min 5 s}.
     *
     * @param nanos the duration in nanoseconds
     * @return the duration in words
     */
    public static String duration(long nanos) {
        long ms = Math.max(0, TimeUnit.NANOSECONDS.toMillis(nanos));
        if (ms < 1000) {
            return ms + " ms";
        }
        long s = ms / 1000;
        return s < 120 ? s + " s" : s / 60 + " min " + s % 60 + " s";
    }

    /**
     * Ranks in words, as {@link FlightRecorderAnalyzer#ranks} writes them: {@code rank 3},
     * {@code ranks 2, 3}, {@code ranks 0, 4-9}.
     *
     * @param ranks the ranks
     * @return the ranks in words
     */
    public static String ranks(Collection<Integer> ranks) {
        return FlightRecorderAnalyzer.ranks(ranks);
    }

    /**
     * A size in words: {@code 512 B}, {@code 4 KiB}, {@code 1.5 MiB}.
     *
     * @param bytes the size
     * @return the size in words
     */
    public static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v)) + " " + units[u];
    }
}
