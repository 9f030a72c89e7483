package io.reactivecollectives.transport.group;

import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deadlines fire within a tick after they pass, never before, and never once disarmed; in virtual
 * time, when the test's clock passes them.
 */
class CollectiveWatchdogTest {

    @Test
    void anAlarmFiresAfterItsDeadlineAndADisarmedOneNever() {
        Scheduler s = Schedulers.newSingle("watchdog-test", true);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(5), s)) {
            long t0 = System.nanoTime();
            CollectiveWatchdog.Alarm fires = w.arm(Duration.ofMillis(80));
            CollectiveWatchdog.Alarm quiet = w.arm(Duration.ofMillis(40));
            quiet.disarm();
            StepVerifier.create(fires.fired()).expectNext(Boolean.TRUE).expectComplete().verify(Duration.ofSeconds(5));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 80, "fired after " + ms + " ms, before its 80 ms deadline");
            StepVerifier.create(quiet.fired()).expectSubscription().expectNoEvent(Duration.ofMillis(100)).thenCancel().verify();
            assertEquals(0, w.armedCount());
        } finally {
            s.dispose();
        }
    }

    @Test
    void underVirtualTimeAnAlarmFiresWhenTheClockPassesItsDeadline() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.getOrSet();
        try {
            CollectiveWatchdog w = CollectiveWatchdog.shared();
            AtomicInteger fired = new AtomicInteger();
            CollectiveWatchdog.Alarm fires = w.arm(Duration.ofHours(1), fired::incrementAndGet);
            CollectiveWatchdog.Alarm quiet = w.arm(Duration.ofMinutes(30), () -> fired.addAndGet(100));
            quiet.disarm();
            vts.advanceTimeBy(Duration.ofMinutes(59));
            assertEquals(0, fired.get());
            vts.advanceTimeBy(Duration.ofMinutes(1));
            assertEquals(1, fired.get());   // on this thread, as the clock passed the deadline
            assertEquals(0, w.armedCount());
        } finally {
            VirtualTimeScheduler.reset();
        }
    }

    @Test
    void aDisarmedAlarmLeavesTheListAtOnceSoTheCheckWalksOnlyArmedOnes() {
        Scheduler s = Schedulers.newSingle("watchdog-test", true);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofHours(1), s)) {   // no check runs
            AtomicInteger fired = new AtomicInteger();
            CollectiveWatchdog.Alarm kept = w.arm(Duration.ofHours(1), fired::incrementAndGet);
            for (int i = 0; i < 100_000; i++) {
                w.arm(Duration.ofMinutes(1), fired::incrementAndGet, System.nanoTime()).disarm();
            }
            assertEquals(1, w.armedCount(), "the disarmed alarms are gone without a check, the armed one kept");
            kept.disarm();
            kept.disarm();   // twice: no effect
            assertEquals(0, w.armedCount());
            assertEquals(0, fired.get(), "no disarmed alarm fired");
        } finally {
            s.dispose();
        }
    }

    @Test
    void alarmsLeaveFromTheHeadTheMiddleAndTheTailAndTheRestStillFire() {
        VirtualTimeScheduler checks = VirtualTimeScheduler.create();   // the check runs when this test says
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(2), checks)) {
            AtomicInteger fired = new AtomicInteger();
            long past = System.nanoTime() - Duration.ofHours(2).toNanos();   // due at the first check
            List<CollectiveWatchdog.Alarm> alarms = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                int bit = 1 << i;
                alarms.add(w.arm(Duration.ofHours(1), () -> fired.addAndGet(bit), past));
            }
            alarms.get(3).disarm();   // middle
            alarms.get(0).disarm();   // head
            alarms.get(6).disarm();   // tail
            assertEquals(4, w.armedCount());
            checks.advanceTimeBy(Duration.ofMillis(2));
            assertEquals(0b0110110, fired.get(), "alarms 1, 2, 4 and 5 fired, the disarmed ones not");
            assertEquals(0, w.armedCount());
            alarms.get(1).disarm();   // fired already: nothing to undo
            assertEquals(0, w.armedCount());
        } finally {
            checks.dispose();
        }
    }

    @Test
    void threadsArmingAndDisarmingAtOnceLeaveNothingBehind() throws Exception {
        Scheduler s = Schedulers.newSingle("watchdog-test", true);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(1), s)) {
            AtomicInteger fired = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(new Thread(() -> {
                    for (int i = 0; i < 50_000; i++) {
                        CollectiveWatchdog.Alarm a = w.arm(Duration.ofMinutes(1), fired::incrementAndGet);
                        CollectiveWatchdog.Alarm b = w.arm(Duration.ofMinutes(1), fired::incrementAndGet);
                        a.disarm();
                        b.disarm();
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(30_000);
            }
            assertEquals(0, w.armedCount());
            assertEquals(0, fired.get());
        } finally {
            s.dispose();
        }
    }

    @Test
    void anAlarmArmedWithTheCallersClockReadingFiresFromThatReading() {
        Scheduler s = Schedulers.newSingle("watchdog-test", true);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(5), s)) {
            AtomicInteger fired = new AtomicInteger();
            // a reading 10 s old and a 1 s timeout: already due
            w.arm(Duration.ofSeconds(1), fired::incrementAndGet, System.nanoTime() - Duration.ofSeconds(10).toNanos());
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (fired.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1, fired.get());
            assertEquals(0, w.armedCount());
        } finally {
            s.dispose();
        }
    }

    @Test
    void theSharedWatchdogIsOneInstance() {
        assertTrue(CollectiveWatchdog.shared() == CollectiveWatchdog.shared());
        assertEquals(Duration.ofMillis(10), CollectiveWatchdog.shared().tick());
    }

    /** A scheduler that counts the tasks given to it and runs them on {@code target}. */
    private static final class CountingScheduler implements Scheduler {
        final Scheduler target;
        final AtomicInteger scheduled = new AtomicInteger();

        CountingScheduler(Scheduler target) {
            this.target = target;
        }

        @Override
        public reactor.core.Disposable schedule(Runnable task) {
            scheduled.incrementAndGet();
            return target.schedule(task);
        }

        @Override
        public reactor.core.Disposable schedule(Runnable task, long delay, java.util.concurrent.TimeUnit unit) {
            scheduled.incrementAndGet();
            return target.schedule(task, delay, unit);
        }

        @Override
        public reactor.core.Disposable schedulePeriodically(Runnable task, long initialDelay, long period,
                                                            java.util.concurrent.TimeUnit unit) {
            scheduled.incrementAndGet();
            return target.schedulePeriodically(task, initialDelay, period, unit);
        }

        @Override
        public Worker createWorker() {
            return target.createWorker();
        }
    }

    @Test
    void anIdleWatchdogSchedulesNothingAndAChainOfCollectivesOneCheckPerTimeout() {
        Scheduler real = Schedulers.newSingle("watchdog-test", true);
        CountingScheduler s = new CountingScheduler(real);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(10), s)) {
            assertEquals(0, s.scheduled.get(), "nothing armed: no check scheduled");
            assertTrue(!w.checkPending());
            // a chain of collectives with a long timeout: each armed and disarmed in turn
            for (int i = 0; i < 10_000; i++) {
                w.arm(Duration.ofMinutes(5), () -> { }).disarm();
            }
            assertEquals(1, s.scheduled.get(), "one check, for the first deadline, not one per collective or per tick");
            assertTrue(w.checkPending());
            // an alarm due sooner than the scheduled check gets an earlier one, and fires in time
            AtomicInteger fired = new AtomicInteger();
            long t0 = System.nanoTime();
            w.arm(Duration.ofMillis(50), fired::incrementAndGet);
            assertEquals(2, s.scheduled.get());
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (fired.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(1, fired.get());
            assertTrue(ms >= 50, "fired after " + ms + " ms, before its deadline");
            // the check found nothing else armed: no further check
            long until = System.nanoTime() + Duration.ofMillis(100).toNanos();
            while (w.checkPending() && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertTrue(!w.checkPending(), "no alarm left: no check pending");
            assertEquals(2, s.scheduled.get());
        } finally {
            real.dispose();
        }
    }

    @Test
    void aCheckThatFindsAlarmsNotYetDueSchedulesTheNextForTheEarliest() {
        Scheduler real = Schedulers.newSingle("watchdog-test", true);
        CountingScheduler s = new CountingScheduler(real);
        try (CollectiveWatchdog w = new CollectiveWatchdog(Duration.ofMillis(5), s)) {
            AtomicInteger fired = new AtomicInteger();
            long t0 = System.nanoTime();
            w.arm(Duration.ofMillis(30), () -> fired.addAndGet(1));
            w.arm(Duration.ofMillis(120), () -> fired.addAndGet(10));   // later: no new check
            assertEquals(1, s.scheduled.get());
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (fired.get() < 11 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(11, fired.get(), "both fired");
            assertTrue(ms >= 120, "the later one fired after " + ms + " ms, before its deadline");
            assertEquals(2, s.scheduled.get(), "one check per deadline");
            assertEquals(0, w.armedCount());
        } finally {
            real.dispose();
        }
    }
}
