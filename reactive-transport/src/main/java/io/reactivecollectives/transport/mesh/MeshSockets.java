package io.reactivecollectives.transport.mesh;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.transport.frame.FrameDecoders;
import io.reactivecollectives.transport.wire.HostPorts;
import io.reactivecollectives.store.wire.OwnedSocketFile;
import io.reactivecollectives.store.wire.UnixSocketFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The sockets of one rank's mesh: its TCP server, the Unix domain socket beside it (see
 * {@link LocalSockets}), the connections it dials, and their disposal. Nothing here blocks an event
 * loop: servers are disposed with the non-blocking {@code dispose()}, and the socket file is
 * deleted on the {@link BlockingScheduler} when the close happens on an event loop.
 */
final class MeshSockets {

    private static final Logger log = LoggerFactory.getLogger(MeshSockets.class);

    private final MeshOptions options;
    private final int rank;
    /** The loops of this rank's sockets (see {@link MeshEventLoops#forMesh}). */
    private final EventLoopGroup loops;
    private volatile DisposableServer server;
    private volatile DisposableServer localServer;
    private volatile Path localPath;
    private volatile OwnedSocketFile localFile;
    private final List<Connection> connections = new ArrayList<>();
    private volatile boolean closed;

    MeshSockets(MeshOptions options, int rank) {
        this.options = options;
        this.rank = rank;
        this.loops = MeshEventLoops.forMesh(options.role(), options.connectionsPerPeer());
    }

    private static AdaptiveRecvByteBufAllocator recvAllocator() {
        return new AdaptiveRecvByteBufAllocator(512, 64 * 1024, 1024 * 1024);
    }

