package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The server's gauges and counters: they follow the server, go with it on close, and a later
 * server on the same port reports its own (Micrometer would otherwise keep the first server's).
 */
class TcpStoreServerMetricsTest {

    private static final Duration T = Duration.ofSeconds(10);

    private static double connections(SimpleMeterRegistry reg, int port) {
        Gauge g = reg.find("rc.store.server.connections").tag("port", Integer.toString(port)).gauge();
        return g == null ? Double.NaN : g.value();
    }

    @Test
    void metersFollowTheServerAndGoWithIt() throws InterruptedException {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        TcpStoreServer first = TcpStoreServer.builder().meterRegistry(reg).start().block(T);
        int port = first.port();
        TcpStore client = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port)).block(T);
        assertEquals(1.0, connections(reg, port));
        client.close();
        first.close();
        first.onClose().block(T);
        assertNull(reg.find("rc.store.server.connections").tag("port", Integer.toString(port)).gauge(),
                "the closed server's gauge was removed");

        // the port is free again, but another socket of this machine may take it for a moment (an
        // outgoing connection's ephemeral port): try again until it is ours
        TcpStoreServer second = TcpStoreServer.builder().port(port).meterRegistry(reg).start()
                .retryWhen(reactor.util.retry.Retry.fixedDelay(50, Duration.ofMillis(100))).block(T);
        try {
            assertEquals(0.0, connections(reg, port), "the new server's own gauge");
            TcpStore again = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port)).block(T);
            assertEquals(1L, again.add("n", 1).block(T));
            assertEquals(1.0, connections(reg, port));
            again.close();
        } finally {
            second.close();
        }
    }
}
