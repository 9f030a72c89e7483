package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;

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

    private AgentStore(TcpStoreServer server) {
        this.server = server;
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
            TcpStoreServer server = EnvRendezvous.startLauncherStore(env, port).block(BIND_TIMEOUT);
            if (server == null) {
                throw new IllegalStateException("no server");
            }
            return new AgentStore(server);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the launcher's store cannot listen on " + bind + ":" + port + " ("
                    + e.getMessage() + ")", e);
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
    }
}