    /** Binds the TCP server (and the local one when enabled); {@code onAccepted} sets up each inbound connection. */
    Mono<Void> bind(Consumer<Connection> onAccepted) {
        TcpServer s = TcpServer.create()
                .runOn(loops)
                .host(options.host())
                .port(0)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, recvAllocator())
                .doOnConnection(onAccepted::accept)
                .handle((in, out) -> out.neverComplete());
        if (options.socketBufferBytes() > 0) {
            s = s.childOption(ChannelOption.SO_RCVBUF, options.socketBufferBytes())
                    .childOption(ChannelOption.SO_SNDBUF, options.socketBufferBytes());
        }
        if (options.tls() != null) {
            s = s.secure(spec -> spec.sslContext(options.tls().server()));
        }
        return s.bind().doOnNext(ds -> {
            server = ds;
            if (closed) {
                ds.dispose();
            }
        }).then(Mono.defer(() -> bindLocal(onAccepted)));
    }

    /**
     * Binds a Unix domain socket beside the TCP server, for peers on this host (a kernel copy with
     * no TCP stack: 2 to 2.7 times the loopback TCP rate measured here). Off with the system
     * property {@code rc.transport.unixSockets=false}; a failure to bind only logs, and peers use TCP.
     */
    private Mono<Void> bindLocal(Consumer<Connection> onAccepted) {
        if (!LocalSockets.ENABLED || options.tls() != null) {   // with TLS, every connection goes through it
            return Mono.empty();
        }
        // the node id reads a file once, and the first bind sweeps the files of dead ranks: on a
        // thread that may block, never on an event loop
        return Mono.fromCallable(() -> {
                    LocalSockets.sweepStaleOnce();
                    return LocalSockets.NODE_ID;
                }).subscribeOn(BlockingScheduler.get())
                .flatMap(id -> bindLocal(LocalSockets.newPath(rank), onAccepted));
    }

    private Mono<Void> bindLocal(Path path, Consumer<Connection> onAccepted) {
        TcpServer s = TcpServer.create()
                .runOn(loops)
                .bindAddress(() -> MeshChannels.domainAddress(path))
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, recvAllocator())
                .doOnConnection(onAccepted::accept)
                .handle((in, out) -> out.neverComplete());
        return s.bind().doOnNext(ds -> {
            OwnedSocketFile file = OwnedSocketFile.own(path);  // deleted at exit (SIGTERM too) unless closed first
            localFile = file;
            localServer = ds;
            localPath = path;
            if (closed) {
                disposeLocal(ds, file);
            }
        }).onErrorResume(e -> {
            log.debug("group '{}' rank {}: no Unix domain socket at {} ({}); peers on this host use TCP",
                    options.groupId(), rank, path, e.toString());
            UnixSocketFiles.deleteLater(path)
                    .subscribe(null, d -> log.debug("could not delete the socket file {}: {}", path, d.toString()));
            return Mono.empty();
        }).then();
    }

    /** {@code host:port}, then {@code ;uds=<path>;node=<id>} when a local socket is bound. */
    String publishedAddress() {
        String tcp = HostPorts.format(options.host(), server.port());
        Path p = localPath;
        return p == null ? tcp + ";node=" + LocalSockets.NODE_ID : tcp + ";uds=" + p + ";node=" + LocalSockets.NODE_ID;
    }

    /** The TCP server's port, or -1 before it is bound. */
    int port() {
        DisposableServer s = server;
        return s == null ? -1 : s.port();
    }

    /**
     * Connects to a published address (through its Unix socket when it is on this host), installs
     * the handshake decoder and {@code handshake}, and runs {@code opening} on the new connection.
     * Call on a thread that may block (the local socket's file is looked at).
     */
    Mono<Connection> dial(String published, ChannelHandler handshake, Consumer<Connection> opening) {
        String[] parts = published.split(";");
        String addr = parts[0];
        String host;
        int port;
        try {
            host = HostPorts.hostOf(addr);
            port = HostPorts.portOf(addr);
        } catch (IllegalArgumentException e) {
            return Mono.error(new IllegalArgumentException("not a mesh address: '" + published + "'"));
        }
        Path local = LocalSockets.sameNodePath(parts);
        TcpClient c = TcpClient.newConnection().runOn(loops);
        c = local != null ? c.remoteAddress(() -> MeshChannels.domainAddress(local))
                : c.host(host).port(port).option(ChannelOption.TCP_NODELAY, true);
        c = c.option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.RCVBUF_ALLOCATOR, recvAllocator())
                .doOnConnected(conn -> {
                    conn.addHandlerLast("rc-decoder", FrameDecoders.handshake());
                    conn.addHandlerLast("rc-connect", handshake);
                    conn.channel().config().setAutoRead(true);
                    conn.channel().read();
                    opening.accept(conn);
                });
        if (options.socketBufferBytes() > 0) {
            c = c.option(ChannelOption.SO_RCVBUF, options.socketBufferBytes())
                    .option(ChannelOption.SO_SNDBUF, options.socketBufferBytes());
        }
        if (options.tls() != null && local == null) {
            c = c.secure(spec -> spec.sslContext(options.tls().client()));
        }
        return c.connect().map(conn -> {
            synchronized (connections) {
                connections.add(conn);
            }
            if (closed) {
                conn.dispose();
            }
            return (Connection) conn;
        });
    }

    /**
     * How many connections this rank opens to the rank that published {@code published}: one
     * through a Unix domain socket (same host), else {@link MeshOptions#connectionsPerPeer()}.
     * Call on a thread that may block (the local socket's file is looked at).
     */
    int connectionsTo(String published) {
        return LocalSockets.sameNodePath(published.split(";")) != null && options.tls() == null ? 1
                : options.connectionsPerPeer();
    }

    /** Whether {@code ch} is a Unix domain socket (a peer on this host). */
    static boolean isLocal(io.netty.channel.Channel ch) {
        return MeshChannels.isDomainSocket(ch);
    }

    /** Disposes every dialled connection and the servers, without blocking; the socket file goes later. */
    void close() {
        closeConnections();
        closeServers();
    }

    /** Disposes every dialled connection. */
    void closeConnections() {
        closed = true;
        synchronized (connections) {
            connections.forEach(Connection::dispose);
        }
    }

    /** Disposes the servers (no new connections), without blocking; the socket file goes at once or later. */
    void closeServers() {
        closed = true;
        DisposableServer s = server;
        if (s != null) {
            s.dispose();
        }
        DisposableServer ls = localServer;
        OwnedSocketFile lf = localFile;
        if (ls != null && lf != null) {
            disposeLocal(ls, lf);
        }
    }

    /**
     * Disposes the local server and deletes its file (unlinking it stops new connections at once):
     * right here on a thread that may block, else on the {@link BlockingScheduler}.
     */
    private static void disposeLocal(DisposableServer ls, OwnedSocketFile file) {
        ls.dispose();
        file.release();
    }
}
