package io.reactivecollectives.store.raft;

import io.reactivecollectives.transport.rendezvous.StoreReplication;
import io.reactivecollectives.transport.rendezvous.StoreReplicationProvider;

import java.io.IOException;
import java.util.function.UnaryOperator;

/**
 * {@link StoreReplicationProvider} of Apache Ratis: each replica of the store is a Raft peer
 * ({@link RaftStoreReplication}). Registered in {@code META-INF/services}.
 */
public final class RaftReplicationProvider implements StoreReplicationProvider {

    /** Made by {@link java.util.ServiceLoader}. */
    public RaftReplicationProvider() {
    }

    @Override
    public StoreReplication start(Replicas replicas, UnaryOperator<byte[]> apply) throws IOException {
        return RaftStoreReplication.start(replicas, apply);
    }
}
