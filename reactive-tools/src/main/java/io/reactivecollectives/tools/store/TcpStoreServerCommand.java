package io.reactivecollectives.tools.store;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.transport.rendezvous.StoreAuth;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link TcpStoreServer} on its own until killed:
 * {@code java -cp ... io.reactivecollectives.tools.store.TcpStoreServerCommand --port 29500}.
 * Authentication is on when {@code RC_STORE_SECRET} is set; TLS when {@code --tls-cert} and
 * {@code --tls-key} (PEM, PKCS#8 key) are given. Prints the bound address on one line.
 */
@Command(name = "tcp-store-server", mixinStandardHelpOptions = true, versionProvider = TcpStoreServerCommand.Version.class,
        description = {"Runs the Reactive Collectives TCP store server until killed, printing the address it is bound to on one line.",
                "RC_STORE_SECRET (the ranks' shared secret), when set, turns authentication on.", ""})
public final class TcpStoreServerCommand implements Callable<Integer>, io.reactivecollectives.tools.cli.Cli.Validated {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** {@code --version}: the project version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"tcp-store-server " + io.reactivecollectives.core.Version.get()};
        }
    }

    @Option(names = "--host", description = "address to bind (default: ${DEFAULT-VALUE})", defaultValue = "0.0.0.0")
    String host;

    @Option(names = "--port", description = "port to bind, 0 for any free one (default: ${DEFAULT-VALUE})",
            defaultValue = "29500")
    int port;

    @Option(names = "--max-frame-size", description = "largest frame body in bytes, so the largest value of one call"
            + " (default: 256 MiB, or --frame-memory if less)")
    Integer maxFrameSize;

    @Option(names = "--frame-memory", description = "most bytes incomplete frames may hold across all connections"
            + " (default: 256 MiB, at most half the direct memory)")
    Long frameMemory;

    @Option(names = "--handshake-timeout-ms", description = "time a client has to greet (and authenticate)"
            + " (default: ${DEFAULT-VALUE})", defaultValue = "10000")
    long handshakeTimeoutMs;

    @Option(names = "--frame-timeout-ms", description = "time a begun frame has to arrive whole"
            + " (default: ${DEFAULT-VALUE})", defaultValue = "60000")
    long frameTimeoutMs;

    @Option(names = "--tls-cert", description = "PEM certificate chain: turns TLS on (with --tls-key)")
    File tlsCert;

    @Option(names = "--tls-key", description = "PEM PKCS#8 private key of --tls-cert")
    File tlsKey;

    @Option(names = "--max-connections", description = "most client connections open at once (default: ${DEFAULT-VALUE})",
            defaultValue = "16384")
    int maxConnections;

    @Option(names = "--no-unix-socket", description = "serve TCP only: no Unix domain socket for clients on this host")
    boolean noUnixSocket;

    /** Every option checked before anything is bound: one line and exit 2 for a bad one. */
    @Override
    public void validate() {
        String problem = null;
        if ((tlsCert == null) != (tlsKey == null)) {
            problem = "--tls-cert and --tls-key go together";
        } else if (tlsCert != null && (!tlsCert.canRead() || !tlsKey.canRead())) {
            problem = "cannot read " + (!tlsCert.canRead() ? "--tls-cert " + tlsCert : "--tls-key " + tlsKey);
        } else if (handshakeTimeoutMs < 1 || frameTimeoutMs < 1) {
            problem = "--handshake-timeout-ms and --frame-timeout-ms must be >= 1, got " + handshakeTimeoutMs + " and " + frameTimeoutMs;
        } else {
            try {
                builder(null);   // the server's own checks of port, sizes and counts
            } catch (IllegalArgumentException e) {
                problem = e.getMessage().replace("port must", "--port must").replace("maxFrameSize", "--max-frame-size")
                        .replace("frameMemory", "--frame-memory").replace("maxConnections", "--max-connections");
            }
        }
        if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
    }

    private TcpStoreServer.Builder builder(SslContext ssl) {
        TcpStoreServer.Builder builder = TcpStoreServer.builder();
        if (maxFrameSize != null) {
            builder.maxFrameSize(maxFrameSize);
        }
        if (frameMemory != null) {
            builder.frameMemory(frameMemory);
        }
        return builder
                .host(host)
                .port(port)
                .handshakeTimeout(java.time.Duration.ofMillis(handshakeTimeoutMs))
                .frameTimeout(java.time.Duration.ofMillis(frameTimeoutMs))
                .secret(StoreAuth.secretFrom(System.getenv()))
                .ssl(ssl)
                .unixSocket(!noUnixSocket)
                .maxConnections(maxConnections);
    }

    @Override
    public Integer call() throws Exception {
        TcpStoreServer server;
        try {
            SslContext ssl = tlsCert == null ? null : SslContextBuilder.forServer(tlsCert, tlsKey).build();
            server = builder(ssl).start().toFuture().get();
        } catch (java.util.concurrent.ExecutionException | javax.net.ssl.SSLException | IllegalArgumentException e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            Throwable root = cause;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            // Reactor Netty's "Failed to bind on [host:port]" keeps why (address in use, not permitted) in its cause
            String why = root == cause || String.valueOf(cause.getMessage()).contains(String.valueOf(root.getMessage()))
                    ? String.valueOf(cause.getMessage()) : cause.getMessage() + ": " + root.getMessage();
            spec.commandLine().getErr().println("tcp-store-server: cannot serve on " + host + ":" + port + ": " + why);
            return 1;
        }
        CountDownLatch closed = new CountDownLatch(1);
        server.onClose().doFinally(s -> closed.countDown()).subscribe();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tcp-store-shutdown"));
        System.out.println("TCP store listening on " + listening(server.address(), host, server.port())
                + (tlsCert != null ? " (TLS)" : "") + (StoreAuth.secretFrom(System.getenv()) != null ? " (HMAC)" : "")
                + (server.localSocket() != null ? ", and for this host on " + server.localSocket() : ""));
        System.out.flush();
        closed.await();
        return 0;
    }

    /**
     * The address the server listens on, as clients write it: the wildcard as --host gave it (Netty
     * binds 0.0.0.0 as IPv6's {@code ::}, printed as 0:0:0:0:0:0:0:0, which no client dials), an IPv6
     * address in brackets.
     */
    static String listening(java.net.InetSocketAddress bound, String host, int port) {
        java.net.InetAddress a = bound.getAddress();
        String h = a == null ? bound.getHostString() : a.isAnyLocalAddress() ? host : a.getHostAddress();
        return (h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h) + ":" + port;
    }

    /** A command with its options' defaults (picocli sets the given ones). */
    public TcpStoreServerCommand() {
    }

    /**
     * Runs the server from the command line (see {@code --help}) and exits with the command's status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(io.reactivecollectives.tools.cli.Cli.execute(new TcpStoreServerCommand(), args));
    }

}
