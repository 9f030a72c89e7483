package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.LibrarySchedulers;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The deadlines of a group's in-flight collectives, checked by one task (as NCCL's
 * watchdog thread polls its work list) instead of one timer per collective.
 *
 * <p>A timer per collective ({@code Mono.timeout(Duration)}) puts a task in a scheduled executor's
 * queue and wakes its thread on every call, and cancels it again when the collective completes:
 * for a chain of small collectives that wake-up is a large share of the latency. Here the armed
 * alarms are a list linked through the alarms themselves: arming links one at the tail, disarming
 * unlinks it, each under a lock held for a few field writes. The periodic check walks only the
 * alarms still armed (the collectives in flight, not every collective since the last check), so
 * its cost does not grow with the rate of collectives; a collective's alarm fires within one
 * {@link #tick()} of its deadline.
 *
 * <p>The check is not periodic: it is scheduled for the earliest deadline it knows of (but at least
 * one tick ahead) and sleeps while no alarm is armed. Arming an alarm schedules an earlier check only
 * when its deadline comes more than a tick before the check already scheduled, so a chain of
 * collectives with the default timeout of minutes costs one wake-up per timeout period instead of
 * one per tick (a 10 ms tick woke the thread 100 times a second, about 1% of a core on these virtual
 * machines, per rank, also in an idle group); a check that finds alarms not yet due schedules the
 * next for the earliest of them.
 *
 * <p>The deadlines are timed by Reactor's parallel scheduler ({@link Schedulers#parallel()} at the
 * time an alarm is armed). While that scheduler keeps the system's time, the periodic check here
 * stands in for it; where it does not, as under {@code StepVerifier.withVirtualTime} (whose
 * {@code VirtualTimeScheduler} replaces it), each alarm is a task on that scheduler, so a test that
 * advances virtual time past a deadline sees the alarm fire at once.
 */
public final class CollectiveWatchdog implements AutoCloseable {

    private final Object lock = new Object();
    private Alarm head;   // the armed alarms, oldest first; guarded by lock
    private Alarm tail;
    private final Duration tick;
    private final long tickNanos;
    private final Scheduler scheduler;
    private static final long NONE = Long.MAX_VALUE;
    private long checkAt = NONE;      // when the pending check runs (System.nanoTime()), NONE without one; guarded by lock
    private Disposable pending;       // that check's task; guarded by lock
    private boolean closed;           // guarded by lock

    private static final class Shared {
        static final CollectiveWatchdog INSTANCE = new CollectiveWatchdog(Duration.ofMillis(10),
                LibrarySchedulers.newSingle("rc-watchdog"));
    }

    /**
     * The JVM's watchdog, 10 ms tick, checking on its own daemon thread {@code rc-watchdog}: shared by
     * every group, so ranks of one JVM whose deadlines fall in the same check fail together with
     * their own timeout errors.
     */
    public static CollectiveWatchdog shared() {
        return Shared.INSTANCE;
    }

    /**
     * @param tick      the alarms' lateness at most, and the least time between two checks
     * @param scheduler where the check runs (a non-blocking scheduler: the check never waits)
     */
    public CollectiveWatchdog(Duration tick, Scheduler scheduler) {
        this.tick = tick;
        this.tickNanos = Math.max(1, tick.toNanos());
        this.scheduler = scheduler;
    }

    /** The alarms' lateness at most (checks run only when an alarm is due, at least a tick apart). */
    public Duration tick() {
        return tick;
    }

    /** Deadlines armed and not yet fired or disarmed: the alarms on the list (diagnostics, tests). */
    public int armedCount() {
        synchronized (lock) {
            int n = 0;
            for (Alarm a = head; a != null; a = a.next) {
                n++;
            }
            return n;
        }
    }

    /**
     * Arms an alarm that fires once {@code timeout} has passed, unless disarmed first.
     * {@link Alarm#fired()} emits a value then (on the watchdog's scheduler).
     */
    public Alarm arm(Duration timeout) {
        return arm(timeout, null, System.nanoTime());
    }

    /**
     * Arms an alarm that runs {@code onFire} once {@code timeout} has passed, unless disarmed first;
     * on the watchdog's thread (or, while the parallel scheduler does not keep the system's time, on
     * that scheduler's), so it must not block.
     */
    public Alarm arm(Duration timeout, Runnable onFire) {
        return arm(timeout, onFire, System.nanoTime());
    }

    /**
     * {@link #arm(Duration, Runnable)} for a caller that already read the clock: the deadline is
     * {@code nowNanos} ({@link System#nanoTime()}) plus {@code timeout}.
     */
    public Alarm arm(Duration timeout, Runnable onFire, long nowNanos) {
        Scheduler clock = Schedulers.parallel();
        if (!keepsSystemTime(clock)) {
            Alarm a = new Alarm(null, clock.now(TimeUnit.NANOSECONDS) + timeout.toNanos(), onFire);
            a.task = clock.schedule(a::fireIfArmed, timeout.toNanos(), TimeUnit.NANOSECONDS);
            return a;
        }
        Alarm a = new Alarm(this, nowNanos + timeout.toNanos(), onFire);
        long wakeAt = NONE;
        synchronized (lock) {
            a.prev = tail;
            if (tail == null) {
                head = a;
            } else {
                tail.next = a;
            }
            tail = a;
            // a check is due by this deadline (within a tick) unless one is already scheduled by then
            if (checkAt == NONE || a.deadline - (checkAt - tickNanos) < 0) {
                wakeAt = wantCheckAt(a.deadline, System.nanoTime());
            }
        }
        if (wakeAt != NONE) {
            scheduleCheck(wakeAt);
        }
        return a;
    }

