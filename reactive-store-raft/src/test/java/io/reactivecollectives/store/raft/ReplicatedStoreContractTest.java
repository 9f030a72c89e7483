package io.reactivecollectives.store.raft;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreContractTest;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store contract (every operation, waits, timeouts, counters under contention) against a store
 * of three Raft replicas, through the client of replica 1: writes go through the log, reads and waits
 * are served by replica 1 once it caught up, so a replicated store is a store like any other.
 */
class ReplicatedStoreContractTest extends StoreContractTest {

    private final Map<Store, Replicas> sets = new ConcurrentHashMap<>();

    @Override
    protected Store newStore(Duration timeout) {
        Replicas r = new Replicas(3);
        TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", r.servers.get(1).port()).withTimeout(timeout))
                .block(Replicas.T);
        sets.put(store, r);
        return store;
    }

    @Override
    protected void closeStore(Store store) {
        store.close();
        Replicas r = sets.remove(store);
        if (r != null) {
            r.closeInBackground();
        }
    }

    @Override
    protected int pendingWaiters(Store store) {
        return sets.get(store).servers.get(1).pendingWaits();
    }
}
