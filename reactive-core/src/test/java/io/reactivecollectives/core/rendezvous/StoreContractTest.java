package io.reactivecollectives.core.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link Store} must show, as a JUnit 5 suite to extend: a concrete subclass
 * implements {@link #newStore(Duration)} and inherits every test. It lives in the reactive-core
 * test-jar, so other modules extend it too (the TCP store's {@code TcpStoreContractTest} in
 * reactive-transport).
 *
 * <p>What it pins down, beyond the {@link Store} Javadoc:
 * <ul>
 *   <li>every call is cold: nothing happens before subscription;</li>
 *   <li>{@code get}/{@code await}/{@code multiGet} complete when another subscriber creates the
 *       keys (by {@code set}, {@code add}, {@code append}, {@code compareSet} or {@code multiSet}),
 *       and otherwise fail after the timeout with a {@link StoreTimeoutException} whose
 *       {@code missingKeys()} are exactly the keys still absent (as the store names them) and whose
 *       {@code waited()} is the timeout;</li>
 *   <li>{@code compareSet} follows c10d: an empty expectation matches an absent key; on a match the
 *       desired value is stored and returned; an absent key with a non-empty expectation is left
 *       absent and the expectation is returned; otherwise the current value is returned;</li>
 *   <li>{@code add} is atomic: N concurrent adds of 1 return each of 1..N exactly once;</li>
 *   <li>counters are stored as decimal text; values are copied (mutating an array after
 *       {@code set} changes nothing);</li>
 *   <li>cancelling a waiting call leaves nothing behind ({@link #pendingWaiters(Store)}).</li>
 * </ul>
 *
 * <p>Stores made by {@link #newStore(Duration)} are closed after each test (override
 * {@link #closeStore(Store)} to change that). Hooks let an implementation scale the suite:
 * {@link #shortWait()} (the timeout used where a timeout is expected) and
 * {@link #concurrentAdds()}.
 */
public abstract class StoreContractTest {

    private final List<Store> created = new CopyOnWriteArrayList<>();

    /** A fresh, empty store whose default wait is {@code timeout}. */
    protected abstract Store newStore(Duration timeout);

    /** The timeout used by tests that expect a wait to run out. */
    protected Duration shortWait() {
        return Duration.ofMillis(250);
    }

    /** How long a test lets a call take before calling the store hung. */
    protected Duration verifyTimeout() {
        return Duration.ofSeconds(20);
    }

    /** The number of parallel {@code add}s in {@link #addIsAtomicUnderConcurrency()}. */
    protected int concurrentAdds() {
        return 2000;
    }

    /**
     * The waiters the store holds now, or -1 when the implementation cannot tell (then the
     * cancellation tests check behaviour only).
     */
    protected int pendingWaiters(Store store) {
        return -1;
    }

    /** Releases a store made by {@link #newStore(Duration)}; closes it by default. */
    protected void closeStore(Store store) {
        store.close();
    }

    /** A store with the default wait used by the suite (20 s), closed after the test. */
    protected final Store store() {
        return store(verifyTimeout());
    }

    /** A store with default wait {@code timeout}, closed after the test. */
    protected final Store store(Duration timeout) {
        Store s = newStore(timeout);
        created.add(s);
        return s;
    }

    @AfterEach
    public void closeCreatedStores() {
        for (Store s : created) {
            closeStore(s);
        }
        created.clear();
    }

    protected static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    // --- set / get -------------------------------------------------------------------------------

    @Test
    public void setThenGetReturnsTheValue() {
        Store store = store();
        StepVerifier.create(store.set("alpha", b("one"))).verifyComplete();
        StepVerifier.create(store.get("alpha")).assertNext(v -> assertEquals("one", s(v))).verifyComplete();
        StepVerifier.create(store.set("alpha", b("two"))).verifyComplete();
        StepVerifier.create(store.get("alpha")).assertNext(v -> assertEquals("two", s(v))).verifyComplete();
    }

    @Test
    public void emptyAndBinaryValuesRoundTrip() {
        Store store = store();
        byte[] binary = new byte[1000];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 37);
        }
        store.set("empty", new byte[0]).then(store.set("binary", binary)).block(verifyTimeout());
        assertArrayEquals(new byte[0], store.get("empty").block(verifyTimeout()));
        assertArrayEquals(binary, store.get("binary").block(verifyTimeout()));
        assertTrue(store.check(List.of("empty", "binary")).block(verifyTimeout()));
    }

    @Test
    public void valuesAreCopied() {
        Store store = store();
        byte[] value = b("abc");
        store.set("k", value).block(verifyTimeout());
        value[0] = 'X';
        byte[] read = store.get("k").block(verifyTimeout());
        assertEquals("abc", s(read));
        read[1] = 'Y';
        assertEquals("abc", s(store.get("k").block(verifyTimeout())));
    }

    @Test
    public void callsAreColdUntilSubscribed() {
        Store store = store();
        Mono<Void> set = store.set("lazy", b("v"));
        Mono<Long> add = store.add("counter", 5);
        Mono<Boolean> delete = store.delete("lazy");
        assertFalse(store.check(List.of("lazy")).block(verifyTimeout()), "set ran before subscription");
        assertFalse(store.check(List.of("counter")).block(verifyTimeout()), "add ran before subscription");
        set.block(verifyTimeout());
        assertTrue(store.check(List.of("lazy")).block(verifyTimeout()));
        // subscribing twice runs twice
        assertEquals(5L, add.block(verifyTimeout()));
        assertEquals(10L, add.block(verifyTimeout()));
        assertTrue(delete.block(verifyTimeout()));
        assertFalse(delete.block(verifyTimeout()));
    }

    @Test
    public void getWaitsUntilAnotherSubscriberSets() {
        Store store = store();
        StepVerifier.create(store.get("late"))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(150))
                .then(() -> store.set("late", b("here")).subscribe())
                .assertNext(v -> assertEquals("here", s(v)))
                .expectComplete()
                .verify(verifyTimeout());
    }

    @Test
    public void manyWaitersOnOneKeyAllComplete() {
        Store store = store();
        int n = 100;
        Mono<List<String>> all = Flux.range(0, n)
                .flatMap(i -> store.get("shared").map(StoreContractTest::s), n)
                .collectList();
        StepVerifier.create(all)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(100))
                .then(() -> store.set("shared", b("go")).subscribe())
                .assertNext(list -> {
                    assertEquals(n, list.size());
                    assertTrue(list.stream().allMatch("go"::equals));
                })
                .expectComplete()
                .verify(verifyTimeout());
    }

    @Test
    public void getTimesOutNamingTheKeyAndTheTimeWaited() {
        Store store = store();
        Duration wait = shortWait();
        long start = System.nanoTime();
        StepVerifier.create(store.get("never", wait))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = assertInstanceOf(StoreTimeoutException.class, e);
                    assertTrue(te.missingKeys().size() == 1 && te.missingKeys().get(0).endsWith("never"),
                            "missing keys " + te.missingKeys());
                    assertEquals(wait, te.waited());
                    assertTrue(te.getMessage().contains("never"), te.getMessage());
                    assertTrue(te.getMessage().contains(Long.toString(wait.toMillis())), te.getMessage());
                })
                .verify(verifyTimeout());
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(elapsedMs >= wait.toMillis() - 5, "failed after " + elapsedMs + " ms, before the timeout");
    }

    @Test
    public void aZeroTimeoutDoesNotWait() {
        Store store = store();
        StepVerifier.create(store.set("here", b("v")).then(store.get("here", Duration.ZERO)))
                .assertNext(v -> assertArrayEquals(b("v"), v))
                .expectComplete()
                .verify(verifyTimeout());
        StepVerifier.create(store.await(List.of("here"), Duration.ZERO)).expectComplete().verify(verifyTimeout());
        long start = System.nanoTime();
        StepVerifier.create(store.await(List.of("here", "absent"), Duration.ZERO))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = assertInstanceOf(StoreTimeoutException.class, e);
                    assertEquals(1, te.missingKeys().size(), "missing keys " + te.missingKeys());
                    assertTrue(te.missingKeys().get(0).endsWith("absent"), "missing keys " + te.missingKeys());
                    assertEquals(Duration.ZERO, te.waited());
                })
                .verify(verifyTimeout());
        assertTrue(System.nanoTime() - start < shortWait().toNanos() + 1_000_000_000L, "failed at once");
        assertThrows(IllegalArgumentException.class, () -> store.get("here", Duration.ofMillis(-1)).block(verifyTimeout()));
    }

    @Test
    public void getUsesTheStoreDefaultTimeout() {
        Store store = store(shortWait());
        assertEquals(shortWait(), store.timeout());
        StepVerifier.create(store.get("never"))
                .expectError(StoreTimeoutException.class)
                .verify(verifyTimeout());
    }

    // --- await / check -------------------------------------------------------------------------

    @Test
    public void awaitCompletesWhenAllKeysExist() {
        Store store = store();
        store.set("a", b("1")).block(verifyTimeout());
        StepVerifier.create(store.await(List.of("a", "b", "c"), verifyTimeout()))
                .expectSubscription()
                .then(() -> store.set("c", b("3")).subscribe())
                .expectNoEvent(Duration.ofMillis(100))
                .then(() -> store.set("b", b("2")).subscribe())
                .expectComplete()
                .verify(verifyTimeout());
    }

    @Test
    public void awaitTimesOutNamingOnlyTheMissingKeys() {
        Store store = store();
        store.set("present", b("x")).block(verifyTimeout());
        StepVerifier.create(store.await(List.of("present", "gone1", "gone2"), shortWait()))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = assertInstanceOf(StoreTimeoutException.class, e);
                    assertEquals(2, te.missingKeys().size(), "missing keys " + te.missingKeys());
                    assertTrue(te.missingKeys().get(0).endsWith("gone1"), "missing keys " + te.missingKeys());
                    assertTrue(te.missingKeys().get(1).endsWith("gone2"), "missing keys " + te.missingKeys());
                    assertFalse(te.missingKeys().stream().anyMatch(k -> k.endsWith("present")));
                    assertTrue(te.getMessage().contains("gone1") && te.getMessage().contains("gone2"), te.getMessage());
                })
                .verify(verifyTimeout());
    }

    /** A wait on a thousand keys that times out names a few in its message, and every one in {@code missingKeys()}. */
    @Test
    public void aTimedOutWaitOnManyKeysKeepsItsMessageShort() {
        Store store = store();
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add("many/" + i);
        }
        StepVerifier.create(store.await(keys, shortWait()))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = assertInstanceOf(StoreTimeoutException.class, e);
                    assertEquals(1000, te.missingKeys().size(), "missing keys");
                    assertTrue(te.getMessage().length() < 1000, () -> te.getMessage().length() + " characters: "
                            + te.getMessage().substring(0, 300));
                    assertTrue(te.getMessage().contains("many/0") && te.getMessage().contains("1000 keys"), te.getMessage());
                })
                .verify(verifyTimeout());
    }

    @Test
    public void checkTellsWhetherAllKeysExistWithoutWaiting() {
        Store store = store();
        assertFalse(store.check(List.of("x")).block(verifyTimeout()));
        store.set("x", b("1")).block(verifyTimeout());
        assertTrue(store.check(List.of("x")).block(verifyTimeout()));
        assertFalse(store.check(List.of("x", "y")).block(verifyTimeout()));
        assertTrue(store.check(List.of()).block(verifyTimeout()));
    }

    // --- add ---------------------------------------------------------------------------------------

    @Test
    public void addStartsFromZeroAndStoresDecimalText() {
        Store store = store();
        assertEquals(5L, store.add("n", 5).block(verifyTimeout()));
        assertEquals(3L, store.add("n", -2).block(verifyTimeout()));
        assertEquals(3L, store.add("n", 0).block(verifyTimeout()));
        assertEquals("3", s(store.get("n").block(verifyTimeout())));
        assertEquals(-7L, store.add("neg", -7).block(verifyTimeout()));
        store.set("preset", b("40")).block(verifyTimeout());
        assertEquals(42L, store.add("preset", 2).block(verifyTimeout()));
    }

    @Test
    public void addOnANonCounterFails() {
        Store store = store();
        store.set("text", b("not a number")).block(verifyTimeout());
        StepVerifier.create(store.add("text", 1)).expectError().verify(verifyTimeout());
        assertEquals("not a number", s(store.get("text").block(verifyTimeout())), "the failed add changed the value");
    }

    @Test
    public void addIsAtomicUnderConcurrency() {
        Store store = store();
        int n = concurrentAdds();
        List<Long> results = Flux.range(0, n)
                .parallel(8)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.add("hits", 1))
                .sequential()
                .collectList()
                .block(verifyTimeout().multipliedBy(3));
        assertEquals(n, results.size());
        Set<Long> distinct = new TreeSet<>(results);
        assertEquals(LongStream.rangeClosed(1, n).boxed().collect(Collectors.toCollection(TreeSet::new)), distinct,
                "every add must see a distinct counter value");
        assertEquals(Integer.toString(n), s(store.get("hits").block(verifyTimeout())));
    }

    @Test
    public void addWakesAWaitingGet() {
        Store store = store();
        StepVerifier.create(store.get("ctr"))
                .expectSubscription()
                .then(() -> store.add("ctr", 9).subscribe())
                .assertNext(v -> assertEquals("9", s(v)))
                .expectComplete()
                .verify(verifyTimeout());
    }

    // --- compareSet ------------------------------------------------------------------------------

    @Test
    public void compareSetFollowsC10dSemantics() {
        Store store = store();
        // absent key, non-empty expectation: nothing stored, the expectation comes back
        assertEquals("exp", s(store.compareSet("cs", b("exp"), b("new")).block(verifyTimeout())));
        assertFalse(store.check(List.of("cs")).block(verifyTimeout()));
        // absent key, empty expectation: stored
        assertEquals("first", s(store.compareSet("cs", new byte[0], b("first")).block(verifyTimeout())));
        assertEquals("first", s(store.get("cs").block(verifyTimeout())));
        // present, expectation does not match: unchanged, current value comes back
        assertEquals("first", s(store.compareSet("cs", b("other"), b("second")).block(verifyTimeout())));
        assertEquals("first", s(store.compareSet("cs", new byte[0], b("second")).block(verifyTimeout())));
        assertEquals("first", s(store.get("cs").block(verifyTimeout())));
        // present, expectation matches: swapped
        assertEquals("second", s(store.compareSet("cs", b("first"), b("second")).block(verifyTimeout())));
        assertEquals("second", s(store.get("cs").block(verifyTimeout())));
    }

    @Test
    public void compareSetHasExactlyOneWinnerUnderConcurrency() {
        Store store = store();
        int n = 64;
        List<String> results = Flux.range(0, n)
                .parallel(8)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.compareSet("leader", new byte[0], b("rank" + i)).map(StoreContractTest::s))
                .sequential()
                .collectList()
                .block(verifyTimeout());
        String winner = s(store.get("leader").block(verifyTimeout()));
        assertEquals(n, results.size());
        assertTrue(results.stream().allMatch(winner::equals), "all must see the one winner " + winner + ": " + results);
    }

    @Test
    public void compareSetWakesAWaitingGet() {
        Store store = store();
        StepVerifier.create(store.get("cs-wait"))
                .expectSubscription()
                .then(() -> store.compareSet("cs-wait", new byte[0], b("won")).subscribe())
                .assertNext(v -> assertEquals("won", s(v)))
                .expectComplete()
                .verify(verifyTimeout());
    }

    // --- append --------------------------------------------------------------------------------

    @Test
    public void appendConcatenatesAndReturnsTheNewLength() {
        Store store = store();
        assertEquals(3L, store.append("log", b("abc")).block(verifyTimeout()));
        assertEquals(5L, store.append("log", b("de")).block(verifyTimeout()));
        assertEquals(5L, store.append("log", new byte[0]).block(verifyTimeout()));
        assertEquals("abcde", s(store.get("log").block(verifyTimeout())));
    }

    @Test
    public void concurrentAppendsLoseNothing() {
        Store store = store();
        int n = 200;
        Flux.range(0, n)
                .parallel(8)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.append("many", new byte[] {(byte) 'x'}))
                .sequential()
                .blockLast(verifyTimeout());
        assertEquals(n, store.get("many").block(verifyTimeout()).length);
    }

    @Test
    public void appendWakesAWaitingGet() {
        Store store = store();
        StepVerifier.create(store.get("ap"))
                .expectSubscription()
                .then(() -> store.append("ap", b("tail")).subscribe())
                .assertNext(v -> assertEquals("tail", s(v)))
                .expectComplete()
                .verify(verifyTimeout());
    }

    // --- multiGet / multiSet -----------------------------------------------------------------

    @Test
    public void multiSetThenMultiGetKeepsOrder() {
        Store store = store();
        Map<String, byte[]> entries = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            entries.put("m" + i, b("v" + i));
        }
        store.multiSet(entries).block(verifyTimeout());
        List<String> keys = new ArrayList<>(entries.keySet());
        java.util.Collections.reverse(keys);
        List<byte[]> values = store.multiGet(keys).block(verifyTimeout());
        assertEquals(keys.size(), values.size());
        for (int i = 0; i < keys.size(); i++) {
            assertEquals("v" + keys.get(i).substring(1), s(values.get(i)));
        }
        assertEquals(List.of(), store.multiGet(List.of()).block(verifyTimeout()));
    }

    @Test
    public void multiGetWaitsForMissingKeys() {
        Store store = store();
        store.set("p", b("1")).block(verifyTimeout());
        StepVerifier.create(store.multiGet(List.of("p", "q")))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(100))
                .then(() -> store.multiSet(Map.of("q", b("2"))).subscribe())
                .assertNext(v -> assertEquals(List.of("1", "2"), v.stream().map(StoreContractTest::s).toList()))
                .expectComplete()
                .verify(verifyTimeout());
    }

    @Test
    public void multiGetTimesOutNamingTheMissingKeys() {
        Store store = store(shortWait());
        store.set("have", b("1")).block(verifyTimeout());
        StepVerifier.create(store.multiGet(List.of("have", "lack")))
                .expectErrorSatisfies(e -> {
                    StoreTimeoutException te = assertInstanceOf(StoreTimeoutException.class, e);
                    assertEquals(1, te.missingKeys().size(), "missing keys " + te.missingKeys());
                    assertTrue(te.missingKeys().get(0).endsWith("lack"), "missing keys " + te.missingKeys());
                    assertTrue(te.getMessage().startsWith("multiGet"), "names the call: " + te.getMessage());
                })
                .verify(verifyTimeout());
    }

    // --- delete / numKeys ----------------------------------------------------------------------

    @Test
    public void deleteTellsWhetherTheKeyExisted() {
        Store store = store();
        store.set("d", b("1")).block(verifyTimeout());
        assertTrue(store.delete("d").block(verifyTimeout()));
        assertFalse(store.delete("d").block(verifyTimeout()));
        assertFalse(store.check(List.of("d")).block(verifyTimeout()));
        StepVerifier.create(store.get("d", shortWait())).expectError(StoreTimeoutException.class).verify(verifyTimeout());
        // a deleted counter restarts from zero
        store.add("c", 10).block(verifyTimeout());
        store.delete("c").block(verifyTimeout());
        assertEquals(1L, store.add("c", 1).block(verifyTimeout()));
    }

    @Test
    public void numKeysCountsSetsAndDeletes() {
        Store store = store();
        assertEquals(0L, store.numKeys().block(verifyTimeout()));
        store.set("k1", b("1")).then(store.set("k2", b("2"))).then(store.add("k3", 1)).block(verifyTimeout());
        store.set("k1", b("again")).block(verifyTimeout());
        assertEquals(3L, store.numKeys().block(verifyTimeout()));
        store.delete("k2").block(verifyTimeout());
        assertEquals(2L, store.numKeys().block(verifyTimeout()));
    }

    // --- cancellation --------------------------------------------------------------------------

    @Test
    public void cancellingAWaitingGetLeavesNothingBehind() throws InterruptedException {
        Store store = store();
        List<byte[]> seen = new CopyOnWriteArrayList<>();
        Disposable waiting = store.get("cancelled").subscribe(seen::add);
        Disposable waitingAwait = store.await(List.of("cancelled", "other"), verifyTimeout()).subscribe();
        Thread.sleep(100);
        waiting.dispose();
        waitingAwait.dispose();
        awaitNoWaiters(store);
        store.set("cancelled", b("late")).block(verifyTimeout());
        Thread.sleep(50);
        assertTrue(seen.isEmpty(), "a cancelled get still delivered a value");
        assertEquals("late", s(store.get("cancelled").block(verifyTimeout())));
        assertEquals(1L, store.numKeys().block(verifyTimeout()));
    }

    @Test
    public void timedOutWaitsLeaveNothingBehind() {
        Store store = store();
        for (int i = 0; i < 5; i++) {
            StepVerifier.create(store.get("t" + i, Duration.ofMillis(20)))
                    .expectError(StoreTimeoutException.class)
                    .verify(verifyTimeout());
        }
        awaitNoWaiters(store);
    }

    /** Asserts (when the implementation can tell) that no waiter remains, allowing a moment for cleanup. */
    protected void awaitNoWaiters(Store store) {
        if (pendingWaiters(store) < 0) {
            return;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        int pending;
        while ((pending = pendingWaiters(store)) != 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        assertEquals(0, pending, "waiters left behind");
    }
}