    /**
     * Under the lock: when to check for an alarm due at {@code deadline} (at least a tick from
     * {@code now}); records it as the pending check and returns it when it comes more than a tick
     * before the check already scheduled (or none is), else returns {@link #NONE}.
     */
    private long wantCheckAt(long deadline, long now) {
        long at = deadline - (now + tickNanos) > 0 ? deadline : now + tickNanos;
        if (closed || (checkAt != NONE && at - (checkAt - tickNanos) >= 0)) {
            return NONE;
        }
        checkAt = at;
        return at;
    }

    /** Schedules the check for {@code at} (outside the lock), replacing the pending one if it is still the latest. */
    private void scheduleCheck(long at) {
        Disposable d;
        try {
            d = scheduler.schedule(() -> check(at), Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {   // the scheduler is shut down
            return;
        }
        Disposable stale;
        synchronized (lock) {
            if (checkAt == at && !closed) {
                stale = pending;   // a later check that this one replaces
                pending = d;
            } else {
                stale = d;         // superseded by an earlier check meanwhile, or already run, or closed
            }
        }
        if (stale != null) {
            stale.dispose();
        }
    }

    /** Takes {@code a} off the list if it is on it (it is when it has a predecessor or is the head); the caller holds the lock. */
    private void unlink(Alarm a) {
        if (a.prev == null && head != a) {
            return;
        }
        Alarm p = a.prev;
        Alarm n = a.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.prev = p;
        }
        a.prev = null;
        a.next = null;
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

    /** The check scheduled for {@code at}: fires the due alarms and schedules the next check, if any alarm is left. */
    private void check(long at) {
        long now = System.nanoTime();
        long[] next = {NONE};
        List<Alarm> due = dueAlarms(now, at, next);
        if (next[0] != NONE) {
            scheduleCheck(next[0]);
        }
        for (Alarm a : due) {
            a.fire();
        }
    }

    /**
     * The alarms due at {@code now}, earliest deadline first, taken off the list; {@code next[0]}
     * gets the time of the next check to schedule for the alarms left (or stays {@link #NONE}).
     */
    private List<Alarm> dueAlarms(long now, long at, long[] next) {
        List<Alarm> due = List.of();
        synchronized (lock) {
            if (checkAt == at) {   // this is the pending check: none is pending now
                checkAt = NONE;
                pending = null;
            }
            long earliest = NONE;
            for (Alarm a = head; a != null; ) {
                Alarm n = a.next;
                if (now - a.deadline >= 0 && Alarm.STATE.compareAndSet(a, Alarm.ARMED, Alarm.FIRED)) {
                    unlink(a);
                    if (due.isEmpty()) {
                        due = new ArrayList<>();
                    }
                    due.add(a);
                } else if (earliest == NONE || a.deadline - earliest < 0) {
                    earliest = a.deadline;
                }
                a = n;
            }
            if (earliest != NONE) {
                next[0] = wantCheckAt(earliest, now);
            }
        }
        if (due.size() > 1) {
            due.sort(Comparator.comparingLong(a -> a.deadline - now));
        }
        return due;
    }

    @Override
    public void close() {
        Disposable p;
        synchronized (lock) {
            closed = true;
            checkAt = NONE;
            p = pending;
            pending = null;
            while (head != null) {
                unlink(head);
            }
        }
        if (p != null) {
            p.dispose();
        }
    }

    /** Whether a check is scheduled (diagnostics, tests): none while no alarm is armed, after the last check. */
    public boolean checkPending() {
        synchronized (lock) {
            return checkAt != NONE;
        }
    }

    /** One collective's deadline. */
    public static final class Alarm {
        static final int ARMED = 0;
        static final int DISARMED = 1;
        static final int FIRED = 2;
        static final AtomicIntegerFieldUpdater<Alarm> STATE = AtomicIntegerFieldUpdater.newUpdater(Alarm.class, "state");

        private final CollectiveWatchdog owner;   // the list it is linked on; null for a virtual-time task
        private final long deadline;
        private final Runnable onFire;
        private Alarm prev;       // these two guarded by owner's lock
        private Alarm next;
        private Sinks.One<Boolean> sink;   // made on the first fired(), for alarms without a callback
        private boolean fired;
        volatile int state;
        private volatile Disposable task;  // the alarm's task on a parallel scheduler not on system time; else null

        private Alarm(CollectiveWatchdog owner, long deadline, Runnable onFire) {
            this.owner = owner;
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

        /** The virtual-time task: fires unless disarmed. */
        private void fireIfArmed() {
            if (STATE.compareAndSet(this, ARMED, FIRED)) {
                fire();
            }
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

        /** The alarm will not fire (unless the watchdog is firing it at this moment), and leaves the watchdog's list. */
        public void disarm() {
            CollectiveWatchdog w = owner;
            if (w == null) {   // a task on a virtual-time scheduler
                STATE.compareAndSet(this, ARMED, DISARMED);
                Disposable t = task;
                if (t != null) {
                    t.dispose();
                }
                return;
            }
            synchronized (w.lock) {
                if (state == ARMED) {
                    state = DISARMED;
                }
                w.unlink(this);
            }
        }
    }
}
