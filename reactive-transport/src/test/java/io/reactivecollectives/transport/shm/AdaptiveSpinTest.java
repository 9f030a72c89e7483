package io.reactivecollectives.transport.shm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The poller's polling budget: halves on a miss or a late hit down to 1/32, doubles on a timely hit. */
class AdaptiveSpinTest {

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
        AdaptiveSpin s = new AdaptiveSpin(64_000, true);
        for (int i = 0; i < 10; i++) {
            s.miss();
        }
        assertEquals(2_000, s.budget());
        // ping-pong traffic 3 us apart: more than the floor, so polling always ran out before it came
        s.wokenBy(3_000);
        assertEquals(4_000, s.budget());
        s.hit(3_000);
        assertEquals(8_000, s.budget(), "and once it covers the gap, timely hits keep growing it");
        s.wokenBy(200_000);
        assertEquals(16_000, s.budget(), "a wake-up's own latency (a few maxima) still counts as soon");
        s.wokenBy(1_000_000);
        assertEquals(8_000, s.budget(), "traffic long after: sleeping was right");
    }

    @Test
    void fixedWhenNotAdaptive() {
        AdaptiveSpin s = new AdaptiveSpin(50_000, false);
        s.miss();
        s.hit(49_000);
        assertEquals(50_000, s.budget());
    }
}
