package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.store.settings.StoreSettings;
import io.reactivecollectives.store.wire.UnixSocketFiles;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The Unix domain socket a {@link TcpStoreServer} binds beside its TCP port, for clients on the
 * same host: {@code <java.io.tmpdir>/rc-store-<port>.sock}. A client whose server address is a
 * loopback one ({@code 127.0.0.1}, {@code localhost}, {@code ::1}) tries this socket first and
 * falls back to TCP when it is not there. The protocol, the handshake and authentication are the
 * same on both; TLS connections always use TCP.
 *
 * <p>Why: most of the server's time per request is the kernel's loopback TCP path of its answer
 * (the profile is in {@code perf/RESULTS.md}); a Unix socket
 * hands the bytes to the peer without the TCP stack.
 *
 * <p>On unless the system property {@code rc.store.unixSockets} is {@code false} (read by both
 * the server and the client). Two hosts' network namespaces sharing one temporary directory (and
 * so one socket file per port) should turn it off. The file itself is handled by
 * {@link UnixSocketFiles}, as the mesh's are.
 */
final class StoreLocalSocket {

    /** On unless {@code -Drc.store.unixSockets=false}. */
    static boolean enabled() {
        return StoreSettings.STORE_UNIX_SOCKETS.get();
    }

    private StoreLocalSocket() {
    }

    /** The socket file of the server listening on TCP port {@code port} of this host. */
    static Path path(int port) {
        return UnixSocketFiles.inTempDir("rc-store-" + port + ".sock");
    }

    /** Whether {@code host} names this host's loopback interface (no name resolution). */
    static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]")
                || h.equals("0:0:0:0:0:0:0:1");
    }
}
