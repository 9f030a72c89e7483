package io.reactivecollectives.transport.algorithms;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ring lanes' step operator ({@link Lanes.PairedSteps}): a step starts only once both transfers of the one before
 * completed, the first error ends the lane and cancels the other transfer, cancelling the lane
 * cancels the running step, and a long lane of steps that complete at once does not recurse.
 */
class PairedStepsTest {

    /** Steps whose transfers are sinks the test completes by hand. */
    private static final class Manual extends Lanes.PairedSteps {
        final List<Sinks.Empty<Void>> sends = new ArrayList<>();
        final List<Sinks.Empty<Void>> receives = new ArrayList<>();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicInteger sendsCancelled = new AtomicInteger();

        Manual(int steps) {
            super(steps);
        }

        @Override
        Mono<Void> send(int i) {
            Sinks.Empty<Void> s = Sinks.empty();
            sends.add(s);
            return s.asMono().doOnCancel(() -> {
                cancelled.incrementAndGet();
                sendsCancelled.incrementAndGet();
            });
        }

        @Override
        Mono<Void> receive(int i) {
            Sinks.Empty<Void> s = Sinks.empty();
            receives.add(s);
            return s.asMono().doOnCancel(cancelled::incrementAndGet);
        }
    }

    @Test
    void aStepStartsOnlyWhenBothTransfersOfThePreviousCompleted() {
        Manual m = new Manual(2);
        StepVerifier.create(m)
                .then(() -> {
                    assertEquals(1, m.sends.size());
                    m.receives.get(0).tryEmitEmpty();
                    assertEquals(1, m.sends.size(), "the send of step 0 still runs");
                    m.sends.get(0).tryEmitEmpty();
                    assertEquals(2, m.sends.size());
                    m.sends.get(1).tryEmitEmpty();
                    m.receives.get(1).tryEmitEmpty();
                })
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void theFirstErrorEndsTheLaneAndCancelsTheOtherTransfer() {
        Manual m = new Manual(3);
        IllegalStateException boom = new IllegalStateException("boom");
        StepVerifier.create(m)
                .then(() -> m.receives.get(0).tryEmitError(boom))
                .expectErrorMatches(t -> t == boom)
                .verify(Duration.ofSeconds(5));
        assertEquals(1, m.sendsCancelled.get(), "the send of step 0 was cancelled");
        assertEquals(1, m.sends.size(), "no later step started");
    }

    @Test
    void cancellingTheLaneCancelsTheRunningStep() {
        Manual m = new Manual(3);
        StepVerifier.create(m)
                .then(() -> {
                    m.sends.get(0).tryEmitEmpty();
                    m.receives.get(0).tryEmitEmpty();
                })
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertEquals(2, m.sends.size());
        assertEquals(2, m.cancelled.get());
    }

    @Test
    void manyStepsThatCompleteAtOnceRunInALoop() {
        AtomicInteger ran = new AtomicInteger();
        AtomicBoolean outOfOrder = new AtomicBoolean();
        Lanes.PairedSteps lane = new Lanes.PairedSteps(200_000) {
            @Override
            Mono<Void> send(int i) {
                if (ran.getAndIncrement() != 2 * i) {
                    outOfOrder.set(true);
                }
                return Mono.empty();
            }

            @Override
            Mono<Void> receive(int i) {
                ran.incrementAndGet();
                return Mono.empty();
            }
        };
        StepVerifier.create(lane).expectComplete().verify(Duration.ofSeconds(20));
        assertEquals(400_000, ran.get());
        assertFalse(outOfOrder.get());
        assertTrue(ran.get() > 0);
    }
}
