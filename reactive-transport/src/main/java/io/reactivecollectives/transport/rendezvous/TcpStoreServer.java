package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpServer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

/**
 * The TCP store server, as c10d's TCPStore master: an in-memory {@link StoreState} behind the
 * binary protocol of {@link StoreFrameCodec}, served by Reactor Netty's {@link TcpServer} (epoll
 * when available). Rank 0 embeds it ({@link #builder()}{@code .start()}); it also runs alone
 * ({@link TcpStoreServerCommand}).
 *
 * <p>Every connection is handled on its event loop: frames are decoded and answered there, in
 * order; responses to many pipelined requests go out in one flush. A waiting request
 * ({@code GET}, {@code WAIT}, {@code MULTI_GET}) holds no thread: it is a waiter on the store's
 * key, answered when the key is set or the request's timeout runs out, dropped on {@code CANCEL},
 * and dropped with every other waiter of its connection when the connection closes, so a client
 * that dies mid-wait leaves nothing behind ({@link #pendingWaits()}).
 *
 * <p>A malformed, oversized or truncated frame, or a request before authentication, closes that
 * one connection with a logged error; every other connection is served on. With a secret the
 * server sends a nonce and reads nothing but the client's HMAC-SHA256 of it (a frame of at most
 * {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} bytes) before serving any key; with an
 * {@link SslContext} the connection is TLS.
 *
 * <p>Without TLS the server also listens on a Unix domain socket beside its TCP port
 * ({@link #localSocket()}: {@code rc-store-<port>.sock} in the temporary directory), which clients
 * of a loopback address try first: the same protocol without the kernel's TCP path.
 */
