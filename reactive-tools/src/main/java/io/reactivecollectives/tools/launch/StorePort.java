package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.launch.EnvRendezvous;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * The port of rank 0's store (or of the launcher's own, {@link AgentStore}, which binds where rank 0's
 * would), settled before any rank starts. On the node that serves the store
 * (node rank 0, unless torchrun's agent store is used: {@code TORCHELASTIC_USE_AGENT_STORE=True}),
 * {@code --master-addr} must resolve, and the port is either picked free ({@code --master-port 0})
 * or probed by listening on it where rank 0's store will listen ({@code RC_STORE_BIND}, default
 * every interface), so that a port in use is one line from the launcher, not a bind failure on
 * rank 0 and a timeout on the others. The usual race remains, as with torchrun: another process may
 * take the port between the probe and rank 0's bind.
 */
final class StorePort {

    private StorePort() {
    }

    /**
     * The port the ranks get in {@code MASTER_PORT}.
     *
     * @throws IllegalArgumentException with a one-line message naming the option, when the port
     *                                  is out of range, in use or cannot be listened on, or the
     *                                  address does not resolve
     */
    static int settle(String masterAddr, int masterPort, int nodeRank, int nnodes, Map<String, String> env) {
        if (masterPort < 0 || masterPort > 65535) {
            throw new IllegalArgumentException("--master-port " + masterPort + " is not a port (0 to 65535)");
        }
        if (nodeRank != 0 || EnvRendezvous.usesAgentStore(env)) {
            return masterPort; // the store is served elsewhere
        }
        try {
            InetAddress.getByName(masterAddr);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--master-addr " + masterAddr + " is not a known host", e);
        }
        String bind = EnvRendezvous.storeBind(env);   // where rank 0's store will bind
        try {
            return probe(bind, masterPort);
        } catch (BindException e) {
            if (masterPort != 0 && String.valueOf(e.getMessage()).contains("in use")) {
                throw new IllegalArgumentException("--master-port " + masterPort + " is in use on this host (another"
                        + " job's store?); stop that job or pick another port" + (nnodes == 1 ? ", or leave"
                        + " --master-port out for a free one" : ""), e);
            }
            throw cannotListen(bind, masterPort, e);
        } catch (IOException | SecurityException e) {
            throw cannotListen(bind, masterPort, e);
        }
    }

    /**
     * Binds {@code host:port} for a moment, with address reuse as the servers do (a port left in
     * TIME_WAIT is free), and gives it back.
     *
     * @return the port bound (the one picked when {@code port} is 0)
     * @throws BindException when it is in use or cannot be listened on
     * @throws IOException   when the host does not resolve or the socket fails otherwise
     */
    static int probe(String host, int port) throws IOException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(InetAddress.getByName(host), port));
            return probe.getLocalPort();
        }
    }

    private static IllegalArgumentException cannotListen(String bind, int port, Exception e) {
        return new IllegalArgumentException("--master-port " + port + ": rank 0's store cannot listen on " + bind + ":"
                + port + " (" + e.getMessage() + (bind.equals("0.0.0.0") ? "" : "; " + EnvRendezvous.BIND_ENV
                + " names the address") + ")", e);
    }
}
