package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The whole {@link TcpStoreContractTest} suite again with clients whose sets are not acknowledged
 * ({@link TcpStoreOptions#withAcknowledgedSets(boolean) withAcknowledgedSets(false)}, PyTorch
 * TCPStore's {@code set}), through the server's local socket: one client's calls keep their order,
 * so the contract holds as it is.
 * Plus what is particular to sets sent without an answer: many of them in a row all arrive, in
 * order, visible to the next call and to other clients, and large ones are held back by the
 * connection's high-water mark instead of piling up.
 */
class TcpStoreUnacknowledgedSetsTest extends TcpStoreContractTest {

    @Override
    protected TcpStoreServer.Builder server() {
        return TcpStoreServer.builder();
    }

    @Override
    protected TcpStoreOptions options(int port, Duration timeout) {
        return super.options(port, timeout).withAcknowledgedSets(false);
    }

    @Test
    void manySetsInARowArriveInOrderAndTheNextCallSeesTheLast() {
        TcpStoreServer server = server().start().block(Duration.ofSeconds(10));
        TcpStore writer = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
        TcpStore reader = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port())).block(Duration.ofSeconds(10));
        try {
            int n = 20_000;
            Flux.range(1, n).concatMap(i -> writer.set("k" + (i % 100), b(Integer.toString(i))), 0)
                    .blockLast(verifyTimeout());
            // the next call of the same client is ordered after every set
            assertEquals(100L, writer.numKeys().block(verifyTimeout()));
            for (int k = 0; k < 100; k++) {
                int last = n - ((n - k) % 100);
                assertEquals(Integer.toString(last), s(reader.get("k" + k).block(verifyTimeout())), "key k" + k);
            }
        } finally {
            writer.close();
            reader.close();
            server.close();
        }
    }

    @Test
    void largeSetsAreHeldBackByTheConnectionAndAllArrive() {
        TcpStoreServer server = server().start().block(Duration.ofSeconds(10));
        TcpStore writer = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
        try {
            byte[] value = new byte[1 << 20];
            int n = 64; // 64 MiB through a connection whose outbound buffer goes unwritable at 64 KiB
            Flux.range(0, n).concatMap(i -> {
                Arrays.fill(value, (byte) (int) i);
                return writer.set("big" + i, value);
            }, 0).blockLast(verifyTimeout());
            for (int i = 0; i < n; i += 21) {
                byte[] expected = new byte[1 << 20];
                Arrays.fill(expected, (byte) i);
                assertArrayEquals(expected, writer.get("big" + i).block(verifyTimeout()), "big" + i);
            }
        } finally {
            writer.close();
            server.close();
        }
    }

    @Test
    void aWaitingGetOfAnotherClientIsAnsweredByAnUnacknowledgedSet() {
        Store waiting = store();
        TcpStoreServer server = serverOf(waiting);
        TcpStore writer = TcpStore.connect(options(server.port(), Duration.ofSeconds(20))).block(Duration.ofSeconds(10));
        try {
            var value = waiting.get("late").toFuture();
            writer.set("late", b("here")).block(verifyTimeout());
            assertEquals("here", s(value.join()));
        } finally {
            writer.close();
        }
    }
}