public final class TcpStoreServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStoreServer.class);
    /** The longest wait a request may ask for (7 days); longer ones are clamped. */
    static final long MAX_WAIT_MS = Duration.ofDays(7).toMillis();
    /** Pending waits one connection may hold; more is a protocol error. */
    static final int MAX_PENDING_PER_CONNECTION = 65_536;

    private final DisposableServer server;
    private final LocalServer local;
    private final StoreState state;
    private final AtomicInteger connections;
    private final AtomicLong rejectedFrames;
    private final AtomicLong authFailures;
    /** The server's meters, in {@link #registry}; removed on close. */
    private final List<io.micrometer.core.instrument.Meter> meters = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile MeterRegistry registry;

    private TcpStoreServer(DisposableServer server, LocalServer local, StoreState state,
                           AtomicInteger connections, AtomicLong rejectedFrames, AtomicLong authFailures) {
        this.server = server;
        this.local = local;
        this.state = state;
        this.connections = connections;
        this.rejectedFrames = rejectedFrames;
        this.authFailures = authFailures;
    }

    /** A builder: loopback, an ephemeral port, no secret, no TLS, 64 MiB frames. */
    public static Builder builder() {
        return new Builder();
    }

    /** The bound port (the real one when built with port 0). */
    public int port() {
        return ((InetSocketAddress) server.address()).getPort();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.address();
    }

    /** Requests waiting for keys now, over all connections. */
    public int pendingWaits() {
        return state.pendingWaits();
    }

    /** Open client connections now. */
    public int connections() {
        return connections.get();
    }

    /** Frames rejected so far (malformed, oversized, out of place); each closed its connection. */
    public long rejectedFrames() {
        return rejectedFrames.get();
    }

    /** Clients rejected by authentication so far. */
    public long authenticationFailures() {
        return authFailures.get();
    }

    /**
     * Completes when the server has closed: its TCP port and its local socket. A new server on the
     * same port should start after this (Netty removes the socket file when the old listening
     * channel closes, which would otherwise take the new server's file with it).
     */
    public Mono<Void> onClose() {
        return local.uds() == null ? server.onDispose() : Mono.when(server.onDispose(), local.uds().onDispose());
    }

    /** Stops accepting, closes every connection and fails pending waits; does not block. */
    @Override
    public void close() {
        for (StoreState.Waiter w : state.close()) {
            ((Session) w.owner).closed(w);
        }
        server.dispose();
        MeterRegistry reg = registry;
        if (reg != null) {
            meters.forEach(reg::remove);
            meters.clear();
        }
        if (local.uds() != null) {
            local.uds().dispose();
            java.nio.file.Path path = local.path();
            if (reactor.core.scheduler.Schedulers.isInNonBlockingThread()) {
                io.reactivecollectives.core.BlockingScheduler.get().schedule(() -> StoreLocalSocket.delete(path));
            } else {
                StoreLocalSocket.delete(path);
            }
        }
    }

    /**
     * The Unix domain socket beside the TCP port that clients on this host connect through
     * ({@code rc-store-<port>.sock} in the temporary directory), or null when there is none (TLS,
     * turned off, or it could not bind).
     */
    public java.nio.file.Path localSocket() {
        return local.path();
    }

    @Override
    public String toString() {
        return "TcpStoreServer[" + server.address() + "]";
    }

    /** Options of a server; {@link #start()} binds it. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private byte[] secret;
        private SslContext sslContext;
        private int maxFrameSize = StoreFrameCodec.DEFAULT_MAX_FRAME;
        private LoopResources loops;
        private MeterRegistry registry = Metrics.globalRegistry;
        private boolean unixSocket = true;

        private Builder() {
        }

        /**
         * Whether to also listen on a Unix domain socket for clients on this host (default true;
         * never with TLS; {@code -Drc.store.unixSockets=false} turns it off everywhere). See
         * {@link TcpStoreServer#localSocket()}.
         */
        public Builder unixSocket(boolean on) {
            this.unixSocket = on;
            return this;
        }

        /** The address to bind ({@code 0.0.0.0} for every interface); default loopback. */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port; 0 (the default) picks a free one, see {@link TcpStoreServer#port()}. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** Turns on HMAC authentication with this shared secret (null: off). */
        public Builder secret(byte[] secret) {
            this.secret = secret == null ? null : secret.clone();
            return this;
        }

        /** Turns on TLS with this server context (null: off). */
        public Builder ssl(SslContext sslContext) {
            if (sslContext != null && !sslContext.isServer()) {
                throw new IllegalArgumentException("ssl: a server SslContext is needed");
            }
            this.sslContext = sslContext;
            return this;
        }

        /** The largest frame body accepted, in bytes (at least 1 KiB). */
        public Builder maxFrameSize(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxFrameSize must be at least 1024, was " + bytes);
            }
            this.maxFrameSize = bytes;
            return this;
        }

        /** Event loops to run on (default: Reactor Netty's shared ones). */
        public Builder loops(LoopResources loops) {
            this.loops = loops;
            return this;
        }

        /** Where the server's gauges and counters go (default: Micrometer's global registry). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Binds the server; emits it once listening (cold: binds once per subscription). */
        public Mono<TcpStoreServer> start() {
            byte[] key = secret;
            SslContext ssl = sslContext;
            int max = maxFrameSize;
            LoopResources lr = loops;
            MeterRegistry reg = registry;
            String h = host;
            int p = port;
            boolean unixSocket = this.unixSocket;
            return Mono.defer(() -> {
                if (key != null) {
                    StoreAuth.init();
                }
                StoreState state = new StoreState();
                AtomicInteger conns = new AtomicInteger();
                AtomicLong rejected = new AtomicLong();
                AtomicLong authFailed = new AtomicLong();
                java.util.function.UnaryOperator<TcpServer> serving = base -> {
                    TcpServer t = base.doOnConnection(c -> {
                            c.addHandlerLast(StoreFrameDecoder.NAME,
                                    new StoreFrameDecoder(key != null ? StoreFrameCodec.HANDSHAKE_MAX_FRAME : max));
                            c.addHandlerLast("rc.store.flush", new FlushConsolidationHandler(256, true));
                            Session session = new Session(c, state, key, max, conns, rejected, authFailed);
                            c.addHandlerLast("rc.store.session", session.handler());
                            session.start();
                        })
                        // frames are consumed by the session handler, on the event loop, before Reactor Netty's
                        // inbound bridge; subscribing the (then empty) inbound keeps reads flowing and ends the
                        // connection when the client closes it
                        .handle((in, out) -> in.receive().then());
                    return lr != null ? t.runOn(lr) : t;
                };
                TcpServer server = serving.apply(TcpServer.create().host(h).port(p)
                        .childOption(ChannelOption.TCP_NODELAY, true));
                if (ssl != null) {
                    server = server.secure(spec -> spec.sslContext(ssl));
                }
                boolean local = unixSocket && ssl == null && StoreLocalSocket.enabled();
                return server.bind().flatMap(ds -> (local ? bindLocal(serving, ds) : Mono.just(new LocalServer(ds, null, null))))
                        .map(bound -> {
                    DisposableServer ds = bound.tcp();
                    TcpStoreServer s = new TcpStoreServer(ds, bound, state, conns, rejected, authFailed);
                    String port = Integer.toString(s.port());
                    // removed again by close(), so that a later server on the same port gets meters of its own
                    s.meters.add(Gauge.builder("rc.store.server.pending.waits", state.pendingWaitsCounter(), AtomicInteger::get)
                            .tag("port", port).register(reg));
                    s.meters.add(Gauge.builder("rc.store.server.connections", conns, AtomicInteger::get)
                            .tag("port", port).register(reg));
                    s.meters.add(FunctionCounter.builder("rc.store.server.rejected.frames", rejected, AtomicLong::get)
                            .tag("port", port).register(reg));
                    s.meters.add(FunctionCounter.builder("rc.store.server.auth.failures", authFailed, AtomicLong::get)
                            .tag("port", port).register(reg));
                    s.registry = reg;
                    LOG.debug("TCP store listening on {} (auth {}, tls {}, local socket {})", ds.address(), key != null,
                            ssl != null, bound.path());
                    return s;
                });
            });
        }

        /**
         * Binds the local socket of the TCP server {@code tcp} (its file replaced if a dead server left
         * one), on a thread that may touch files; a failure only logs: clients then use TCP.
         */
        private static Mono<LocalServer> bindLocal(java.util.function.UnaryOperator<TcpServer> serving,
                                                   DisposableServer tcp) {
            java.nio.file.Path path = StoreLocalSocket.path(((InetSocketAddress) tcp.address()).getPort());
            return Mono.fromRunnable(() -> StoreLocalSocket.delete(path))
                    .subscribeOn(io.reactivecollectives.core.BlockingScheduler.get())
                    .then(serving.apply(TcpServer.create().bindAddress(() -> java.net.UnixDomainSocketAddress.of(path)))
                            .bind())
                    .publishOn(io.reactivecollectives.core.BlockingScheduler.get())
                    .map(uds -> new LocalServer(tcp, uds, path))
                    .onErrorResume(e -> {
                        LOG.debug("TCP store on port {}: no local socket at {} ({}); local clients use TCP",
                                ((InetSocketAddress) tcp.address()).getPort(), path, e.toString());
                        return Mono.just(new LocalServer(tcp, null, null));
                    });
        }
    }

    /** The TCP server with its local socket server and file, when bound (else nulls). */
    private record LocalServer(DisposableServer tcp, DisposableServer uds, java.nio.file.Path path) { }

    /** One client connection; its fields are touched on its event loop only. */
    private static final class Session {
        private final Channel channel;
        private final StoreState state;
        private final byte[] secret;
        private final int maxFrame;
        private final AtomicInteger connections;
        private final AtomicLong rejected;
        private final AtomicLong authFailed;
        private final Map<Integer, StoreState.Waiter> waits = new HashMap<>();
        private byte[] nonce;
        private boolean authenticated;
        private boolean closing;

        Session(Connection connection, StoreState state, byte[] secret, int maxFrame, AtomicInteger connections,
                AtomicLong rejected, AtomicLong authFailed) {
            this.channel = connection.channel();
            this.state = state;
            this.secret = secret;
            this.maxFrame = maxFrame;
            this.connections = connections;
            this.rejected = rejected;
            this.authFailed = authFailed;
        }

        /** Counts the connection and greets the client (HELLO, with a nonce when a secret is set). */
        void start() {
            connections.incrementAndGet();
            ByteBufAllocator alloc = channel.alloc();
            if (secret != null) {
                nonce = StoreAuth.nonce();
                write(StoreFrameCodec.hello(alloc, true, nonce));
            } else {
                authenticated = true;
                write(StoreFrameCodec.hello(alloc, false, new byte[0]));
            }
        }

        /** The Netty handler that feeds this session: one frame body per read, released after use. */
        ChannelInboundHandlerAdapter handler() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf body = (ByteBuf) msg;
                    try {
                        onFrame(body);
                    } finally {
                        body.release();
                    }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable e) {
                    Throwable cause = e instanceof DecoderException && e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof StoreProtocolException) {
                        reject(cause);
                    } else if (cause instanceof java.io.IOException) {
                        LOG.debug("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                    } else {
                        LOG.warn("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                    }
                    channel.close();
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    connections.decrementAndGet();
                    dropWaits();
                    ctx.fireChannelInactive();
                }
            };
        }

        /** A frame that breaks the protocol: log it, count it, close this one connection. */
        private void reject(Throwable cause) {
            if (closing) {
                return;
            }
            closing = true;
            rejected.incrementAndGet();
            StoreFrameDecoder decoder = channel.pipeline().get(StoreFrameDecoder.class);
            if (decoder != null) {
                decoder.stop();
            }
            LOG.error("TCP store: closing connection from {}: {}", channel.remoteAddress(), cause.getMessage());
            channel.close();
        }

        private void onFrame(ByteBuf body) {
            if (closing) {
                return;
            }
            try {
                if (!authenticated) {
                    authenticate(body);
                    return;
                }
                StoreFrameCodec.Request r = StoreFrameCodec.decodeRequest(body);
                try {
                    dispatch(r);
                } catch (IllegalArgumentException | NullPointerException e) {
                    write(StoreFrameCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_BAD_REQUEST,
                            opName(r), String.valueOf(e.getMessage()), List.of(), 0));
                } catch (IllegalStateException e) {
                    write(StoreFrameCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_CLOSED,
                            opName(r), String.valueOf(e.getMessage()), List.of(), 0));
                }
            } catch (StoreProtocolException e) {
                reject(e);
            }
        }

        private static String opName(StoreFrameCodec.Request r) {
            String n = r.getClass().getSimpleName();
            return Character.toLowerCase(n.charAt(0)) + n.substring(1);
        }

        private void write(ByteBuf frame) {
            channel.writeAndFlush(frame, channel.voidPromise());
        }

        private void dispatch(StoreFrameCodec.Request r) {
            int id = r.id();
            ByteBufAllocator a = channel.alloc();
            if (r instanceof StoreFrameCodec.Set q) {
                List<StoreState.Fired> fired = state.set(q.key(), q.value());
                if (q.reply()) {
                    write(StoreFrameCodec.ok(a, id));
                }
                fire(fired);
            } else if (r instanceof StoreFrameCodec.Get q) {
                await(id, "get", List.of(q.key()), q.timeoutMs());
            } else if (r instanceof StoreFrameCodec.Add q) {
                List<StoreState.Fired> fired = new ArrayList<>(0);
                long v = state.add(q.key(), q.delta(), fired);
                write(StoreFrameCodec.longValue(a, id, v));
                fire(fired);
            } else if (r instanceof StoreFrameCodec.CompareSet q) {
                List<StoreState.Fired> fired = new ArrayList<>(0);
                byte[] v = state.compareSet(q.key(), q.expected(), q.desired(), fired);
                write(StoreFrameCodec.value(a, id, v));
                fire(fired);
            } else if (r instanceof StoreFrameCodec.Wait q) {
                await(id, "await", q.keys(), q.timeoutMs());
            } else if (r instanceof StoreFrameCodec.Check q) {
                write(StoreFrameCodec.boolValue(a, id, state.check(q.keys())));
            } else if (r instanceof StoreFrameCodec.Delete q) {
                write(StoreFrameCodec.boolValue(a, id, state.delete(q.key())));
            } else if (r instanceof StoreFrameCodec.NumKeys) {
                write(StoreFrameCodec.longValue(a, id, state.numKeys()));
            } else if (r instanceof StoreFrameCodec.MultiGet q) {
                await(id, "multiGet", q.keys(), q.timeoutMs());
            } else if (r instanceof StoreFrameCodec.MultiSet q) {
                List<StoreState.Fired> fired = state.multiSet(q.entries());
                write(StoreFrameCodec.ok(a, id));
                fire(fired);
            } else if (r instanceof StoreFrameCodec.Append q) {
                List<StoreState.Fired> fired = new ArrayList<>(0);
                long v = state.append(q.key(), q.value(), fired);
                write(StoreFrameCodec.longValue(a, id, v));
                fire(fired);
            } else if (r instanceof StoreFrameCodec.Cancel) {
                StoreState.Waiter w = waits.remove(id);
                if (w != null && state.remove(w) != null) {
                    cancelTimer(w);
                }
            }
        }

        /** A waiting request: answered now if every key exists, else registered with a timer on this event loop. */
        private void await(int id, String op, List<String> keys, long timeoutMs) {
            if (timeoutMs <= 0) {
                throw new IllegalArgumentException(op + ": timeout must be positive, was " + timeoutMs + " ms");
            }
            if (waits.containsKey(id)) {
                throw new StoreProtocolException("request id " + id + " is already waiting");
            }
            if (waits.size() >= MAX_PENDING_PER_CONNECTION) {
                throw new StoreProtocolException("more than " + MAX_PENDING_PER_CONNECTION + " pending waits");
            }
            StoreState.Waiter w = new StoreState.Waiter(this, id, op, keys);
            List<byte[]> now = state.awaitOrGet(w);
            if (now != null) {
                write(answer(w, now));
                return;
            }
            waits.put(id, w);
            long ms = Math.min(timeoutMs, MAX_WAIT_MS);
            w.timer = channel.eventLoop().schedule(() -> onTimeout(w, ms), ms, TimeUnit.MILLISECONDS);
        }

        private ByteBuf answer(StoreState.Waiter w, List<byte[]> values) {
            ByteBufAllocator a = channel.alloc();
            return switch (w.op) {
                case "get" -> StoreFrameCodec.value(a, w.id, values.get(0));
                case "await" -> StoreFrameCodec.ok(a, w.id);
                default -> StoreFrameCodec.values(a, w.id, values);
            };
        }

        private void onTimeout(StoreState.Waiter w, long ms) {
            List<String> missing = state.remove(w);
            if (missing == null) {
                return; // fired meanwhile: its answer is on the way
            }
            waits.remove(w.id);
            StoreTimeoutException te = new StoreTimeoutException(w.op, missing, Duration.ofMillis(ms));
            write(StoreFrameCodec.error(channel.alloc(), w.id, StoreFrameCodec.E_TIMEOUT, w.op, te.getMessage(),
                    te.missingKeys(), ms));
        }

        private static void cancelTimer(StoreState.Waiter w) {
            if (w.timer instanceof java.util.concurrent.Future<?> f) {
                f.cancel(false);
            }
        }

        /** Answers waiters completed by a write, each on its own connection's event loop. */
        private static void fire(List<StoreState.Fired> fired) {
            for (StoreState.Fired f : fired) {
                Session s = (Session) f.waiter().owner;
                s.onEventLoop(() -> {
                    s.waits.remove(f.waiter().id);
                    cancelTimer(f.waiter());
                    if (s.channel.isActive()) {
                        s.write(s.answer(f.waiter(), f.values()));
                    }
                });
            }
        }

        /** Fails a waiter dropped by {@link TcpStoreServer#close()}. */
        void closed(StoreState.Waiter w) {
            onEventLoop(() -> {
                waits.remove(w.id);
                cancelTimer(w);
                if (channel.isActive()) {
                    write(StoreFrameCodec.error(channel.alloc(), w.id, StoreFrameCodec.E_CLOSED, w.op,
                            w.op + ": store closed while waiting for " + w.keys, List.of(), 0));
                }
            });
        }

        private void onEventLoop(Runnable task) {
            if (channel.eventLoop().inEventLoop()) {
                task.run();
            } else {
                try {
                    channel.eventLoop().execute(task);
                } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                    // the event loop is gone with the server: nobody is left to answer
                }
            }
        }

        private void authenticate(ByteBuf body) {
            StoreFrameCodec.Auth auth = StoreFrameCodec.decodeAuth(body); // anything else: protocol error
            if (!StoreAuth.verify(secret, nonce, auth.mac())) {
                authFailed.incrementAndGet();
                closing = true;
                LOG.error("TCP store: rejecting client {}: authentication failed (wrong secret)", channel.remoteAddress());
                channel.writeAndFlush(StoreFrameCodec.error(channel.alloc(), 0, StoreFrameCodec.E_AUTH, "auth",
                        "authentication failed", List.of(), 0)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            authenticated = true;
            channel.pipeline().get(StoreFrameDecoder.class).maxFrameSize(maxFrame);
            write(StoreFrameCodec.ready(channel.alloc(), StoreAuth.hmac(secret, auth.clientNonce())));
        }

        private void dropWaits() {
            if (waits.isEmpty()) {
                return;
            }
            List<StoreState.Waiter> all = new ArrayList<>(waits.values());
            waits.clear();
            for (StoreState.Waiter w : all) {
                state.remove(w);
                cancelTimer(w);
            }
        }
    }
}
