package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.NettyInbound;
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
import java.util.function.Function;

/**
 * The TCP store server, as c10d's TCPStore master: an in-memory {@link HashStore} behind the
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
 */
public final class TcpStoreServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStoreServer.class);
    /** The longest wait a request may ask for (7 days); longer ones are clamped. */
    static final long MAX_WAIT_MS = Duration.ofDays(7).toMillis();
    /** Pending waits one connection may hold; more is a protocol error. */
    static final int MAX_PENDING_PER_CONNECTION = 65_536;

    private final DisposableServer server;
    private final HashStore store;
    private final AtomicInteger pendingWaits;
    private final AtomicInteger connections;
    private final AtomicLong rejectedFrames;
    private final AtomicLong authFailures;

    private TcpStoreServer(DisposableServer server, HashStore store, AtomicInteger pendingWaits,
                           AtomicInteger connections, AtomicLong rejectedFrames, AtomicLong authFailures) {
        this.server = server;
        this.store = store;
        this.pendingWaits = pendingWaits;
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
        return pendingWaits.get();
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

    /** Completes when the server has closed. */
    public Mono<Void> onClose() {
        return server.onDispose();
    }

    /** Stops accepting, closes every connection and fails pending waits; does not block. */
    @Override
    public void close() {
        server.dispose();
        store.close();
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

        private Builder() {
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
            return Mono.defer(() -> {
                if (key != null) {
                    StoreAuth.init();
                }
                HashStore store = new HashStore(Duration.ofMillis(MAX_WAIT_MS));
                AtomicInteger pending = new AtomicInteger();
                AtomicInteger conns = new AtomicInteger();
                AtomicLong rejected = new AtomicLong();
                AtomicLong authFailed = new AtomicLong();
                TcpServer server = TcpServer.create()
                        .host(h)
                        .port(p)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .doOnConnection(c -> {
                            c.addHandlerLast(StoreFrameDecoder.NAME,
                                    new StoreFrameDecoder(key != null ? StoreFrameCodec.HANDSHAKE_MAX_FRAME : max));
                            c.addHandlerLast("rc.store.flush", new FlushConsolidationHandler(256, true));
                        })
                        .handle((in, out) -> new Session((Connection) in, store, key, max, pending, conns, rejected,
                                authFailed).run(in));
                if (lr != null) {
                    server = server.runOn(lr);
                }
                if (ssl != null) {
                    server = server.secure(spec -> spec.sslContext(ssl));
                }
                return server.bind().map(ds -> {
                    TcpStoreServer s = new TcpStoreServer(ds, store, pending, conns, rejected, authFailed);
                    String port = Integer.toString(s.port());
                    Gauge.builder("rc.store.server.pending.waits", pending, AtomicInteger::get)
                            .tag("port", port).register(reg);
                    Gauge.builder("rc.store.server.connections", conns, AtomicInteger::get)
                            .tag("port", port).register(reg);
                    FunctionCounter.builder("rc.store.server.rejected.frames", rejected, AtomicLong::get)
                            .tag("port", port).register(reg);
                    FunctionCounter.builder("rc.store.server.auth.failures", authFailed, AtomicLong::get)
                            .tag("port", port).register(reg);
                    LOG.debug("TCP store listening on {} (auth {}, tls {})", ds.address(), key != null, ssl != null);
                    return s;
                });
            });
        }
    }

    /** One client connection; all its state is touched on its event loop only. */
    private static final class Session {
        private final Channel channel;
        private final HashStore store;
        private final byte[] secret;
        private final int maxFrame;
        private final AtomicInteger pendingWaits;
        private final AtomicInteger connections;
        private final AtomicLong rejected;
        private final AtomicLong authFailed;
        private final Map<Integer, Reply<?>> waits = new HashMap<>();
        private byte[] nonce;
        private boolean authenticated;
        private boolean closing;

        Session(Connection connection, HashStore store, byte[] secret, int maxFrame, AtomicInteger pendingWaits,
                AtomicInteger connections, AtomicLong rejected, AtomicLong authFailed) {
            this.channel = connection.channel();
            this.store = store;
            this.secret = secret;
            this.maxFrame = maxFrame;
            this.pendingWaits = pendingWaits;
            this.connections = connections;
            this.rejected = rejected;
            this.authFailed = authFailed;
        }

        Mono<Void> run(NettyInbound in) {
            connections.incrementAndGet();
            ByteBufAllocator alloc = channel.alloc();
            if (secret != null) {
                nonce = StoreAuth.nonce();
                channel.writeAndFlush(StoreFrameCodec.hello(alloc, true, nonce), channel.voidPromise());
            } else {
                authenticated = true;
                channel.writeAndFlush(StoreFrameCodec.hello(alloc, false, new byte[0]), channel.voidPromise());
            }
            return in.receive()
                    .doOnNext(this::onFrame)
                    .then()
                    .onErrorResume(e -> {
                        Throwable cause = e instanceof DecoderException && e.getCause() != null ? e.getCause() : e;
                        if (cause instanceof StoreProtocolException) {
                            reject(cause);
                        } else if (cause instanceof java.io.IOException) {
                            LOG.debug("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                        } else {
                            LOG.warn("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                        }
                        channel.close();
                        return Mono.empty();
                    })
                    .doFinally(signal -> {
                        connections.decrementAndGet();
                        dropWaits();
                    });
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
                handle(body);
            } catch (StoreProtocolException e) {
                reject(e);
            }
        }

        private void handle(ByteBuf body) {
            if (!authenticated) {
                authenticate(body);
                return;
            }
            StoreFrameCodec.Request r = StoreFrameCodec.decodeRequest(body);
            try {
                dispatch(r);
            } catch (IllegalArgumentException | NullPointerException e) {
                channel.writeAndFlush(StoreFrameCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_BAD_REQUEST,
                        r.getClass().getSimpleName(), String.valueOf(e.getMessage()), List.of(), 0), channel.voidPromise());
            }
        }

        private void dispatch(StoreFrameCodec.Request r) {
            int id = r.id();
            if (r instanceof StoreFrameCodec.Set q) {
                reply(id, "set", store.set(q.key(), q.value()), (a, v) -> StoreFrameCodec.ok(a, id), false);
            } else if (r instanceof StoreFrameCodec.Get q) {
                reply(id, "get", store.get(q.key(), waitOf(q.timeoutMs())),
                        (a, v) -> StoreFrameCodec.value(a, id, v), true);
            } else if (r instanceof StoreFrameCodec.Add q) {
                reply(id, "add", store.add(q.key(), q.delta()), (a, v) -> StoreFrameCodec.longValue(a, id, v), false);
            } else if (r instanceof StoreFrameCodec.CompareSet q) {
                reply(id, "compareSet", store.compareSet(q.key(), q.expected(), q.desired()),
                        (a, v) -> StoreFrameCodec.value(a, id, v), false);
            } else if (r instanceof StoreFrameCodec.Wait q) {
                reply(id, "await", store.await(q.keys(), waitOf(q.timeoutMs())),
                        (a, v) -> StoreFrameCodec.ok(a, id), true);
            } else if (r instanceof StoreFrameCodec.Check q) {
                reply(id, "check", store.check(q.keys()), (a, v) -> StoreFrameCodec.boolValue(a, id, v), false);
            } else if (r instanceof StoreFrameCodec.Delete q) {
                reply(id, "delete", store.delete(q.key()), (a, v) -> StoreFrameCodec.boolValue(a, id, v), false);
            } else if (r instanceof StoreFrameCodec.NumKeys) {
                reply(id, "numKeys", store.numKeys(), (a, v) -> StoreFrameCodec.longValue(a, id, v), false);
            } else if (r instanceof StoreFrameCodec.MultiGet q) {
                List<String> keys = q.keys();
                Duration wait = waitOf(q.timeoutMs());
                reply(id, "multiGet", store.await(keys, wait).then(Mono.defer(() -> store.multiGet(keys))),
                        (a, v) -> StoreFrameCodec.values(a, id, v), true);
            } else if (r instanceof StoreFrameCodec.MultiSet q) {
                reply(id, "multiSet", store.multiSet(q.entries()), (a, v) -> StoreFrameCodec.ok(a, id), false);
            } else if (r instanceof StoreFrameCodec.Append q) {
                reply(id, "append", store.append(q.key(), q.value()), (a, v) -> StoreFrameCodec.longValue(a, id, v),
                        false);
            } else if (r instanceof StoreFrameCodec.Cancel) {
                Reply<?> w = waits.remove(id);
                if (w != null) {
                    pendingWaits.decrementAndGet();
                    w.dispose();
                }
            }
        }

        private static Duration waitOf(long timeoutMs) {
            if (timeoutMs <= 0) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeoutMs + " ms");
            }
            return Duration.ofMillis(Math.min(timeoutMs, MAX_WAIT_MS));
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
            channel.writeAndFlush(StoreFrameCodec.ready(channel.alloc(), StoreAuth.hmac(secret, auth.clientNonce())),
                    channel.voidPromise());
        }

        private <T> void reply(int id, String op, Mono<T> result, Encoder<T> encoder, boolean waits) {
            Reply<T> r = new Reply<>(this, id, op, encoder, waits);
            if (waits) {
                if (this.waits.containsKey(id)) {
                    throw new StoreProtocolException("request id " + id + " is already waiting");
                }
                if (this.waits.size() >= MAX_PENDING_PER_CONNECTION) {
                    throw new StoreProtocolException("more than " + MAX_PENDING_PER_CONNECTION + " pending waits");
                }
                this.waits.put(id, r);
                pendingWaits.incrementAndGet();
            }
            result.subscribe(r);
        }

        /** Runs on the event loop: writes a reply unless its wait was dropped meanwhile. */
        private void send(Reply<?> r, Function<ByteBufAllocator, ByteBuf> frame) {
            if (r.waits) {
                if (waits.get(r.id) != r) {
                    return; // cancelled or connection closed
                }
                waits.remove(r.id);
                pendingWaits.decrementAndGet();
            }
            if (channel.isActive()) {
                channel.writeAndFlush(frame.apply(channel.alloc()), channel.voidPromise());
            }
        }

        private void dropWaits() {
            if (waits.isEmpty()) {
                return;
            }
            List<Reply<?>> all = new ArrayList<>(waits.values());
            waits.clear();
            pendingWaits.addAndGet(-all.size());
            all.forEach(Reply::dispose);
        }
    }

    @FunctionalInterface
    private interface Encoder<T> {
        ByteBuf encode(ByteBufAllocator alloc, T value);
    }

    /** Subscribes to one store call and turns its outcome into one response frame. */
    private static final class Reply<T> extends BaseSubscriber<T> {
        private final Session session;
        private final int id;
        private final String op;
        private final Encoder<T> encoder;
        private final boolean waits;
        private T value;

        Reply(Session session, int id, String op, Encoder<T> encoder, boolean waits) {
            this.session = session;
            this.id = id;
            this.op = op;
            this.encoder = encoder;
            this.waits = waits;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        protected void hookOnNext(T v) {
            value = v;
        }

        @Override
        protected void hookOnComplete() {
            T v = value;
            deliver(alloc -> encoder.encode(alloc, v));
        }

        @Override
        protected void hookOnError(Throwable e) {
            deliver(alloc -> errorFrame(alloc, e));
        }

        private ByteBuf errorFrame(ByteBufAllocator alloc, Throwable e) {
            if (e instanceof StoreTimeoutException te) {
                return StoreFrameCodec.error(alloc, id, StoreFrameCodec.E_TIMEOUT, op, te.getMessage(),
                        te.missingKeys(), te.waited().toMillis());
            }
            int code = e instanceof IllegalArgumentException ? StoreFrameCodec.E_BAD_REQUEST
                    : e instanceof IllegalStateException ? StoreFrameCodec.E_CLOSED : StoreFrameCodec.E_INTERNAL;
            return StoreFrameCodec.error(alloc, id, code, op, String.valueOf(e.getMessage()), List.of(), 0);
        }

        private void deliver(Function<ByteBufAllocator, ByteBuf> frame) {
            Channel ch = session.channel;
            if (ch.eventLoop().inEventLoop()) {
                session.send(this, frame);
            } else {
                try {
                    ch.eventLoop().execute(() -> session.send(this, frame));
                } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                    // the event loop is gone with the server: nobody is left to answer
                }
            }
        }
    }
}
