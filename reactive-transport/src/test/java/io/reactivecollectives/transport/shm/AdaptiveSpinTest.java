package io.reactivecollectives.transport.shm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The poller's polling budget: halves on a miss or a late hit down to its floor, doubles on a timely hit; the
 * floor is what a sleep ended soon by traffic cost (at least 1/32 of the maximum).
 */
class AdaptiveSpinTest {

    /** An adaptive budget of maximum {@code max} after ten polls that ran out (at its floor). */
    private static AdaptiveSpin missedTenTimes(long max) {
        AdaptiveSpin s = new AdaptiveSpin(max, true);
        for (int i = 0; i < 10; i++) {
            s.miss();
        }
        return s;
    }

    @Test
    void halvesOnMissesAndLateHitsAndDoublesOnTimelyHits() {
        AdaptiveSpin s = new AdaptiveSpin(64_000, true);
        assertEquals(64_000, s.budget());
        s.miss();
        assertEquals(32_000, s.budget());
        s.hit(40_000);  // later than half the maximum: polling cost more than it saved
        assertEquals(16_000, s.budget());
        for (int i = 0; i < 10; i++) {
            s.miss();
        }
        assertEquals(2_000, s.budget(), "floor at 1/32 of the maximum");
        s.hit(1_000);
        assertEquals(4_000, s.budget());
        for (int i = 0; i < 10; i++) {
            s.hit(10);
        }
        assertEquals(64_000, s.budget(), "capped at the maximum");
    }

    @Test
    void trafficSoonAfterSleepingGrowsTheBudgetBackFromTheFloor() {
        AdaptiveSpin s = missedTenTimes(64_000);
        assertEquals(2_000, s.budget());
        // ping-pong traffic 3 us apart: more than the floor, so polling always ran out before it came
        s.wokenBy(3_000, 3_000);
        assertEquals(4_000, s.budget());
        s.hit(3_000);
        assertEquals(8_000, s.budget(), "and once it covers the gap, timely hits keep growing it");
        s.wokenBy(1_000_000, 1_000_000);
        assertEquals(4_000, s.budget(), "traffic long after: sleeping was right");
    }

    @Test
    void exchangesWhoseWakeUpsCostMoreThanTheBudgetStopSleeping() {
        // the state measured on a 2-vCPU virtual machine (4 B all-reduce, 2 ranks): about 3,000 sleeps
        // a second per poller at a budget near the floor, each ended by the peer's exchange about 80 us
        // later. Before the floor learnt that cost, each miss halved what each timely wake-up doubled.
        AdaptiveSpin s = missedTenTimes(50_000);
        assertEquals(1_562, s.budget());
        s.miss();
        s.wokenBy(40_000, 1_000);
        assertEquals(1_562, s.floor(), "a sleep that did not block says nothing about the cost of one");
        for (int i = 0; i < 5; i++) {
            s.miss();
            s.wokenBy(80_000, 80_000);
        }
        assertEquals(80_000, s.floor(), "a sleep costs 80 us here: never poll less than that, even past the maximum");
        s.miss();
        s.hit(40_000);
        assertEquals(80_000, s.budget(), "misses and late hits no longer push it under the cost of sleeping");
        for (int i = 0; i < 5; i++) {
            s.miss();
            s.wokenBy(1_000_000, 1_000_000);
        }
        assertEquals(50_000, s.ceiling(), "above the maximum only while sleeps keep costing that much");
        s.wokenBy(190_000, 190_000);
        s.wokenBy(190_000, 190_000);
        s.wokenBy(190_000, 190_000);
        assertTrue(s.ceiling() <= 200_000, "at most four maxima, whatever a sleep costs");
    }

    @Test
    void theLearntCostDecaysWhenSleepingIsRight() {
        AdaptiveSpin s = new AdaptiveSpin(64_000, true);
        s.miss();
        s.wokenBy(10_000, 10_000);
        assertEquals(10_000, s.floor());
        for (int i = 0; i < 20; i++) {
            s.miss();
            s.wokenBy(10_000_000, 10_000_000);  // a rank computing 10 ms between collectives: sleeping pays
        }
        assertEquals(2_000, s.floor(), "back to 1/32 of the maximum");
        assertEquals(2_000, s.budget());
    }

    @Test
    void fixedWhenNotAdaptive() {
        AdaptiveSpin s = new AdaptiveSpin(50_000, false);
        s.miss();
        s.hit(49_000);
        assertEquals(50_000, s.budget());
    }
}
