package io.reactivecollectives.core.rendezvous;

import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link StoreContractTest} suite on a {@link PrefixStore} over a {@link HashStore}, plus isolation. */
class PrefixStoreTest extends StoreContractTest {

    @Override
    protected Store newStore(Duration timeout) {
        return new PrefixStore("group0", new HashStore(timeout));
    }

    @Override
    protected int pendingWaiters(Store store) {
        return ((HashStore) ((PrefixStore) store).underlying()).pendingWaiters();
    }

    @Override
    protected void closeStore(Store store) {
        store.close();
        ((PrefixStore) store).underlying().close();
    }

    @Test
    void keysLiveUnderThePrefixInTheUnderlyingStore() {
        PrefixStore store = (PrefixStore) store();
        Store under = store.underlying();
        store.set("addr", b("10.0.0.1")).block();
        assertEquals("10.0.0.1", s(under.get("group0/addr").block()));
        assertFalse(under.check(List.of("addr")).block());
        under.set("group0/fromBelow", b("x")).block();
        assertEquals("x", s(store.get("fromBelow").block()));
        assertEquals("group0", store.prefix());
    }

    @Test
    void twoPrefixesOverOneStoreAreIsolated() {
        HashStore shared = new HashStore(Duration.ofSeconds(20));
        try {
            PrefixStore a = new PrefixStore("a", shared);
            PrefixStore bStore = new PrefixStore("b", shared);
            assertSame(shared, a.underlying());
            a.set("rank0", b("from-a")).block();
            bStore.set("rank0", b("from-b")).block();
            assertEquals("from-a", s(a.get("rank0").block()));
            assertEquals("from-b", s(bStore.get("rank0").block()));
            assertEquals(3L, a.add("count", 3).block());
            assertEquals(1L, bStore.add("count", 1).block());
            assertEquals(7L, a.add("count", 4).block());
            a.multiSet(Map.of("only-a", b("1"))).block();
            assertFalse(bStore.check(List.of("only-a")).block());
            assertTrue(bStore.delete("rank0").block());
            assertEquals("from-a", s(a.get("rank0").block()));
            // a wait in one namespace is not satisfied by the other
            StepVerifier.create(bStore.get("only-a", Duration.ofMillis(150)))
                    .expectErrorSatisfies(e -> assertEquals(List.of("b/only-a"),
                            assertInstanceOf(StoreTimeoutException.class, e).missingKeys()))
                    .verify(Duration.ofSeconds(5));
            // numKeys counts the whole underlying store, as c10d's PrefixStore does
            assertEquals(shared.numKeys().block(), a.numKeys().block());
            assertEquals(4L, shared.numKeys().block());
        } finally {
            shared.close();
        }
    }

    @Test
    void prefixesNest() {
        HashStore shared = new HashStore(Duration.ofSeconds(20));
        try {
            PrefixStore inner = new PrefixStore("sub", new PrefixStore("outer", shared));
            inner.set("k", b("v")).block();
            assertEquals("v", s(shared.get("outer/sub/k").block()));
            assertEquals(PrefixStore.class, inner.underlying().getClass());
        } finally {
            shared.close();
        }
    }
}
