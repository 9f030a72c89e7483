package io.reactivecollectives.core.rendezvous;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link StoreContractTest} suite on {@link HashStore}, plus virtual-time and close behaviour. */
class HashStoreTest extends StoreContractTest {

    @Override
    protected Store newStore(Duration timeout) {
        return new HashStore(timeout);
    }

    @Override
    protected int pendingWaiters(Store store) {
        return ((HashStore) store).pendingWaiters();
    }

    @Test
    void timeoutRunsOnVirtualTimeWithoutAThread() {
        HashStore store = (HashStore) store(Duration.ofMinutes(5));
        StepVerifier.withVirtualTime(() -> store.get("slow"))
                .expectSubscription()
                .then(() -> assertEquals(1, store.pendingWaiters()))
                .thenAwait(Duration.ofMinutes(4))
                .expectNoEvent(Duration.ofSeconds(59))
                .thenAwait(Duration.ofSeconds(1))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = (StoreTimeoutException) e;
                    assertEquals(List.of("slow"), te.missingKeys());
                    assertEquals(Duration.ofMinutes(5), te.waited());
                    assertEquals("get: timed out after 300000 ms waiting for keys [slow]", te.getMessage());
                })
                .verify(Duration.ofSeconds(10));
        assertEquals(0, store.pendingWaiters());
    }

    @Test
    void tenThousandWaitersHoldNoThreads() {
        HashStore store = (HashStore) store();
        int before = Thread.activeCount();
        List<Disposable> waits = new java.util.ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            waits.add(store.get("k" + (i % 100)).subscribe());
        }
        assertEquals(10_000, store.pendingWaiters());
        assertTrue(Thread.activeCount() - before < 20, "threads grew from " + before + " to " + Thread.activeCount());
        waits.forEach(Disposable::dispose);
        assertEquals(0, store.pendingWaiters());
    }

    @Test
    void closeFailsPendingAndNewCalls() {
        HashStore store = new HashStore(Duration.ofSeconds(30));
        StepVerifier.create(store.get("x"))
                .expectSubscription()
                .then(store::close)
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalStateException, e.toString());
                    assertTrue(e.getMessage().contains("closed"), e.getMessage());
                })
                .verify(Duration.ofSeconds(5));
        StepVerifier.create(store.set("y", new byte[0])).expectError(IllegalStateException.class).verify(Duration.ofSeconds(5));
        assertEquals(0, store.pendingWaiters());
    }

    @Test
    void badArgumentsAreRejected() {
        HashStore store = (HashStore) store();
        assertThrows(IllegalArgumentException.class, () -> new HashStore(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> store.get("k", Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> store.set(null, new byte[0]));
    }
}
