package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreContractTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The {@link StoreContractTest} suite, append and multi-key calls included, against
 * {@link TorchTcpStore} with its default protocol detection, connected to {@link FakeTorch2Server}s
 * of the libuv flavor (torch's default server since 2.4); {@link TorchTcpStoreV2LegacyContractTest}
 * runs it against the legacy flavor. The fake's waiter count backs the checks that cancelled and timed-out waits leave nothing.
 */
class TorchTcpStoreV2ContractTest extends StoreContractTest {

    private final Map<Store, FakeTorch2Server> servers = new ConcurrentHashMap<>();

    protected FakeTorch2Server.Flavor flavor() {
        return FakeTorch2Server.Flavor.LIBUV;
    }

    @Override
    protected Store newStore(Duration timeout) {
        FakeTorch2Server server;
        try {
            server = new FakeTorch2Server(flavor());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TorchTcpStore store = TorchTcpStore.connect("127.0.0.1", server.port(), timeout).block(Duration.ofSeconds(10));
        servers.put(store, server);
        return store;
    }

    @Override
    protected void closeStore(Store store) {
        store.close();
        FakeTorch2Server server = servers.remove(store);
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected int pendingWaiters(Store store) {
        return servers.get(store).waiters();
    }

    @Test
    void detectsTheTwoXServerAndTheProbeLeavesNoKey() {
        TorchTcpStore store = (TorchTcpStore) store();
        assertEquals(TorchStoreProtocol.V2, store.protocol());
        assertEquals(0, servers.get(store).numKeys());
        assertEquals(0L, store.numKeys().block(verifyTimeout()));
    }
}
