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
 * The port of rank 0's store, settled before any rank starts. On the node that serves the store
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
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as rank 0's store does: a port left in TIME_WAIT is free
            probe.bind(new InetSocketAddress(InetAddress.getByName(bind), masterPort));
            return probe.getLocalPort();
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

    private static IllegalArgumentException cannotListen(String bind, int port, Exception e) {
        return new IllegalArgumentException("--master-port " + port + ": rank 0's store cannot listen on " + bind + ":"
                + port + " (" + e.getMessage() + (bind.equals("0.0.0.0") ? "" : "; " + EnvRendezvous.BIND_ENV
                + " names the address") + ")", e);
    }
}
