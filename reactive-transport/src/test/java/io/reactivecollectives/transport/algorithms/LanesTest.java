package io.reactivecollectives.transport.algorithms;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LanesTest {

    /** Lanes driven by hand: each is a sink, recorded when it starts, cancellations counted. */
    private static final class Manual {
        final List<Sinks.Empty<Void>> started = new ArrayList<>();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        int maxRunning;

        Mono<Void> lane(int i) {
            assertEquals(started.size(), i, "lanes start in order");
            Sinks.Empty<Void> s = Sinks.empty();
            started.add(s);
            return s.asMono()
                    .doOnSubscribe(x -> maxRunning = Math.max(maxRunning, running.incrementAndGet()))
                    .doOnTerminate(running::decrementAndGet)   // before the signal goes on (doFinally runs after)
                    .doOnCancel(() -> {
                        cancelled.incrementAndGet();
                        running.decrementAndGet();
                    });
        }
    }

    @Test
    void everyLaneRunsOnceAndNoMoreThanTheConcurrencyAtOnce() {
        Manual m = new Manual();
        StepVerifier.create(Lanes.all(10, 3, m::lane))
                .then(() -> {
                    assertEquals(3, m.started.size());
                    m.started.get(1).tryEmitEmpty();
                    assertEquals(4, m.started.size(), "a finished lane makes room for the next");
                    for (int i = 0; i < 10; i++) {
                        m.started.get(i).tryEmitEmpty();   // the finished ones ignore it; each emit starts the next
                    }
                })
                .verifyComplete();
        assertEquals(10, m.started.size());
        assertEquals(3, m.maxRunning);
        assertEquals(0, m.cancelled.get());
    }

    @Test
    void lanesThatCompleteAtOnceRunInALoopNotRecursively() {
        AtomicInteger ran = new AtomicInteger();
        StepVerifier.create(Lanes.all(200_000, 4, i -> Mono.<Void>empty().doOnSubscribe(s -> ran.incrementAndGet())))
                .verifyComplete();
        assertEquals(200_000, ran.get());
    }

    @Test
    void theFirstErrorCancelsTheRunningLanesAndStartsNoMore() {
        Manual m = new Manual();
        StepVerifier.create(Lanes.all(10, 3, m::lane))
                .then(() -> m.started.get(1).tryEmitError(new IllegalStateException("lane 1 failed")))
                .verifyErrorMessage("lane 1 failed");
        assertEquals(3, m.started.size(), "no lane starts after the error");
        assertEquals(2, m.cancelled.get(), "lanes 0 and 2 are cancelled");
    }

    @Test
    void aCancelCancelsTheRunningLanesAndStartsNoMore() {
        Manual m = new Manual();
        Disposable d = Lanes.all(10, 4, m::lane).subscribe();
        m.started.get(0).tryEmitEmpty();
        assertEquals(5, m.started.size());
        d.dispose();
        assertEquals(4, m.cancelled.get());
        m.started.get(1).tryEmitEmpty();
        assertEquals(5, m.started.size(), "nothing starts after the cancel");
    }

    @Test
    void aLaneThatCannotBeMadeFailsTheWholeAndCancelsTheOthers() {
        Manual m = new Manual();
        StepVerifier.create(Lanes.all(5, 5, i -> {
                    if (i == 2) {
                        throw new IllegalArgumentException("no lane 2");
                    }
                    return m.lane(m.started.size());
                }))
                .verifyErrorMessage("no lane 2");
        assertEquals(2, m.cancelled.get());
        StepVerifier.create(Lanes.all(2, 1, i -> null)).verifyError(NullPointerException.class);
    }

    @Test
    void noLanesCompleteAtOnceAndBadArgumentsAreRefused() {
        StepVerifier.create(Lanes.all(0, 1, i -> Mono.never())).expectComplete().verify(Duration.ofSeconds(1));
        assertThrows(IllegalArgumentException.class, () -> Lanes.all(1, 0, i -> Mono.empty()));
        assertThrows(IllegalArgumentException.class, () -> Lanes.all(-1, 1, i -> Mono.empty()));
    }

    @Test
    void eachSubscriptionRunsTheLanesAgain() {
        AtomicInteger ran = new AtomicInteger();
        Mono<Void> lanes = Lanes.all(3, 2, i -> Mono.fromRunnable(ran::incrementAndGet));
        lanes.block(Duration.ofSeconds(1));
        lanes.block(Duration.ofSeconds(1));
        assertEquals(6, ran.get());
        assertTrue(ran.get() > 0);
    }
}
