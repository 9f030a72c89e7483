package io.reactivecollectives.cuda;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OrderedLaneTest {

    private static Mono<String> op(List<String> log, String name, long millis) {
        return Mono.defer(() -> {
            log.add("start " + name);
            return Mono.delay(Duration.ofMillis(millis)).doOnNext(x -> log.add("end " + name)).thenReturn(name);
        });
    }

    @Test
    void operationsRunOneAtATimeInSubscriptionOrder() {
        OrderedLane lane = new OrderedLane();
        List<String> log = new CopyOnWriteArrayList<>();
        Mono<String> a = lane.run(() -> op(log, "a", 60));
        Mono<String> b = lane.run(() -> op(log, "b", 10));
        Mono<String> c = lane.run(() -> op(log, "c", 30));
        assertTrue(log.isEmpty(), "cold: nothing runs before subscription");
        StepVerifier.create(Mono.zip(a, b, c)).expectNextCount(1).verifyComplete();
        assertEquals(List.of("start a", "end a", "start b", "end b", "start c", "end c"), log);
    }

    @Test
    void aFailedOperationLetsTheNextOneRun() {
        OrderedLane lane = new OrderedLane();
        List<String> log = new CopyOnWriteArrayList<>();
        Mono<String> bad = lane.run(() -> Mono.error(new IllegalStateException("bad")));
        Mono<String> next = lane.run(() -> op(log, "next", 5));
        StepVerifier.create(bad).expectErrorMessage("bad").verify(Duration.ofSeconds(5));
        StepVerifier.create(next).expectNext("next").verifyComplete();
    }

    @Test
    void aCancelledWaitingOperationDoesNotLetTheNextOvertakeTheRunningOne() {
        OrderedLane lane = new OrderedLane();
        List<String> log = new CopyOnWriteArrayList<>();
        Mono<String> running = lane.run(() -> op(log, "running", 100));
        Disposable first = running.subscribe();
        Disposable waiting = lane.run(() -> op(log, "cancelled", 10)).subscribe();
        waiting.dispose();
        StepVerifier.create(lane.run(() -> op(log, "after", 5))).expectNext("after").verifyComplete();
        assertEquals(List.of("start running", "end running", "start after", "end after"), log);
        first.dispose();
    }
}
