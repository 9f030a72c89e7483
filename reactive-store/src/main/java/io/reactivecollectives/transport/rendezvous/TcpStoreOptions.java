package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.netty.handler.ssl.SslContext;
import io.reactivecollectives.core.rendezvous.Store;
import reactor.netty.resources.LoopResources;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link TcpStore} client connects: server address, the wait used by calls that are not given
 * one (also how long {@link TcpStore#connect} keeps retrying), the deadline of every call
 * ({@link #operationTimeout()}), an optional shared secret (HMAC authentication), an optional client {@link SslContext} (TLS), the frame size limit, event loops
 * and the meter registry. Immutable; the {@code with...} methods return changed copies.
 */
public final class TcpStoreOptions {

    private final String host;
    private final int port;
    private final Duration timeout;
    private final byte[] secret;
    private final SslContext ssl;
    private final int maxFrameSize;
    private final LoopResources loops;
    private final MeterRegistry registry;
    private final boolean acknowledgedSets;
    /** Null: the same as {@link #timeout}. */
    private final Duration operationTimeout;

    private TcpStoreOptions(String host, int port, Duration timeout, byte[] secret, SslContext ssl, int maxFrameSize,
                            LoopResources loops, MeterRegistry registry, boolean acknowledgedSets,
                            Duration operationTimeout) {
        this.host = Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, was " + port);
        }
        this.port = port;
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        this.timeout = timeout;
        this.secret = secret;
        if (ssl != null && !ssl.isClient()) {
            throw new IllegalArgumentException("ssl: a client SslContext is needed");
        }
        this.ssl = ssl;
        if (maxFrameSize < 1024) {
            throw new IllegalArgumentException("maxFrameSize must be at least 1024, was " + maxFrameSize);
        }
        this.maxFrameSize = maxFrameSize;
        this.loops = loops;
        this.registry = Objects.requireNonNull(registry, "registry");
        this.acknowledgedSets = acknowledgedSets;
        if (operationTimeout != null && (operationTimeout.isZero() || operationTimeout.isNegative())) {
            throw new IllegalArgumentException("operationTimeout must be positive, was " + operationTimeout);
        }
        this.operationTimeout = operationTimeout;
    }

    /**
     * Options for the server at {@code host:port}: default wait, no secret, no TLS.
     *
     * @param host the server's host
     * @param port the server's port, 1 to 65535
     * @return the options
     * @throws IllegalArgumentException for a port out of range
     */
    public static TcpStoreOptions of(String host, int port) {
        return new TcpStoreOptions(host, port, Store.DEFAULT_TIMEOUT, null, null, StoreFrameCodec.DEFAULT_MAX_FRAME,
                null, Metrics.globalRegistry, true, null);
    }

    /**
     * The wait of calls not given one ({@code get(key)}, {@code multiGet}), and how long
     * {@link TcpStore#connect} keeps retrying; also the {@link #operationTimeout()} unless that is set.
     *
     * @param timeout the wait, positive
     * @return the new options
     */
    public TcpStoreOptions withTimeout(Duration timeout) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets, operationTimeout);
    }

    /**
     * Authenticates with this shared secret (null: no authentication).
     *
     * @param secret the shared secret (copied), or null
     * @return the new options
     */
    public TcpStoreOptions withSecret(byte[] secret) {
        return new TcpStoreOptions(host, port, timeout, secret == null ? null : secret.clone(), ssl, maxFrameSize, loops,
                registry, acknowledgedSets, operationTimeout);
    }

    /**
     * Connects over TLS with this client context (null: plain TCP).
     *
     * @param ssl a client {@code SslContext}, or null
     * @return the new options
     * @throws IllegalArgumentException for a server context
     */
    public TcpStoreOptions withSsl(SslContext ssl) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets, operationTimeout);
    }

    /**
     * These options with another largest frame body, for requests sent (a larger one fails with an
     * {@link IllegalArgumentException}) and responses accepted: it bounds a value set or read in one call.
     *
     * @param maxFrameSize the limit in bytes, at least 1024
     * @return the new options
     */
    public TcpStoreOptions withMaxFrameSize(int maxFrameSize) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets, operationTimeout);
    }

    /**
     * Runs the connection on these event loops (default: Reactor Netty's shared ones).
     *
     * @param loops the event loops, or null for Reactor Netty's shared ones
     * @return the new options
     */
    public TcpStoreOptions withLoops(LoopResources loops) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets, operationTimeout);
    }

    /**
     * These options with another meter registry for the client's meters.
     *
     * @param registry the registry, not null
     * @return the new options
     */
    public TcpStoreOptions withMeterRegistry(MeterRegistry registry) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets, operationTimeout);
    }

    /**
     * Whether {@link TcpStore#set} waits for the server (true, the default) or, as PyTorch's
     * {@code TCPStore.set}, only hands the request to the connection (false). Unacknowledged, a
     * set completes once its frame is queued on the connection (or, when the connection's outbound
     * buffer is above its high-water mark, once the frame is written to the socket); the server
     * applies it without answering. The server applies one connection's requests in order, so every
     * later call of this client sees the value, and a {@code get} of another client waits for it as
     * usual; but another client's {@code check} right after the set returned may not see it yet, and
     * a set still queued when the connection is lost is lost with it (later calls fail). A set the
     * server rejects is logged by this client as a warning.
     *
     * @param acknowledged whether sets wait for the server's answer
     * @return the new options
     */
    public TcpStoreOptions withAcknowledgedSets(boolean acknowledged) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledged, operationTimeout);
    }

    /**
     * The deadline of every call that does not wait for keys ({@code set}, {@code add},
     * {@code compareSet}, {@code check}, {@code delete}, {@code numKeys}, {@code multiSet},
     * {@code append}): a call the server has not answered within it fails with a
     * {@link io.reactivecollectives.core.rendezvous.StoreTimeoutException} naming the operation, its
     * keys and the server's address (a stopped or frozen store host answers nothing, and TCP alone
     * would wait for it forever). A call that waits for keys ({@code get}, {@code await},
     * {@code multiGet}) keeps its own wait, which the server reports when it runs out; the client
     * gives up by itself when no answer came within that wait plus the smaller of this deadline and
     * {@value TcpStore#LOCAL_GRACE_SECONDS} s. Default: the same as {@link #timeout()}.
     *
     * @param operationTimeout the deadline, positive
     * @return the new options
     */
    public TcpStoreOptions withOperationTimeout(Duration operationTimeout) {
        Objects.requireNonNull(operationTimeout, "operationTimeout");
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry, acknowledgedSets,
                operationTimeout);
    }

    /**
     * See {@link #withOperationTimeout(Duration)}: the set one, else {@link #timeout()}.
     *
     * @return the deadline of calls that do not wait for keys
     */
    public Duration operationTimeout() {
        return operationTimeout != null ? operationTimeout : timeout;
    }

    /**
     * See {@link #withAcknowledgedSets(boolean)}.
     *
     * @return whether sets wait for the server's answer
     */
    public boolean acknowledgedSets() {
        return acknowledgedSets;
    }

    /** {@return the server's host} */
    public String host() {
        return host;
    }

    /** {@return the server's port} */
    public int port() {
        return port;
    }

    /** {@return the wait of calls not given one, and how long connecting keeps retrying} */
    public Duration timeout() {
        return timeout;
    }

    byte[] secret() {
        return secret;
    }

    /** {@return whether a secret is set, so the client authenticates} */
    public boolean authenticated() {
        return secret != null;
    }

    /** {@return the client TLS context, or null for plain TCP} */
    public SslContext ssl() {
        return ssl;
    }

    /** {@return the largest frame body sent or accepted, in bytes} */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** {@return the event loops, or null for Reactor Netty's shared ones} */
    public LoopResources loops() {
        return loops;
    }

    /** {@return the registry the client's meters go to} */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public String toString() {
        return "TcpStoreOptions[" + host + ":" + port + ", timeout " + timeout + ", auth " + (secret != null)
                + (operationTimeout == null ? "" : ", operation timeout " + operationTimeout) + ", tls " + (ssl != null) + (acknowledgedSets ? "" : ", unacknowledged sets") + "]";
    }
}
