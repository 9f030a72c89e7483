package io.reactivecollectives.transport.rendezvous;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.UnaryOperator;

/**
 * Makes the {@link StoreReplication} of one replica; found through {@link ServiceLoader} on the class
 * path ({@code reactive-store-raft} provides Apache Ratis's Raft). {@code collectives-run
 * --store-peers} uses it so that every node's launcher holds a replica of the job's store.
 */
public interface StoreReplicationProvider {

    /**
     * Where the replicas are and which one this is.
     *
     * @param peers   every replica's address for the replicas' own traffic, in the same order on every replica
     * @param self    this replica's index in {@code peers}
     * @param group   the name of the replica set (the same on every replica, different per job)
     * @param storage a directory this replica may write its log to (fresh for every start)
     */
    record Replicas(List<InetSocketAddress> peers, int self, String group, Path storage) {
        /**
         * Checks and copies the peers.
         *
         * @param peers   every replica's address, in the same order on every replica
         * @param self    this replica's index in {@code peers}
         * @param group   the name of the replica set
         * @param storage a directory this replica may write to
         */
        public Replicas {
            peers = List.copyOf(peers);
            if (self < 0 || self >= peers.size()) {
                throw new IllegalArgumentException("replica index " + self + " is not in [0, " + peers.size() + ")");
            }
        }
    }

    /**
     * Starts this replica; blocks until it serves (call it off event loops).
     *
     * @param replicas where the replicas are and which one this is
     * @param apply    applies one committed command to this replica's state and returns its result;
     *                 called in log order, one at a time
     * @return the running replication
     * @throws java.io.IOException when the replica cannot listen or store its log
     */
    StoreReplication start(Replicas replicas, UnaryOperator<byte[]> apply) throws java.io.IOException;

    /**
     * The provider on the class path, if any.
     *
     * @return the first provider {@link ServiceLoader} finds
     */
    static Optional<StoreReplicationProvider> find() {
        return ServiceLoader.load(StoreReplicationProvider.class).findFirst();
    }
}
