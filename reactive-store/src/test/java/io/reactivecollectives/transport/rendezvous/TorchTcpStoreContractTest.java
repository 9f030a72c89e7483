package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link StoreContractTest} suite against {@link TorchTcpStore} connected to real PyTorch
 * {@code TCPStore} masters (torch 1.x, run by a Python child process, {@link TorchMasters}), found by
 * the store's default protocol detection; skipped
 * with the reason where torch is not installed. The append tests are replaced by checks that
 * append is refused (torch 1.x has no APPEND), and interop with torch's own client is checked.
 */
class TorchTcpStoreContractTest extends StoreContractTest {

    private static TorchMasters masters;
    private final Map<Store, Integer> ports = new ConcurrentHashMap<>();

    @BeforeAll
    static void startMasters() throws IOException {
        Assumptions.assumeTrue(TorchMasters.torchInstalled(),
                "PyTorch is not installed (" + TorchMasters.PYTHON + " -c 'import torch.distributed' failed)");
        masters = TorchMasters.start();
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @Override
    protected Store newStore(Duration timeout) {
        int port = masters.newMaster();
        TorchTcpStore store = TorchTcpStore.connect("127.0.0.1", port, timeout).block(Duration.ofSeconds(10));
        ports.put(store, port);
        return store;
    }

    @Override
    protected void closeStore(Store store) {
        store.close();
        Integer port = ports.remove(store);
        if (port != null) {
            masters.dropMaster(port);
        }
    }

    @Override
    protected int concurrentAdds() {
        return 500;
    }

    /** torch 1.x has no APPEND: the client says so instead of appending. */
    @Test
    @Override
    public void appendConcatenatesAndReturnsTheNewLength() {
        assertAppendUnsupported();
    }

    /** torch 1.x has no APPEND (see {@link #appendConcatenatesAndReturnsTheNewLength()}). */
    @Test
    @Override
    public void concurrentAppendsLoseNothing() {
        assertAppendUnsupported();
    }

    /** torch 1.x has no APPEND (see {@link #appendConcatenatesAndReturnsTheNewLength()}). */
    @Test
    @Override
    public void appendWakesAWaitingGet() {
        assertAppendUnsupported();
    }

    private void assertAppendUnsupported() {
        Store store = store();
        StepVerifier.create(store.append("log", b("abc")))
                .expectErrorSatisfies(e -> assertTrue(e instanceof UnsupportedOperationException
                        && e.getMessage().contains("APPEND") && e.getMessage().contains("log"), e.toString()))
                .verify(verifyTimeout());
        assertFalse(store.check(List.of("log")).block(verifyTimeout()));
    }

    /**
     * torch's server answers an add on a key that holds no decimal integer by closing the connection
     * (torch's own client then fails with 'Connection reset by peer'): the error says so and names
     * the key, instead of a bare 'connection closed'; the next call connects again.
     */
    @Test
    void anAddOnANonCounterSaysWhyTorchClosedTheConnection() {
        Store store = store();
        store.set("words", b("not a number")).block(verifyTimeout());
        StepVerifier.create(store.add("words", 1))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("'words'")
                        && e.getMessage().contains("not a decimal integer"), e.getMessage()))
                .verify(verifyTimeout());
        assertEquals(2L, store.add("counted", 2).block(verifyTimeout()));
    }

    /**
     * A value over {@link TorchTcpStore#MAX_VALUE_SIZE} is refused before it is sent: the client
     * could not read it back (a reply over the limit closes the connection, failing every call on it).
     */
    @Test
    void aValueTooLargeToReadBackIsRefusedBeforeItIsSent() {
        Store store = store();
        byte[] big = new byte[TorchTcpStore.MAX_VALUE_SIZE + 1];
        StepVerifier.create(store.set("big", big))
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException
                        && e.getMessage().contains("'big'") && e.getMessage().contains(Integer.toString(TorchTcpStore.MAX_VALUE_SIZE)),
                        e.toString()))
                .verify(verifyTimeout());
        StepVerifier.create(store.compareSet("big", new byte[0], big)).expectError(IllegalArgumentException.class)
                .verify(verifyTimeout());
        StepVerifier.create(store.multiSet(Map.of("big", big))).expectError(IllegalArgumentException.class)
                .verify(verifyTimeout());
        assertFalse(store.check(List.of("big")).block(verifyTimeout()));
        store.set("fits", new byte[TorchTcpStore.MAX_VALUE_SIZE]).block(verifyTimeout());
        assertEquals(TorchTcpStore.MAX_VALUE_SIZE, store.get("fits").block(verifyTimeout()).length);
    }

    /** The default protocol detection finds torch 1.x, and its probe leaves the store empty. */
    @Test
    void detectsTheOneXServer() {
        TorchTcpStore store = (TorchTcpStore) store();
        assertEquals(TorchStoreProtocol.V1, store.protocol());
        assertEquals(0L, store.numKeys().block(verifyTimeout()));
    }

    @Test
    void keysAreTheKeysOfTorchsOwnClient() {
        Store store = store();
        int port = ports.get(store);
        assertEquals("ok", masters.command("set " + port + " from-python hello"));
        assertEquals("hello", s(store.get("from-python").block(verifyTimeout())));
        store.set("from-java", b("world")).block(verifyTimeout());
        assertEquals("world", masters.command("get " + port + " from-java"));
        assertEquals(7L, store.add("counter", 7).block(verifyTimeout()));
        assertEquals("7", masters.command("get " + port + " counter"));
    }

    @Test
    void aWaitingGetIsWokenByTorchsClient() {
        Store store = store();
        int port = ports.get(store);
        StepVerifier.create(store.get("late"))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(200))
                .then(() -> masters.command("set " + port + " late value"))
                .assertNext(v -> assertEquals("value", s(v)))
                .expectComplete()
                .verify(verifyTimeout());
    }

    @Test
    void closingTheStoreEndsItsWaits() {
        Store store = store();
        StepVerifier.create(store.get("never-set"))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(200))
                .then(store::close)
                .expectError()
                .verify(Duration.ofSeconds(5));
    }
}
