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
}
