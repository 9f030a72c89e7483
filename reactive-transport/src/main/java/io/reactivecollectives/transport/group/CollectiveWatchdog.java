package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.LibrarySchedulers;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The deadlines of a group's in-flight collectives, checked by one periodic task (as NCCL's
 * watchdog thread polls its work list) instead of one timer per collective.
 *
 * <p>A timer per collective ({@code Mono.timeout(Duration)}) puts a task in a scheduled executor's
 * queue and wakes its thread on every call, and cancels it again when the collective completes:
 * for a chain of small collectives that wake-up is a large share of the latency. Here arming and
 * disarming a deadline is a map insertion and removal, and a collective's alarm fires within one
 * {@link #tick()} of its deadline.
 *
 * <p>The deadlines are timed by Reactor's parallel scheduler ({@link Schedulers#parallel()} at the
 * time an alarm is armed). While that scheduler keeps the system's time, the periodic check here
 * stands in for it; where it does not, as under {@code StepVerifier.withVirtualTime} (whose
 * {@code VirtualTimeScheduler} replaces it), each alarm is a task on that scheduler, so a test that
 * advances virtual time past a deadline sees the alarm fire at once.
 */
public final class CollectiveWatchdog implements AutoCloseable {

    private final ConcurrentHashMap<Long, Alarm> armed = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Duration tick;
    private final Disposable task;

    private static final class Shared {
        static final CollectiveWatchdog INSTANCE = new CollectiveWatchdog(Duration.ofMillis(10),
                LibrarySchedulers.newSingle("rc-watchdog"));
    }

    /**
     * The JVM's watchdog, checked every 10 ms on its own daemon thread {@code rc-watchdog}: shared by
     * every group, so ranks of one JVM whose deadlines fall in the same check fail together with
     * their own timeout errors.
     */
    public static CollectiveWatchdog shared() {
        return Shared.INSTANCE;
    }

    /**
     * @param tick      how often deadlines are checked (the alarms' lateness at most)
     * @param scheduler where the check runs (a non-blocking scheduler: the check never waits)
     */
    public CollectiveWatchdog(Duration tick, Scheduler scheduler) {
        this.tick = tick;
        long nanos = tick.toNanos();
        this.task = scheduler.schedulePeriodically(this::check, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** How often the deadlines are checked. */
    public Duration tick() {
        return tick;
    }

    /** Deadlines armed and not yet fired or disarmed (diagnostics). */
    public int armedCount() {
        return armed.size();
    }

    /**
     * Arms an alarm that fires once {@code timeout} has passed, unless disarmed first.
     * {@link Alarm#fired()} emits a value then (on the watchdog's scheduler).
     */
    public Alarm arm(Duration timeout) {
        return arm(timeout, null);
    }

    /**
     * Arms an alarm that runs {@code onFire} once {@code timeout} has passed, unless disarmed first;
     * on the watchdog's thread (or, while the parallel scheduler does not keep the system's time, on
     * that scheduler's), so it must not block.
     */
    public Alarm arm(Duration timeout, Runnable onFire) {
        long id = ids.incrementAndGet();
        Scheduler clock = Schedulers.parallel();
        if (!keepsSystemTime(clock)) {
            Alarm a = new Alarm(id, clock.now(TimeUnit.NANOSECONDS) + timeout.toNanos(), onFire);
            a.task = clock.schedule(a::fire, timeout.toNanos(), TimeUnit.NANOSECONDS);
            return a;
        }
        Alarm a = new Alarm(id, System.nanoTime() + timeout.toNanos(), onFire);
        armed.put(id, a);
        return a;
    }

    /** The parallel scheduler last seen, and whether its clock is the system's. */
    private record Clock(Scheduler scheduler, boolean system) {
    }

    private static volatile Clock lastClock;

    /**
     * Whether {@code s} keeps the system's time ({@link Scheduler#now} within a minute of
     * {@link System#currentTimeMillis()}: a {@code VirtualTimeScheduler} starts at 0); remembered for
     * the last scheduler seen, so an arm costs a read and a comparison.
     */
    static boolean keepsSystemTime(Scheduler s) {
        Clock c = lastClock;
        if (c == null || c.scheduler != s) {
            long skew = s.now(TimeUnit.MILLISECONDS) - System.currentTimeMillis();
            c = new Clock(s, Math.abs(skew) < 60_000);
            lastClock = c;
        }
        return c.system;
    }

    private void check() {
        long now = System.nanoTime();
        java.util.List<Alarm> due = null;
        for (Iterator<Alarm> it = armed.values().iterator(); it.hasNext(); ) {
            Alarm a = it.next();
            if (now - a.deadline >= 0) {
                it.remove();
                if (due == null) {
                    due = new java.util.ArrayList<>();
                }
                due.add(a);
            }
        }
        if (due != null) {
            // all that are due, earliest deadline first, after the scan
            due.sort(java.util.Comparator.comparingLong(a -> a.deadline - now));
            for (Alarm a : due) {
                a.fire();
            }
        }
    }

    /** Stops the checks; alarms still armed never fire. */
    @Override
    public void close() {
        task.dispose();
        armed.clear();
    }

    /** One collective's deadline. */
    public final class Alarm {
        private final long id;
        private final long deadline;
        private final Runnable onFire;
        private Sinks.One<Boolean> sink;   // made on the first fired(), for alarms without a callback
        private boolean fired;
        private volatile Disposable task;  // the alarm's task on a parallel scheduler not on system time; else null

        private Alarm(long id, long deadline, Runnable onFire) {
            this.id = id;
            this.deadline = deadline;
            this.onFire = onFire;
        }

        /** Emits once the deadline has passed (never, once disarmed). */
        public Mono<Boolean> fired() {
            Sinks.One<Boolean> s;
            synchronized (this) {
                if (sink == null) {
                    sink = Sinks.one();
                    if (fired) {
                        sink.tryEmitValue(Boolean.TRUE);
                    }
                }
                s = sink;
            }
            return s.asMono();
        }

        private void fire() {
            Sinks.One<Boolean> s;
            synchronized (this) {
                fired = true;
                s = sink;
            }
            if (s != null) {
                s.tryEmitValue(Boolean.TRUE);
            }
            if (onFire != null) {
                onFire.run();
            }
        }

        /** Removes the alarm; it will not fire. */
        public void disarm() {
            Disposable t = task;
            if (t != null) {
                t.dispose();
            } else {
                armed.remove(id);
            }
        }
    }
}
