package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import io.reactivecollectives.transport.frame.FrameDecoders;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.Handshake;
import io.reactivecollectives.transport.frame.MalformedFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;
import reactor.util.retry.Retry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The full mesh of connections between the ranks of a group (gloo's connectFullMesh): every rank
 * binds a Reactor Netty TCP server on an ephemeral port, publishes {@code host:port} in the store
 * under {@code rc/<group>/mesh/addr/<rank>}, connects to every lower rank and accepts a connection
 * from every higher one, so each pair of ranks shares exactly one connection. The connecting rank
 * opens with a HELLO frame (group, rank, world size, HMAC when a secret is set), the accepting rank
 * checks it and answers HELLO_ACK, which the connecting rank checks in turn; a connection failing
 * the handshake is closed. Sockets: Unix domain sockets between ranks of one host (see
 * {@link LocalSockets}), else TCP with TCP_NODELAY; NIO event loops ({@link MeshEventLoops}),
 * optional buffer sizes,
 * and Netty's pooled allocator (the one tensors use) for inbound buffers: Netty 4.2's default
 * adaptive allocator takes a {@code StampedLock} that can park an event loop under contention.
 */
public final class Mesh implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Mesh.class);

    private final int rank;
    private final int world;
    private final MeshOptions options;
    private final int groupHash;
    private final FrameListener listener;
    private final AtomicReferenceArray<PeerLink> links;
    private final AtomicInteger missing;
    private final Sinks.Empty<Void> connected = Sinks.empty();
    private volatile DisposableServer server;
    private volatile DisposableServer localServer;
    private volatile java.nio.file.Path localPath;
    private final List<Connection> connections = new ArrayList<>();
    private volatile boolean closed;

    private Mesh(int rank, int world, MeshOptions options, FrameListener listener) {
        this.rank = rank;
        this.world = world;
        this.options = options;
        this.groupHash = options.groupId().hashCode();
        this.listener = listener;
        this.links = new AtomicReferenceArray<>(world);
        this.missing = new AtomicInteger(world - 1);
    }

    /** Store key under which {@code rank} publishes its address. */
    public static String addressKey(String groupId, int rank) {
        return "rc/" + groupId + "/mesh/addr/" + rank;
    }

    /**
     * Connects this rank to all others. Emits the mesh once every peer is connected and has passed
     * the handshake; fails after {@link MeshOptions#connectTimeout()} naming the ranks that never
     * appeared, closing whatever was opened.
     */
    public static Mono<Mesh> start(Store store, int rank, int world, MeshOptions options, FrameListener listener) {
        return Mono.defer(() -> {
            Mesh mesh = new Mesh(rank, world, options, listener);
            if (world == 1) {
                return Mono.just(mesh);
            }
            return mesh.bind()
                    .then(Mono.defer(() -> store.set(addressKey(options.groupId(), rank),
                            mesh.publishedAddress().getBytes(StandardCharsets.UTF_8))))
                    .then(Mono.when(Flux.range(0, rank).map(p -> mesh.connectTo(store, p)).collectList()
                                    .flatMap(Mono::when),
                            mesh.connected.asMono()))
                    .timeout(options.connectTimeout())
                    .onErrorMap(e -> e instanceof TimeoutException || e instanceof StoreTimeoutException,
                            e -> new MeshStartException(mesh.describeMissing(), e))
                    .thenReturn(mesh)
                    .doOnError(e -> mesh.close())
                    .doOnCancel(mesh::close);
        });
    }

    private String describeMissing() {
        List<Integer> absent = new ArrayList<>();
        List<Integer> present = new ArrayList<>();
        for (int p = 0; p < world; p++) {
            if (p != rank) {
                (links.get(p) == null ? absent : present).add(p);
            }
        }
        return "group '" + options.groupId() + "' rank " + rank + ": ranks " + absent + " never appeared within "
                + options.connectTimeout().toMillis() + " ms (connected: " + present + ", world size " + world + ")";
    }

    private Mono<Void> bind() {
        TcpServer s = TcpServer.create()
                .runOn(MeshEventLoops.get())
                .host(options.host())
                .port(0)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 * 1024, 1024 * 1024))
                .doOnConnection(this::onAccepted)
                .handle((in, out) -> out.neverComplete());
        if (options.socketBufferBytes() > 0) {
            s = s.childOption(ChannelOption.SO_RCVBUF, options.socketBufferBytes())
                    .childOption(ChannelOption.SO_SNDBUF, options.socketBufferBytes());
        }
        return s.bind().doOnNext(ds -> {
            server = ds;
            if (closed) {
                ds.disposeNow();
            }
        }).then(Mono.defer(this::bindLocal));
    }

    /**
     * Binds a Unix domain socket beside the TCP server, for peers on this host (a kernel copy with
     * no TCP stack: 2 to 2.7 times the loopback TCP rate measured here). Off with the system
     * property {@code rc.transport.unixSockets=false}; a failure to bind only logs, and peers use TCP.
     */
    private Mono<Void> bindLocal() {
        if (!LocalSockets.ENABLED) {
            return Mono.empty();
        }
        // the node id reads a file once: on a thread that may block, never on an event loop
        return Mono.fromCallable(() -> LocalSockets.NODE_ID).subscribeOn(BlockingScheduler.get())
                .flatMap(id -> bindLocal(LocalSockets.newPath(rank)));
    }

    private Mono<Void> bindLocal(java.nio.file.Path path) {
        TcpServer s = TcpServer.create()
                .runOn(MeshEventLoops.get())
                .bindAddress(() -> java.net.UnixDomainSocketAddress.of(path))
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 * 1024, 1024 * 1024))
                .doOnConnection(this::onAccepted)
                .handle((in, out) -> out.neverComplete());
        return s.bind().doOnNext(ds -> {
            localServer = ds;
            localPath = path;
            if (closed) {
                ds.disposeNow();
                LocalSockets.delete(path);
            }
        }).onErrorResume(e -> {
            log.debug("group '{}' rank {}: no Unix domain socket at {} ({}); peers on this host use TCP",
                    options.groupId(), rank, path, e.toString());
            LocalSockets.delete(path);
            return Mono.empty();
        }).then();
    }

    /** {@code host:port}, then {@code ;uds=<path>;node=<id>} when a local socket is bound. */
    private String publishedAddress() {
        String tcp = options.host() + ":" + server.port();
        java.nio.file.Path p = localPath;
        return p == null ? tcp : tcp + ";uds=" + p + ";node=" + LocalSockets.NODE_ID;
    }

    /** An inbound connection (TCP or local): decoder, handshake check with a deadline, reading on. */
    private void onAccepted(reactor.netty.Connection conn) {
        conn.addHandlerLast("rc-decoder", FrameDecoders.create(Handshake.MAX_PAYLOAD));
        conn.addHandlerLast("rc-accept", new AcceptHandshake());
        Channel ch = conn.channel();
        ch.eventLoop().schedule(() -> {
            if (ch.pipeline().get("rc-accept") != null) {
                log.warn("group '{}' rank {}: closing connection from {}: no handshake within {} ms",
                        options.groupId(), rank, ch.remoteAddress(), options.connectTimeout().toMillis());
                ch.close();
            }
        }, options.connectTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        startReading(ch);
    }

    private static void startReading(Channel ch) {
        ch.config().setAutoRead(true);
        ch.read();
    }

    private Mono<Void> connectTo(Store store, int peer) {
        return store.get(addressKey(options.groupId(), peer), options.connectTimeout())
                .publishOn(BlockingScheduler.get())  // the local socket's file is looked at
                .flatMap(bytes -> {
                    String[] parts = new String(bytes, StandardCharsets.UTF_8).split(";");
                    String addr = parts[0];
                    int colon = addr.lastIndexOf(':');
                    String host = addr.substring(0, colon);
                    int port = Integer.parseInt(addr.substring(colon + 1));
                    java.nio.file.Path local = LocalSockets.sameNodePath(parts);
                    ConnectHandshake hs = new ConnectHandshake(peer);
                    TcpClient c = TcpClient.newConnection().runOn(MeshEventLoops.get());
                    c = local != null ? c.remoteAddress(() -> java.net.UnixDomainSocketAddress.of(local))
                            : c.host(host).port(port).option(ChannelOption.TCP_NODELAY, true);
                    c = c.option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                            .option(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 * 1024, 1024 * 1024))
                            .doOnConnected(conn -> {
                                conn.addHandlerLast("rc-decoder", FrameDecoders.create(Handshake.MAX_PAYLOAD));
                                conn.addHandlerLast("rc-connect", hs);
                                startReading(conn.channel());
                                conn.channel().writeAndFlush(Handshake.encode(conn.channel().alloc(), FrameType.HELLO,
                                        options.groupId(), rank, world, peer, options.secret()));
                            });
                    if (options.socketBufferBytes() > 0) {
                        c = c.option(ChannelOption.SO_RCVBUF, options.socketBufferBytes())
                                .option(ChannelOption.SO_SNDBUF, options.socketBufferBytes());
                    }
                    return c.connect()
                            .retryWhen(Retry.backoff(5, Duration.ofMillis(20)))
                            .doOnNext(conn -> {
                                synchronized (connections) {
                                    connections.add(conn);
                                }
                                if (closed) {
                                    conn.dispose();
                                }
                            })
                            .then(hs.done.asMono());
                });
    }

    private void register(int peer, Channel ch) {
        PeerLink link = new PeerLink(peer, rank, groupHash, ch);
        if (!links.compareAndSet(peer, null, link)) {
            ch.close();
            return;
        }
        Liveness.start(ch, peer, groupHash, rank, options.heartbeatInterval(), options.missedHeartbeats());
        if (missing.decrementAndGet() == 0) {
            connected.tryEmitEmpty();
        }
    }

    /**
     * How this rank reaches {@code peer}: {@code "unix"} (a Unix domain socket, same host),
     * {@code "tcp"}, or {@code "none"} (itself, or not connected).
     */
    public String transportTo(int peer) {
        PeerLink l = peer >= 0 && peer < world ? links.get(peer) : null;
        if (l == null) {
            return "none";
        }
        return l.channel() instanceof io.netty.channel.socket.nio.NioDomainSocketChannel ? "unix" : "tcp";
    }

    /** The link to {@code peer}. */
    public PeerLink link(int peer) {
        return links.get(peer);
    }

    /** Number of ranks. */
    public int world() {
        return world;
    }

    /** The port this rank's server listens on (-1 for a world of one). */
    public int port() {
        DisposableServer s = server;
        return s == null ? -1 : s.port();
    }

    /** Stops reading from every connection (back-pressure). */
    public void pauseReading() {
        for (int p = 0; p < world; p++) {
            PeerLink l = links.get(p);
            if (l != null) {
                l.channel().config().setAutoRead(false);
            }
        }
    }

    /** Resumes reading from every connection. */
    public void resumeReading() {
        for (int p = 0; p < world; p++) {
            PeerLink l = links.get(p);
            if (l != null) {
                l.channel().config().setAutoRead(true);
                l.channel().read();
            }
        }
    }

    /** Whether the mesh is closed. */
    public boolean isClosed() {
        return closed;
    }

    /** Closes every connection and the server. */
    @Override
    public void close() {
        closed = true;
        for (int p = 0; p < world; p++) {
            PeerLink l = links.get(p);
            if (l != null) {
                l.channel().close();
            }
        }
        release();
    }

    /**
     * Closes in order: on every connection {@code lastWords} writes a last frame, and the connection
     * closes once that write (and so every write queued before it) reached the socket, or after
     * {@code grace}; Netty's {@code close()} would drop writes still queued. Returns at once.
     */
    public void closeGracefully(java.util.function.Function<PeerLink, Mono<Void>> lastWords, java.time.Duration grace) {
        closed = true;
        java.util.List<Mono<Void>> all = new java.util.ArrayList<>();
        for (int p = 0; p < world; p++) {
            PeerLink l = links.get(p);
            if (l != null) {
                all.add(Mono.defer(() -> l.isActive() ? lastWords.apply(l) : Mono.<Void>empty())
                        .timeout(grace, Mono.empty())
                        .onErrorResume(e -> Mono.empty())
                        .doFinally(s -> l.channel().close()));
            }
        }
        releaseServers();   // no new connections; the socket file goes now, on the caller's thread
        Mono.when(all).doFinally(s -> releaseConnections()).subscribe();
    }

    private void release() {
        releaseConnections();
        releaseServers();
    }

    private void releaseConnections() {
        synchronized (connections) {
            connections.forEach(Connection::dispose);
        }
    }

    /** The servers and the local socket file. */
    private void releaseServers() {
        DisposableServer s = server;
        if (s != null) {
            s.dispose();
        }
        DisposableServer ls = localServer;
        if (ls != null) {
            ls.dispose();
        }
        java.nio.file.Path lp = localPath;
        if (lp != null) {
            LocalSockets.delete(lp);
        }
    }

    /** Accepting side: expects HELLO from a higher rank, answers HELLO_ACK, then hands over to the frame handler. */
    private final class AcceptHandshake extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ByteBuf frame = (ByteBuf) msg;
            Handshake.Hello hello;
            try {
                hello = Handshake.decode(frame);
            } catch (MalformedFrameException e) {
                reject(ctx, "malformed handshake from " + ctx.channel().remoteAddress() + ": " + e.getMessage());
                return;
            } finally {
                frame.release();
            }
            String why = check(hello, FrameType.HELLO);
            if (why == null && hello.rank() <= rank) {
                why = "rank " + hello.rank() + " connected to rank " + rank + " but only higher ranks connect";
            }
            if (why == null && links.get(hello.rank()) != null) {
                why = "rank " + hello.rank() + " is already connected";
            }
            if (why != null) {
                reject(ctx, why);
                return;
            }
            int peer = hello.rank();
            Channel ch = ctx.channel();
            authenticated(ch);
            ch.pipeline().replace(this, "rc-frames", new FrameHandler(peer, groupHash, listener));
            ch.writeAndFlush(Handshake.encode(ch.alloc(), FrameType.HELLO_ACK, options.groupId(), rank, world, peer,
                    options.secret()));
            register(peer, ch);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            reject(ctx, "handshake failed: " + cause);
        }

        private void reject(ChannelHandlerContext ctx, String why) {
            log.warn("group '{}' rank {}: closing connection from {}: {}", options.groupId(), rank,
                    ctx.channel().remoteAddress(), why);
            ctx.close();
        }
    }

    /** Connecting side: after HELLO was sent, expects HELLO_ACK from exactly the rank it dialled. */
    private final class ConnectHandshake extends ChannelInboundHandlerAdapter {
        final int peer;
        final Sinks.Empty<Void> done = Sinks.empty();

        ConnectHandshake(int peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ByteBuf frame = (ByteBuf) msg;
            Handshake.Hello hello;
            try {
                hello = Handshake.decode(frame);
            } catch (MalformedFrameException e) {
                fail(ctx, "malformed handshake answer from rank " + peer + ": " + e.getMessage());
                return;
            } finally {
                frame.release();
            }
            String why = check(hello, FrameType.HELLO_ACK);
            if (why == null && hello.rank() != peer) {
                why = "dialled rank " + peer + " but rank " + hello.rank() + " answered";
            }
            if (why != null) {
                fail(ctx, why);
                return;
            }
            Channel ch = ctx.channel();
            authenticated(ch);
            ch.pipeline().replace(this, "rc-frames", new FrameHandler(peer, groupHash, listener));
            register(peer, ch);
            done.tryEmitEmpty();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.tryEmitError(new PeerProtocolException("group '" + options.groupId() + "' rank " + rank
                    + ": rank " + peer + " closed the connection during the handshake", null));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, "handshake with rank " + peer + " failed: " + cause);
        }

        private void fail(ChannelHandlerContext ctx, String why) {
            done.tryEmitError(new PeerProtocolException("group '" + options.groupId() + "' rank " + rank + ": " + why, null));
            ctx.close();
        }
    }

    /** The handshake passed: frames up to the group's limit are accepted from now on. */
    private void authenticated(Channel ch) {
        io.netty.channel.ChannelHandler d = ch.pipeline().get("rc-decoder");
        if (d instanceof io.reactivecollectives.transport.frame.FrameDecoder) {
            ((io.reactivecollectives.transport.frame.FrameDecoder) d).limitPayload(options.maxFramePayload());
        }
    }

    private String check(Handshake.Hello hello, FrameType expected) {
        if (hello.type() != expected) {
            return "expected " + expected + ", got " + hello.type();
        }
        if (!hello.groupName().equals(options.groupId())) {
            return "rank " + hello.rank() + " belongs to group '" + hello.groupName() + "', not '" + options.groupId() + "'";
        }
        if (hello.worldSize() != world) {
            return "rank " + hello.rank() + " has world size " + hello.worldSize() + ", this rank " + world;
        }
        if (hello.rank() < 0 || hello.rank() >= world || hello.rank() == rank) {
            return "invalid peer rank " + hello.rank() + " for world size " + world;
        }
        if (!Handshake.verify(hello, options.secret(), rank)) {
            return "rank " + hello.rank() + " failed authentication (shared secret mismatch)";
        }
        return null;
    }
}
