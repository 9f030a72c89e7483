package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.transport.settings.TransportSettings;
import io.reactivecollectives.store.wire.UnixSocketFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Unix domain sockets between ranks on the same host: where their files live, how a rank knows a
 * peer shares its host, and the switch.
 *
 * <p>A rank publishes {@code host:port;uds=<path>;node=<id>}; a peer whose {@link #NODE_ID} is the
 * same and that can see the file connects through it, any other through TCP. The node id is the
 * kernel's boot id with the host name (two containers on one host with separate file systems
 * differ in the file check). Measured on the 2-core build machine with a plain socket pair: 8.3-8.6
 * GB/s through a Unix socket against 3.1-3.9 GB/s over loopback TCP. The files themselves are
 * handled by {@link UnixSocketFiles}, as the store's are; a rank's files go when its mesh closes or
 * its JVM exits (SIGTERM too), and the files SIGKILLed ranks left are swept by the next JVM's first
 * mesh on this host ({@link #sweepStaleOnce()}).
 */
final class LocalSockets {

    /** On unless the system property {@code rc.transport.unixSockets} is {@code false}. */
    static final boolean ENABLED = TransportSettings.UNIX_SOCKETS.get();

    /** This host's identity as peers compare it. */
    static final String NODE_ID = nodeId();

    /** Most files one sweep looks at (a temporary directory may hold many). */
    private static final int SWEEP_LIMIT = 10_000;
    private static final AtomicBoolean SWEPT = new AtomicBoolean();
    private static final Logger log = LoggerFactory.getLogger(LocalSockets.class);

    private LocalSockets() {
    }

    private static String nodeId() {
        String boot = "";
        try {
            boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            // not Linux: the host name alone
        }
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown-host";
        }
        return (host + "/" + boot).replace(';', '_');
    }

    /**
     * Removes, once per JVM, the mesh socket files that ranks of processes no longer alive left in
     * the temporary directory ({@code rc-<pid>-<rank>-<id>.sock}: a SIGKILL or a crash runs no
     * shutdown hook), each only when connecting to it is refused ({@link UnixSocketFiles#clearStale}),
     * so a live rank's file is never touched, even one of another PID namespace. Lists the directory
     * and connects: on a thread that may block. Failures are ignored.
     */
    static void sweepStaleOnce() {
        if (!SWEPT.compareAndSet(false, true)) {
            return;
        }
        long self = ProcessHandle.current().pid();
        int looked = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(UnixSocketFiles.inTempDir(""), "rc-*-*-*.sock")) {
            for (Path p : files) {
                if (++looked > SWEEP_LIMIT) {
                    break;
                }
                long pid = pidOf(p.getFileName().toString());
                if (pid > 0 && pid != self && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true)
                        && UnixSocketFiles.clearStale(p)) {
                    log.debug("removed the stale mesh socket file {} (process {} is gone)", p, pid);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("could not sweep stale mesh socket files: {}", e.toString());
        }
    }

    /** The process id in a mesh socket file's name ({@code rc-<pid>-...}), or -1. */
    static long pidOf(String name) {
        int end = name.indexOf('-', 3);
        if (!name.startsWith("rc-") || end < 0) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(3, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A fresh socket path for {@code rank} of this process, in the temporary directory. */
    static Path newPath(int rank) {
        String name = "rc-" + ProcessHandle.current().pid() + "-" + rank + "-"
                + UUID.randomUUID().toString().substring(0, 8) + ".sock";
        return UnixSocketFiles.inTempDir(name);
    }

    /**
     * Why a peer's published address cannot work: a loopback address published from another node
     * (its process chose the wrong address to publish); null when it can.
     */
    static String loopbackFromAnotherNode(String[] published) {
        String node = null;
        for (String part : published) {
            if (part.startsWith("node=")) {
                node = part.substring(5);
            }
        }
        if (node == null || NODE_ID.equals(node)) {
            return null;
        }
        String host = io.reactivecollectives.transport.wire.HostPorts.hostOf(published[0]);
        boolean loopback = host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
        return loopback ? "published the loopback address " + published[0] + " from another host (" + node
                + "); it cannot be reached from here: set RC_HOST or RC_SOCKET_IFNAME on that rank" : null;
    }

    /**
     * The peer's socket path when it published one from this node and the file is visible here;
     * null otherwise (then TCP).
     */
    static Path sameNodePath(String[] published) {
        if (!ENABLED) {
            return null;
        }
        String uds = null;
        String node = null;
        for (String part : published) {
            if (part.startsWith("uds=")) {
                uds = part.substring(4);
            } else if (part.startsWith("node=")) {
                node = part.substring(5);
            }
        }
        if (uds == null || !NODE_ID.equals(node)) {
            return null;
        }
        Path p = Path.of(uds);
        return UnixSocketFiles.exists(p) ? p : null;
    }
}
