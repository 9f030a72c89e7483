package io.reactivecollectives.transport.mesh;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event loops' polling budget: halved by polling in vain, doubled by polling in time. */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class SpinThenSelectStrategyTest {

    private static final long MAX = 5_000_000;   // 5 ms: scheduling delays between the calls stay well inside it

    /** Polls with nothing ready until the strategy says to block; returns how many polls it took. */
    private static int pollUntilSelect(SpinThenSelectStrategy s) throws Exception {
        for (int polls = 1; ; polls++) {
            int r = s.calculateStrategy(() -> 0, false);
            if (r == SelectStrategy.SELECT) {
                return polls;
            }
            assertEquals(SelectStrategy.CONTINUE, r);
        }
    }

    @Test
    void pollingInVainHalvesTheBudgetDownToItsFloor() throws Exception {
        SpinThenSelectStrategy s = new SpinThenSelectStrategy(MAX, true);
        assertEquals(1, s.calculateStrategy(() -> 1, false));
        assertTrue(pollUntilSelect(s) > 1, "polls after I/O");
        assertEquals(MAX / 2, s.spinNanos());
        for (int i = 0; i < 12; i++) {
            pollUntilSelect(s);    // woken from select: what woke it counts as activity
        }
        assertEquals(MAX / SpinThenSelectStrategy.FLOOR_DIVISOR, s.spinNanos());
    }

    @Test
    void pollingThatSeesTheNextIoDoublesItBackUpToTheMaximum() throws Exception {
        long max = 320_000_000;    // a floor of 10 ms: the calls below come well within it, on a loaded machine too
                                   // (at 1 ms, CI once saw a poll come after the budget had run out)
        SpinThenSelectStrategy s = new SpinThenSelectStrategy(max, true);
        for (int i = 0; i < 6; i++) {
            pollUntilSelect(s);
        }
        long low = s.spinNanos();
        assertTrue(low < max / 8, "after misses: " + low);
        for (int i = 0; i < 8; i++) {
            assertEquals(1, s.calculateStrategy(() -> 1, false));
            assertEquals(SelectStrategy.CONTINUE, s.calculateStrategy(() -> 0, false));
            assertEquals(1, s.calculateStrategy(() -> 1, false));      // in time: a hit
        }
        assertEquals(max, s.spinNanos());
        assertEquals(0, s.calculateStrategy(() -> 0, true), "tasks waiting: no blocking");
    }

    @Test
    void ioThatComesOnlyLateInThePollHalvesTheBudgetAsAMissDoes() throws Exception {
        long max = 40_000_000;     // 40 ms: worth polling for I/O within 20 ms
        SpinThenSelectStrategy s = new SpinThenSelectStrategy(max, true);
        assertEquals(1, s.calculateStrategy(() -> 1, false));
        assertEquals(SelectStrategy.CONTINUE, s.calculateStrategy(() -> 0, false));
        Thread.sleep(25);
        assertEquals(1, s.calculateStrategy(() -> 1, false));      // seen, but after 25 ms of polling
        assertEquals(max / 2, s.spinNanos());
    }

    @Test
    void withoutAdaptationTheBudgetStaysAndAWakeUpIsNotPolledAfter() throws Exception {
        SpinThenSelectStrategy s = new SpinThenSelectStrategy(MAX, false);
        assertEquals(1, s.calculateStrategy(() -> 1, false));
        pollUntilSelect(s);
        assertEquals(MAX, s.spinNanos());
        Thread.sleep(1);
        assertEquals(SelectStrategy.SELECT, s.calculateStrategy(() -> 0, false));
    }
}
