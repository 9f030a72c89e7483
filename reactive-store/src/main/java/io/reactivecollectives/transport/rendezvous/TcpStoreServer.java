package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.netty.handler.ssl.SslContext;
import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.store.wire.RejectionLog;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The TCP store server, as c10d's TCPStore master: an in-memory {@link KeyValueWaiters} behind the
 * binary protocol of {@link StoreFrameCodec}, served by Reactor Netty's {@link TcpServer} (epoll
 * when available). Rank 0 embeds it ({@link #builder()}{@code .start()}); it also runs alone
 * ({@code io.reactivecollectives.tools.store.TcpStoreServerCommand}, in the reactive-tools artifact).
 *
 * <p>Every connection is handled on its event loop: frames are decoded and answered there, in
 * order; responses to many pipelined requests go out in one flush. A waiting request
 * ({@code GET}, {@code WAIT}, {@code MULTI_GET}) holds no thread: it is a waiter on the store's
 * key, answered when the key is set or the request's timeout runs out, dropped on {@code CANCEL},
 * and dropped with every other waiter of its connection when the connection closes, so a client
 * that dies mid-wait leaves nothing behind ({@link #pendingWaits()}).
 *
 * <p>A malformed, oversized or truncated frame, or a request before authentication, closes that
 * one connection with a logged error; every other connection is served on. So do a client that has
 * not greeted (and, with a secret, authenticated) within the
 * {@linkplain Builder#handshakeTimeout handshake timeout}, a frame
 * that stalls half-sent ({@linkplain Builder#frameTimeout frame timeout}), and connections beyond
 * {@linkplain Builder#maxConnections the limit}; such rejections are logged rate-limited (the first
 * of each reason in full, then one line per 10 s summing up the rest). Before its greeting a client
 * may send nothing bigger than {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} bytes, and all that
 * incomplete frames hold across connections stays within the
 * {@linkplain Builder#frameMemory frame memory budget}. With a secret the
 * server sends a nonce and reads nothing but the client's HMAC-SHA256 of it (a frame of at most
 * {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} bytes) before serving any key; with an
 * {@link SslContext} the connection is TLS.
 *
 * <p>Without TLS the server also listens on a Unix domain socket beside its TCP port
 * ({@link #localSocket()}: {@code rc-store-<port>.sock} in the temporary directory), which clients
 * of a loopback address try first: the same protocol without the kernel's TCP path.
 */
public final class TcpStoreServer implements AutoCloseable {

    /** The default {@link Builder#handshakeTimeout(Duration)}: 10 s. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** The default {@link Builder#frameTimeout(Duration)}: 60 s. */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(60);
    /** The default {@link Builder#maxConnections(int)}: 16384. */
    public static final int DEFAULT_MAX_CONNECTIONS = 16_384;
    /**
     * The most the default {@link Builder#frameMemory(long)} is: 256 MiB (it is also at most half of
     * the JVM's heap and of its direct memory).
     */
    public static final long DEFAULT_FRAME_MEMORY = 256L << 20;

    private final StoreServerBinder.Bound bound;
    private final KeyValueWaiters<StoreRequests.ServerWaiter> state;
    private final StoreServerMetrics metrics;
    private final RejectionLog rejections;
    private final StoreReplication replication;

    TcpStoreServer(StoreServerBinder.Bound bound, KeyValueWaiters<StoreRequests.ServerWaiter> state,
                   StoreServerMetrics metrics, RejectionLog rejections, StoreReplication replication) {
        this.bound = bound;
        this.replication = replication;
        this.state = state;
        this.metrics = metrics;
        this.rejections = rejections;
    }

    /**
     * A builder: loopback, an ephemeral port, no secret, no TLS, frames of up to 256 MiB.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the bound port (the real one when built with port 0)} */
    public int port() {
        return address().getPort();
    }

    /** {@return the bound address} */
    public InetSocketAddress address() {
        return (InetSocketAddress) bound.tcp().address();
    }

    /** {@return the number of requests waiting for keys now, over all connections} */
    public int pendingWaits() {
        return state.pendingWaits();
    }

    /** {@return the number of open client connections now} */
    public int connections() {
        return metrics.connections.get();
    }

    /**
     * Frames rejected so far (malformed, oversized, out of place); each closed its connection.
     *
     * @return the number of rejected frames
     */
    public long rejectedFrames() {
        return metrics.rejectedFrames.get();
    }

    /**
     * Connections closed before being served so far: over {@link Builder#maxConnections(int)}, or not
     * authenticated within {@link Builder#handshakeTimeout(Duration)}.
     *
     * @return the number of rejected connections
     */
    public long rejectedConnections() {
        return metrics.rejectedConnections.get();
    }

    /**
     * Bytes that incomplete frames hold now, across all connections: never over
     * {@link Builder#frameMemory(long)}.
     *
     * @return the bytes held now
     */
    public long frameMemoryInUse() {
        return metrics.frameMemory.used();
    }

    /**
     * The most bytes incomplete frames have held at once since the server started.
     *
     * @return the peak in bytes
     */
    public long frameMemoryPeak() {
        return metrics.frameMemory.peak();
    }

    /** {@return the number of clients rejected by authentication so far} */
    public long authenticationFailures() {
        return metrics.authFailures.get();
    }

    /**
     * Completes when the server has closed: its TCP port and its local socket. A new server on the
     * same port should start after this (Netty removes the socket file when the old listening
     * channel closes, which would otherwise take the new server's file with it).
     *
     * @return a {@code Mono} that completes once the server has closed
     */
    public Mono<Void> onClose() {
        return bound.uds() == null ? bound.tcp().onDispose() : Mono.when(bound.tcp().onDispose(), bound.uds().onDispose());
    }

    /** Stops accepting, closes every connection and fails pending waits; does not block. */
    @Override
    public void close() {
        for (StoreRequests.ServerWaiter w : state.close()) {
            StoreRequests.closed(w);
        }
        bound.tcp().dispose();
        if (replication != null) {
            replication.close();
        }
        metrics.remove();
        rejections.flush(true);
        if (bound.uds() != null) {
            bound.uds().dispose();
            bound.file().release();
        }
    }

    /**
     * The Unix domain socket beside the TCP port that clients on this host connect through
     * ({@code rc-store-<port>.sock} in the temporary directory), or null when there is none (TLS,
     * turned off, or it could not bind).
     *
     * @return the socket file, or null
     */
    public Path localSocket() {
        return bound.path();
    }

    @Override
    public String toString() {
        return "TcpStoreServer[" + bound.tcp().address() + "]";
    }

    /** Options of a server; {@link #start()} binds it. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private byte[] secret;
        private SslContext sslContext;
        private int maxFrameSize = -1;
        private long frameMemory = -1;
        private LoopResources loops;
        private MeterRegistry registry = Metrics.globalRegistry;
        private boolean unixSocket = true;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Function<UnaryOperator<byte[]>, StoreReplication> replication;

        private Builder() {
        }

        /**
         * Makes this server one replica of a store several processes hold ({@link StoreReplication}):
         * writes go through the replicas' log, reads wait until this replica caught up with it, so
         * that a client of any replica sees the same store and losing a minority of the replicas
         * loses nothing. {@link #start()} starts the replica (it waits for it to serve) before it
         * binds the clients' port; closing the server stops the replica.
         *
         * @param provider the replication ({@link StoreReplicationProvider#find()})
         * @param replicas where the replicas are and which one this server is
         * @return this builder
         */
        public Builder replicated(StoreReplicationProvider provider, StoreReplicationProvider.Replicas replicas) {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(replicas, "replicas");
            this.replication = apply -> {
                try {
                    return provider.start(replicas, apply);
                } catch (IOException e) {
                    throw new UncheckedIOException("store replica " + replicas.self() + " at "
                            + replicas.peers().get(replicas.self()) + " cannot start: " + e.getMessage(), e);
                }
            };
            return this;
        }

        /**
         * Whether to also listen on a Unix domain socket for clients on this host (default true;
         * never with TLS; {@code -Drc.store.unixSockets=false} turns it off everywhere). See
         * {@link TcpStoreServer#localSocket()}.
         *
         * @param on whether to listen on the Unix domain socket too
         * @return this builder
         */
        public Builder unixSocket(boolean on) {
            this.unixSocket = on;
            return this;
        }

        /**
         * The address to bind ({@code 0.0.0.0} for every interface); default loopback.
         *
         * @param host the address to bind
         * @return this builder
         */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /**
         * The port; 0 (the default) picks a free one, see {@link TcpStoreServer#port()}.
         *
         * @param port the port, or 0 for a free one
         * @return this builder
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Turns on HMAC authentication with this shared secret (null: off).
         *
         * @param secret the shared secret, or null
         * @return this builder
         */
        public Builder secret(byte[] secret) {
            this.secret = secret == null ? null : secret.clone();
            return this;
        }

        /**
         * Turns on TLS with this server context (null: off).
         *
         * @param sslContext a server {@code SslContext}, or null
         * @return this builder
         */
        public Builder ssl(SslContext sslContext) {
            if (sslContext != null && !sslContext.isServer()) {
                throw new IllegalArgumentException("ssl: a server SslContext is needed");
            }
            this.sslContext = sslContext;
            return this;
        }

        /**
         * The largest frame body accepted, in bytes (at least 1 KiB): it bounds a value set in one
         * call. Default {@link StoreFrameCodec#DEFAULT_MAX_FRAME} (256 MiB), or the
         * {@linkplain #frameMemory(long) frame memory} if that is less; it may not exceed the frame memory.
         *
         * @param bytes the limit in bytes
         * @return this builder
         */
        public Builder maxFrameSize(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxFrameSize must be at least 1024, was " + bytes);
            }
            this.maxFrameSize = bytes;
            return this;
        }

        /**
         * The most memory that incomplete frames may hold at once across all connections, in bytes
         * (default: {@link TcpStoreServer#DEFAULT_FRAME_MEMORY}, at most half of the JVM's heap and of
         * its direct memory). A frame that does not arrive in one read reserves its whole declared length
         * first; when that does not fit, its connection stops reading until other frames complete
         * (back-pressure), so what clients announce never allocates more than this. See
         * {@link TcpStoreServer#frameMemoryInUse()}.
         *
         * @param bytes the limit in bytes
         * @return this builder
         */
        public Builder frameMemory(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("frameMemory must be at least 1024, was " + bytes);
            }
            this.frameMemory = bytes;
            return this;
        }

        /**
         * Event loops to run on (default: Reactor Netty's shared ones).
         *
         * @param loops the event loops
         * @return this builder
         */
        public Builder loops(LoopResources loops) {
            this.loops = loops;
            return this;
        }

        /**
         * Where the server's gauges and counters go (default: Micrometer's global registry).
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * How long a client has, from connecting, to greet the server (every client of this library
         * does so at once) and, with a secret, to authenticate (default
         * {@link TcpStoreServer#DEFAULT_HANDSHAKE_TIMEOUT}); a connection that has not is closed and
         * counted in {@link TcpStoreServer#rejectedConnections()}, so idle, slow or unauthenticated
         * connections cannot pile up.
         *
         * @param timeout the handshake deadline
         * @return this builder
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = positive(timeout, "handshakeTimeout");
            return this;
        }

        /**
         * How long a frame that has begun to arrive may take to arrive whole (default
         * {@link TcpStoreServer#DEFAULT_FRAME_TIMEOUT}); a client that sends part of a frame and
         * stalls has its connection closed. An idle connection between frames is never closed:
         * clients legitimately wait long for keys.
         *
         * @param timeout the deadline of one frame
         * @return this builder
         */
        public Builder frameTimeout(Duration timeout) {
            this.frameTimeout = positive(timeout, "frameTimeout");
            return this;
        }

        /**
         * The most client connections open at once (default
         * {@link TcpStoreServer#DEFAULT_MAX_CONNECTIONS}); more are closed at once, counted in
         * {@link TcpStoreServer#rejectedConnections()} and logged (summed up every 10 s).
         *
         * @param max the limit
         * @return this builder
         */
        public Builder maxConnections(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxConnections must be at least 1, was " + max);
            }
            this.maxConnections = max;
            return this;
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(what + " must be positive, was " + d);
            }
            return d;
        }

        /**
         * Binds the server; emits it once listening (cold: binds once per subscription).
         *
         * @return a cold {@code Mono} emitting the listening server, which the caller closes
         */
        public Mono<TcpStoreServer> start() {
            long memory = frameMemory > 0 ? frameMemory
                    : Math.min(DEFAULT_FRAME_MEMORY, Math.max(1 << 20,
                            Math.min(PlatformDependent.maxDirectMemory(), Runtime.getRuntime().maxMemory()) / 2));
            int frame = maxFrameSize > 0 ? maxFrameSize : (int) Math.min(StoreFrameCodec.DEFAULT_MAX_FRAME, memory);
            return StoreServerBinder.start(new StoreServerBinder.Config(host, port, secret, sslContext, frame,
                    loops, registry, unixSocket, handshakeTimeout, frameTimeout, maxConnections, memory, replication));
        }
    }
}
