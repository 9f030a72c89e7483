package io.reactivecollectives.core.rendezvous;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MeteredStore} keeps the contract (the whole suite runs through it) and times each op by outcome. */
class MeteredStoreTest extends StoreContractTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Override
    protected Store newStore(Duration timeout) {
        return new MeteredStore(new HashStore(timeout), new SimpleMeterRegistry());
    }

    @Override
    protected int pendingWaiters(Store store) {
        return ((HashStore) ((MeteredStore) store).delegate()).pendingWaiters();
    }

    private static long count(SimpleMeterRegistry registry, String op, String outcome) {
        Timer timer = registry.find(MeteredStore.TIMER).tag("op", op).tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void everyOperationIsTimedByOpAndOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MeteredStore store = new MeteredStore(new HashStore(WAIT), registry)) {
            store.set("a", b("1")).block(WAIT);
            store.set("n", b("x")).block(WAIT);
            store.get("a").block(WAIT);
            store.add("c", 1).block(WAIT);
            store.add("c", 1).block(WAIT);
            store.compareSet("a", b("1"), b("2")).block(WAIT);
            store.await(List.of("a"), WAIT).block(WAIT);
            store.check(List.of("a")).block(WAIT);
            store.delete("a").block(WAIT);
            store.numKeys().block(WAIT);
            store.multiSet(Map.of("m", b("1"))).block(WAIT);
            store.multiGet(List.of("m")).block(WAIT);
            store.append("l", b("x")).block(WAIT);

            assertEquals(2, count(registry, "set", "success"));
            assertEquals(2, count(registry, "add", "success"));
            for (String op : List.of("get", "compareSet", "await", "check", "delete", "numKeys", "multiSet", "multiGet", "append")) {
                assertEquals(1, count(registry, op, "success"), op);
            }
            Timer set = registry.find(MeteredStore.TIMER).tags("op", "set", "outcome", "success", "store", "HashStore").timer();
            assertTrue(set != null && set.totalTime(TimeUnit.NANOSECONDS) > 0);

            // a timeout, an error, a cancellation
            StepVerifier.create(store.get("missing", Duration.ofMillis(100))).expectError(StoreTimeoutException.class).verify(WAIT);
            StepVerifier.create(store.add("n", 1)).expectError(IllegalArgumentException.class).verify(WAIT);
            Disposable waiting = store.get("never").subscribe();
            waiting.dispose();
            assertEquals(1, count(registry, "get", "timeout"));
            assertEquals(1, count(registry, "add", "error"));
            assertEquals(1, count(registry, "get", "cancelled"));
            Timer timeout = registry.find(MeteredStore.TIMER).tags("op", "get", "outcome", "timeout").timer();
            assertTrue(timeout.totalTime(TimeUnit.MILLISECONDS) >= 95, "the wait is part of the time: " + timeout.totalTime(TimeUnit.MILLISECONDS));
        }
    }

    @Test
    void aWaitingGetIsTimedWhenItCompletes() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MeteredStore store = new MeteredStore(new HashStore(WAIT), registry, Tags.of("store", "rdzv", "group", "g0"))) {
            StepVerifier.create(store.get("late"))
                    .expectSubscription()
                    .then(() -> assertEquals(0, count(registry, "get", "success")))
                    .expectNoEvent(Duration.ofMillis(50))
                    .then(() -> store.set("late", b("v")).subscribe())
                    .expectNextCount(1)
                    .verifyComplete();
            Timer get = registry.find(MeteredStore.TIMER).tags("op", "get", "store", "rdzv", "group", "g0").timer();
            assertEquals(1, get.count());
            assertTrue(get.totalTime(TimeUnit.MILLISECONDS) >= 45);
        }
    }

    @Test
    void nothingIsRecordedBeforeSubscriptionAndTheDefaultRegistryIsGlobal() {
        SimpleMeterRegistry global = new SimpleMeterRegistry();
        Metrics.addRegistry(global);
        try (MeteredStore store = new MeteredStore(new HashStore(WAIT))) {
            long before = count(global, "set", "success");
            var unsubscribed = store.set("k", b("v"));
            assertEquals(before, count(global, "set", "success"));
            unsubscribed.block(WAIT);
            assertEquals(before + 1, count(global, "set", "success"));
            assertSame(HashStore.class, store.delegate().getClass());
        } finally {
            Metrics.removeRegistry(global);
        }
    }
}
