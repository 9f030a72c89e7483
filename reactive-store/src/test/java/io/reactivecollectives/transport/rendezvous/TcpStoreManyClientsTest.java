package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.netty.resources.LoopResources;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** One server, 1,000 client connections at once (sharing one set of event loops), nothing lost. */
class TcpStoreManyClientsTest {

    @Test
    void thousandConcurrentClientsLoseNothing() {
        int n = 1000;
        LoopResources clientLoops = LoopResources.create("h3-store-clients", 2, true);
        TcpStoreServer server = TcpStoreServer.builder().start().block(Duration.ofSeconds(10));
        List<TcpStore> clients = List.of();
        try {
            TcpStoreOptions opts = TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(Duration.ofSeconds(60))
                    .withLoops(clientLoops);
            clients = Flux.range(0, n).flatMap(i -> TcpStore.connect(opts), 128).collectList()
                    .block(Duration.ofSeconds(60));
            assertEquals(n, clients.size());
            assertEquals(n, server.connections());
            List<TcpStore> all = clients;
            // every client at once: set its key, read a neighbour's key (waiting for it), add to a shared counter
            List<Long> adds = Flux.range(0, n)
                    .flatMap(i -> {
                        TcpStore c = all.get(i);
                        byte[] mine = ("value-" + i).getBytes(StandardCharsets.UTF_8);
                        int neighbour = (i + 1) % n;
                        return c.set("key-" + i, mine)
                                .then(c.get("key-" + neighbour))
                                .doOnNext(v -> assertEquals("value-" + neighbour, new String(v, StandardCharsets.UTF_8)))
                                .then(c.add("total", 1));
                    }, n)
                    .collectList()
                    .block(Duration.ofSeconds(60));
            assertEquals(n, adds.size());
            assertEquals(n, adds.stream().distinct().count(), "every add must see its own counter value");
            TcpStore first = clients.get(0);
            assertEquals(Long.toString(n), new String(first.get("total").block(Duration.ofSeconds(10)), StandardCharsets.UTF_8));
            assertEquals(n + 1L, first.numKeys().block(Duration.ofSeconds(10)));
            for (int i = 0; i < n; i += 97) {
                assertEquals("value-" + i, new String(clients.get((i + 3) % n).get("key-" + i).block(Duration.ofSeconds(10)),
                        StandardCharsets.UTF_8));
            }
            assertEquals(0, server.pendingWaits());
        } finally {
            clients.forEach(TcpStore::close);
            server.close();
            clientLoops.disposeLater().block(Duration.ofSeconds(10));
        }
    }
}
