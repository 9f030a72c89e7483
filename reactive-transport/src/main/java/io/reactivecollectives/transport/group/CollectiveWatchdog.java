package io.reactivecollectives.transport.group;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

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
 */
public final class CollectiveWatchdog implements AutoCloseable {

    private final ConcurrentHashMap<Long, Alarm> armed = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Duration tick;
    private final Disposable task;

    private static final class Shared {
        static final CollectiveWatchdog INSTANCE = new CollectiveWatchdog(Duration.ofMillis(10),
                reactor.core.scheduler.Schedulers.newSingle("rc-watchdog", true));
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
     * on the watchdog's thread, so it must not block.
     */
    public Alarm arm(Duration timeout, Runnable onFire) {
        long id = ids.incrementAndGet();
        Alarm a = new Alarm(id, System.nanoTime() + timeout.toNanos(), onFire);
        armed.put(id, a);
        return a;
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
            armed.remove(id);
        }
    }
}
