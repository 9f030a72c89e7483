package io.reactivecollectives.transport.launch;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;

import java.util.Optional;

/**
 * What a launched process learns at start: the store through which ranks meet (a TCP store
 * client), its rank, the world size, its rank on this node, the launcher the values came from, and
 * (on rank 0) the TCP store server it embeds. {@link #close()} closes the client, then the server.
 *
 * @param store     the store client through which the ranks meet
 * @param rank      this process's rank
 * @param worldSize the number of ranks
 * @param localRank this process's rank on its node
 * @param launcher  the launcher the values came from
 * @param server    the TCP store server this process embeds (rank 0), or null
 */
public record Rendezvous(Store store, int rank, int worldSize, int localRank, String launcher, TcpStoreServer server)
        implements AutoCloseable {

    /**
     * The embedded server, present on rank 0.
     *
     * @return the server on rank 0, empty on the other ranks
     */
    public Optional<TcpStoreServer> embeddedServer() {
        return Optional.ofNullable(server);
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }
}
