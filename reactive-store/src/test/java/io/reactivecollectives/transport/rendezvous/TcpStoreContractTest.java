package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreContractTest;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link StoreContractTest} suite against {@link TcpStore}: each store is a fresh
 * {@link TcpStoreServer} on an ephemeral loopback port (TCP only: {@link TcpStoreLocalSocketContractTest}
 * runs the suite through the server's Unix domain socket) and one client connected to it; waiters are
 * counted on the server. Plus client-specific behaviour: pipelining, server loss, frame limits.
 */
class TcpStoreContractTest extends StoreContractTest {

    private final Map<Store, TcpStoreServer> servers = new ConcurrentHashMap<>();

    /** The client options every store of this suite is connected with (a subclass may change them). */
    protected TcpStoreOptions options(int port, Duration timeout) {
        return TcpStoreOptions.of("127.0.0.1", port).withTimeout(timeout);
    }

    /** How every server of this suite is built: TCP only here (subclasses add the local socket). */
    protected TcpStoreServer.Builder server() {
        return TcpStoreServer.builder().unixSocket(false);
    }

    @Override
    protected Store newStore(Duration timeout) {
        TcpStoreServer server = server().start().block(Duration.ofSeconds(10));
        TcpStore store = TcpStore.connect(options(server.port(), timeout)).block(Duration.ofSeconds(10));
        servers.put(store, server);
        return store;
    }

    @Override
    protected void closeStore(Store store) {
        store.close();
        TcpStoreServer server = servers.remove(store);
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected int pendingWaiters(Store store) {
        return serverOf(store).pendingWaits();
    }

    /** The server behind a store made by {@link #newStore(Duration)}. */
    protected TcpStoreServer serverOf(Store store) {
        return servers.get(store);
    }

    @Test
    void manyPipelinedRequestsOnOneConnection() {
        Store store = store();
        int n = 5000;
        List<Long> results = Flux.range(0, n).flatMap(i -> store.add("pipelined", 1), 512).collectList()
                .block(verifyTimeout());
        assertEquals(n, results.size());
        assertEquals(n, results.stream().distinct().count());
        assertEquals(Long.toString(n), s(store.get("pipelined").block(verifyTimeout())));
    }

    @Test
    void serverLossFailsPendingAndLaterCalls() {
        TcpStoreServer server = server().start().block(Duration.ofSeconds(10));
        TcpStore store = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
        try {
            StepVerifier.create(store.get("never"))
                    .expectSubscription()
                    .then(server::close)
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof IllegalStateException, e.toString());
                        assertTrue(e.getMessage().contains("get") && e.getMessage().contains("127.0.0.1:" + server.port()),
                                e.getMessage());
                    })
                    .verify(Duration.ofSeconds(10));
            StepVerifier.create(store.set("k", b("v"))).expectError(IllegalStateException.class).verify(Duration.ofSeconds(10));
        } finally {
            store.close();
            server.close();
        }
    }

    @Test
    void requestOverTheFrameLimitFailsAloneAndTheConnectionStays() {
        TcpStoreServer server = server().maxFrameSize(4096).start().block(Duration.ofSeconds(10));
        TcpStore store = TcpStore.connect(options(server.port(), Duration.ofSeconds(20)).withMaxFrameSize(4096))
                .block(Duration.ofSeconds(10));
        try {
            StepVerifier.create(store.set("big", new byte[5000]))
                    .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException
                            && e.getMessage().contains("frame limit"), e.toString()))
                    .verify(Duration.ofSeconds(10));
            store.set("small", new byte[100]).block(Duration.ofSeconds(10));
            assertEquals(100, store.get("small").block(Duration.ofSeconds(10)).length);
        } finally {
            store.close();
            server.close();
        }
    }

    /**
     * A server whose frame limit is below the client's (a stand-alone store's --max-frame-size) closes
     * the connection over a request above it, as it must (it cannot read past it); the client's calls
     * then say why, naming the limit, instead of a bare 'the server closed the connection'.
     */
    @Test
    void aRequestOverTheServersSmallerLimitSaysWhyTheConnectionClosed() {
        TcpStoreServer server = server().maxFrameSize(4096).start().block(Duration.ofSeconds(10));
        TcpStore store = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
        try {
            // (an unacknowledged set completes once queued: the call after it fails)
            StepVerifier.create(store.set("big", new byte[5000]).then(store.numKeys()))
                    .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("frame length 5016")
                            && e.getMessage().contains("frame limit of 4096 bytes"), e.toString()))
                    .verify(Duration.ofSeconds(10));
            StepVerifier.create(store.numKeys())
                    .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("frame limit of 4096 bytes"), e.toString()))
                    .verify(Duration.ofSeconds(10));
        } finally {
            store.close();
            server.close();
        }
    }

    /**
     * The same with a request far over the limit, most of it still on its way when the server gives
     * up on it: the server must not close with those bytes unread (a reset, which loses the error
     * frame ahead of it: the client saw only 'Broken pipe' about half the time).
     */
    @Test
    void aLargeRequestOverTheServersLimitSaysWhyTheConnectionClosed() {
        for (int i = 0; i < 4; i++) {
            TcpStoreServer server = server().maxFrameSize(4096).start().block(Duration.ofSeconds(10));
            TcpStore store = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
            try {
                StepVerifier.create(store.set("big", new byte[32 << 20]).then(store.numKeys()))
                        .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("frame limit of 4096 bytes"), e.toString()))
                        .verify(Duration.ofSeconds(20));
            } finally {
                store.close();
                server.close();
            }
        }
    }

    @Test
    void connectRetriesUntilTheServerAppearsThenTimesOutNamingIt() {
        // nothing listens on a port we just released: connect fails after its timeout naming the address
        TcpStoreServer probe = server().start().block(Duration.ofSeconds(10));
        int port = probe.port();
        probe.close();
        probe.onClose().block(Duration.ofSeconds(10));
        StepVerifier.create(TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(Duration.ofMillis(600))))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("127.0.0.1:" + port)
                        && e.getMessage().contains("600 ms"), e.getMessage()))
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void cancelledWaitsOfALiveClientAreDroppedOnTheServer() throws InterruptedException {
        Store store = store();
        List<Disposable> waits = Flux.range(0, 50).map(i -> store.get("w" + i).subscribe()).collectList()
                .block(verifyTimeout());
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (pendingWaiters(store) < 50 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(50, pendingWaiters(store));
        waits.forEach(Disposable::dispose);
        awaitNoWaiters(store);
    }
}
