package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Unix domain socket a {@link TcpStoreServer} binds beside its TCP port: loopback clients use
 * it, and see the same store as TCP clients; without it (turned off, or its file gone) they
 * connect over TCP; a non-loopback address never tries it; the file goes with the server.
 */
class TcpStoreLocalSocketTest {

    private static final Duration T = Duration.ofSeconds(10);

    @Test
    void loopbackClientsUseTheLocalSocketAndShareTheStoreWithTcpClients() {
        TcpStoreServer server = TcpStoreServer.builder().start().block(T);
        Path file = server.localSocket();
        try {
            assertNotNull(file);
            assertTrue(Files.exists(file), file.toString());
            TcpStore local = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port())).block(T);
            TcpStore localhost = TcpStore.connect(TcpStoreOptions.of("localhost", server.port())).block(T);
            assertTrue(local.isLocalSocket(), local.toString());
            assertTrue(localhost.isLocalSocket(), localhost.toString());
            local.set("k", "v".getBytes(StandardCharsets.UTF_8)).block(T);
            assertEquals("v", new String(localhost.get("k").block(T), StandardCharsets.UTF_8));
            assertEquals(2, server.connections());
            local.close();
            localhost.close();
        } finally {
            server.close();
        }
        assertFalse(Files.exists(file), "the socket file outlived its server: " + file);
    }

    @Test
    void withoutTheLocalSocketLoopbackClientsUseTcp() {
        TcpStoreServer server = TcpStoreServer.builder().unixSocket(false).start().block(T);
        try {
            assertNull(server.localSocket());
            TcpStore client = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port())).block(T);
            assertFalse(client.isLocalSocket(), client.toString());
            assertEquals(1L, client.add("n", 1).block(T));
            client.close();
        } finally {
            server.close();
        }
    }

    @Test
    void aStaleSocketFileIsReplacedByTheNextServerOnThatPort() throws Exception {
        TcpStoreServer first = TcpStoreServer.builder().start().block(T);
        int port = first.port();
        Path file = first.localSocket();
        first.close();
        first.onClose().block(T);
        Files.createFile(file); // what a killed server would leave behind (not a socket at all)
        // the port is free again, but another socket of this machine may hold it for a moment (an
        // outgoing connection's ephemeral port): try again until it is ours
        TcpStoreServer second = TcpStoreServer.builder().port(port).start()
                .retryWhen(reactor.util.retry.Retry.fixedDelay(50, Duration.ofMillis(100))).block(T);
        try {
            assertEquals(file, second.localSocket());
            TcpStore client = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port)).block(T);
            assertTrue(client.isLocalSocket(), client.toString());
            assertEquals(1L, client.add("n", 1).block(T));
            client.close();
        } finally {
            second.close();
        }
    }

    @Test
    void onlyLoopbackAddressesLookForTheLocalSocket() {
        assertTrue(StoreLocalSocket.isLoopback("127.0.0.1"));
        assertTrue(StoreLocalSocket.isLoopback("127.1.2.3"));
        assertTrue(StoreLocalSocket.isLoopback("LOCALHOST"));
        assertTrue(StoreLocalSocket.isLoopback("::1"));
        assertFalse(StoreLocalSocket.isLoopback("10.0.0.1"));
        assertFalse(StoreLocalSocket.isLoopback("node-7"));
        assertFalse(StoreLocalSocket.isLoopback("localhost.example.com"));
    }
}
