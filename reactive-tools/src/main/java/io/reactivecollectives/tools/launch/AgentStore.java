package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.rendezvous.StoreReplicationProvider;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The store served by the launcher's own process, as torchrun's agent store: with
 * {@code --agent-store} (on whenever {@code --max-restarts} is above 0) the launcher of node rank 0
 * serves the {@link TcpStoreServer} on {@code MASTER_PORT}, and every rank of every node gets
 * {@code RC_AGENT_STORE=1} ({@link EnvRendezvous#AGENT_STORE_RC_ENV}), so that no rank starts a server
 * and each, rank 0 included, connects to the launcher's ({@link EnvRendezvous#connect}). The
 * rendezvous then outlives any rank: a rank restarted, rank 0 too, finds the store where it was.
 * The server is the one rank 0's would be ({@link EnvRendezvous#startLauncherStore}: bound to
 * {@code RC_STORE_BIND}, with the ranks' {@code RC_STORE_SECRET}, TLS when {@code RC_STORE_TLS_CERT}
 * is set). The launcher is a plain main program: it waits for the
 * bind here, once, before any rank starts.
 */
final class AgentStore implements AutoCloseable {

    /** How long the launcher waits for its store to listen. */
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);

    private final TcpStoreServer server;
    /** A replica's log directory, removed on close; or null. */
    private final Path storage;

    private AgentStore(TcpStoreServer server, Path storage) {
        this.server = server;
        this.storage = storage;
    }

    /** The variable every rank gets, and its value, when the launcher (of some node) serves the store. */
    static Map.Entry<String, String> childVariable() {
        return Map.entry(EnvRendezvous.AGENT_STORE_RC_ENV, "1");
    }

    /**
     * Whether this node's launcher serves the store: with the agent store on, on node rank 0, unless
     * torchrun's agent store serves the ranks already ({@code TORCHELASTIC_USE_AGENT_STORE}).
     */
    static boolean hostedHere(boolean on, int nodeRank, Map<String, String> env) {
        return on && nodeRank == 0 && !EnvRendezvous.usesAgentStore(env);
    }

    /**
     * The store this node's launcher serves, started: its replica with {@code --store-peers}, else
     * the agent store on node rank 0 ({@link #hostedHere}); null when it serves none.
     *
     * @throws IllegalArgumentException with a one-line message when it cannot start
     */
    static AgentStore forNode(StorePeers peers, boolean on, int nodeRank, int port, Map<String, String> env) {
        return peers != null ? startReplica(peers, nodeRank, env) : hostedHere(on, nodeRank, env) ? start(port, env) : null;
    }

    /**
     * Starts the store on {@code port} (settled free by {@link StorePort}; 0 picks one) and waits until
     * it listens.
     *
     * @param port the store's port, or 0 for a free one
     * @param env  the launcher's environment (bind address, secret, TLS files)
     * @return the listening store, which the launcher closes once its ranks are done
     * @throws IllegalArgumentException with a one-line message when it cannot listen or a TLS file is unreadable
     */
    static AgentStore start(int port, Map<String, String> env) {
        String bind = EnvRendezvous.storeBind(env);
        try {
            TcpStoreServer server = EnvRendezvous.startLauncherStore(env, port, b -> b).block(BIND_TIMEOUT);
            if (server == null) {
                throw new IllegalStateException("no server");
            }
            return new AgentStore(server, null);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the launcher's store cannot listen on " + bind + ":" + port + " ("
                    + e.getMessage() + ")", e);
        }
    }

    /**
     * Starts this node's replica of the store the nodes hold together ({@code --store-peers}): its
     * store on its entry's port, its replica on the next one, its log in memory and Ratis's metadata
     * in a fresh temporary directory (a replica that comes back after its node was lost starts empty
     * and is caught up by the others).
     *
     * @param peers    every node's store
     * @param nodeRank this node
     * @param env      the launcher's environment (bind address, secret, TLS files)
     * @return the listening store, which the launcher closes once its ranks are done
     * @throws IllegalArgumentException with a one-line message when it cannot start
     */
    static AgentStore startReplica(StorePeers peers, int nodeRank, Map<String, String> env) {
        StoreReplicationProvider provider = StoreReplicationProvider.find().orElseThrow(() -> new IllegalArgumentException(
                "--store-peers needs reactive-store-raft on the launcher's class path"));
        // Ratis logs every peer it cannot reach, and its own shutdown, at WARN: the launcher says what matters
        String quiet = "org.slf4j.simpleLogger.log.org.apache.ratis";
        System.setProperty(quiet, System.getProperty(quiet, "error"));
        Path dir = null;
        try {
            dir = Files.createTempDirectory("rc-store-replica-" + nodeRank + "-");
            StoreReplicationProvider.Replicas replicas = new StoreReplicationProvider.Replicas(peers.replicas(), nodeRank,
                    peers.group(), dir);
            TcpStoreServer server = EnvRendezvous.startLauncherStore(env, peers.port(nodeRank),
                    b -> b.replicated(provider, replicas)).block(BIND_TIMEOUT);
            if (server == null) {
                throw new IllegalStateException("no server");
            }
            return new AgentStore(server, dir);
        } catch (java.io.IOException | RuntimeException e) {
            delete(dir);
            throw new IllegalArgumentException("--store-peers: node " + nodeRank + "'s store replica cannot start at "
                    + peers.stores().get(nodeRank) + " (" + e.getMessage() + ")", e);
        }
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | java.io.UncheckedIOException ignored) {
            // a temporary directory: left for the system to clean
        }
    }

    /** {@return the port the store listens on, which the ranks get in {@code MASTER_PORT}} */
    int port() {
        return server.port();
    }

    /** Stops the store (its clients, the ranks, are done or stopped by then). */
    @Override
    public void close() {
        server.close();
        delete(storage);
    }
}
