package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Mono-chain examples on real ranks. */
class ExamplesTest {

    private static <T> List<T> onRanks(int world, Function<ProcessGroup, Mono<T>> body) {
        LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(30));
        try {
            return cluster.run(body).block(Duration.ofSeconds(60));
        } finally {
            cluster.close();
        }
    }

    @Test
    void allReduceThenStepAppliesTheAverageGradientEverywhere() {
        List<float[]> w = onRanks(3, g -> AllReduceThenStep.run(g, 0.5f));
        for (float[] r : w) {
            // mean gradient (1 + 2 + 3) / 3 = 2, so w = 1 - 0.5 * 2 = 0
            assertArrayEquals(new float[] {0, 0, 0, 0}, r, 1e-6f);
        }
    }

    @Test
    void broadcastConfigGivesEveryRankRankZerosString() {
        List<String> c = onRanks(3, g -> BroadcastConfig.run(g, g.rank() == 0 ? "lr=0.1,epochs=3,name=ünïcode" : "wrong"));
        assertEquals(List.of("lr=0.1,epochs=3,name=ünïcode", "lr=0.1,epochs=3,name=ünïcode", "lr=0.1,epochs=3,name=ünïcode"), c);
    }

    @Test
    void noRankStartsPhaseTwoBeforeEveryRankFinishedPhaseOne() {
        List<BarrierBetweenPhases.Phases> p = onRanks(3, g -> BarrierBetweenPhases.run(g, Duration.ofMillis(150)));
        long lastEnd = p.stream().mapToLong(BarrierBetweenPhases.Phases::phaseOneEnd).max().orElseThrow();
        for (BarrierBetweenPhases.Phases r : p) {
            assertTrue(r.phaseTwoStart() >= lastEnd, r + " started before the last rank finished at " + lastEnd);
        }
        assertTrue(p.get(2).phaseOneEnd() - p.get(0).phaseOneEnd() >= 250, "rank 2's phase one is 300 ms longer");
    }

    @Test
    void timeoutFallsBackToTheLocalValueAndPromptAnswersAreExact() {
        List<TimeoutWithFallback.Outcome> late = onRanks(2, g -> TimeoutWithFallback.run(g, Duration.ofMillis(300), Duration.ofMillis(1500)));
        assertTrue(late.get(0).fellBack(), late.get(0).toString());
        assertEquals(10.0, late.get(0).value());
        assertTrue(late.get(1).fellBack(), late.get(1).toString());
        assertEquals(20.0, late.get(1).value());
        List<TimeoutWithFallback.Outcome> prompt = onRanks(2, g -> TimeoutWithFallback.run(g, Duration.ofSeconds(5), Duration.ofMillis(50)));
        for (TimeoutWithFallback.Outcome o : prompt) {
            assertFalse(o.fellBack(), o.toString());
            assertEquals(15.0, o.value());
        }
    }
}
