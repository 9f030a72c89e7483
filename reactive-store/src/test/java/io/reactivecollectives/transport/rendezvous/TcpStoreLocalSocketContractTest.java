package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link TcpStoreContractTest} suite through the server's Unix domain socket (loopback
 * clients take it when the server has one), checking after each test that every store of the suite
 * did connect through it.
 */
class TcpStoreLocalSocketContractTest extends TcpStoreContractTest {

    private final List<TcpStore> stores = new ArrayList<>();

    @Override
    protected TcpStoreServer.Builder server() {
        return TcpStoreServer.builder();
    }

    @Override
    protected Store newStore(Duration timeout) {
        TcpStore store = (TcpStore) super.newStore(timeout);
        stores.add(store);
        return store;
    }

    @AfterEach
    void everyStoreUsedTheLocalSocket() {
        for (TcpStore s : stores) {
            assertTrue(s.isLocalSocket(), s + " connected over TCP");
        }
        stores.clear();
    }
}
