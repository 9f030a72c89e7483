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
 * one (also how long {@link TcpStore#connect} keeps retrying), an optional shared secret (HMAC
 * authentication), an optional client {@link SslContext} (TLS), the frame size limit, event loops
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

    private TcpStoreOptions(String host, int port, Duration timeout, byte[] secret, SslContext ssl, int maxFrameSize,
                            LoopResources loops, MeterRegistry registry) {
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
    }

    /** Options for the server at {@code host:port}: default wait, no secret, no TLS. */
    public static TcpStoreOptions of(String host, int port) {
        return new TcpStoreOptions(host, port, Store.DEFAULT_TIMEOUT, null, null, StoreFrameCodec.DEFAULT_MAX_FRAME,
                null, Metrics.globalRegistry);
    }

    public TcpStoreOptions withTimeout(Duration timeout) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry);
    }

    /** Authenticates with this shared secret (null: no authentication). */
    public TcpStoreOptions withSecret(byte[] secret) {
        return new TcpStoreOptions(host, port, timeout, secret == null ? null : secret.clone(), ssl, maxFrameSize, loops,
                registry);
    }

    /** Connects over TLS with this client context (null: plain TCP). */
    public TcpStoreOptions withSsl(SslContext ssl) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry);
    }

    public TcpStoreOptions withMaxFrameSize(int maxFrameSize) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry);
    }

    /** Runs the connection on these event loops (default: Reactor Netty's shared ones). */
    public TcpStoreOptions withLoops(LoopResources loops) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry);
    }

    public TcpStoreOptions withMeterRegistry(MeterRegistry registry) {
        return new TcpStoreOptions(host, port, timeout, secret, ssl, maxFrameSize, loops, registry);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public Duration timeout() {
        return timeout;
    }

    byte[] secret() {
        return secret;
    }

    public boolean authenticated() {
        return secret != null;
    }

    public SslContext ssl() {
        return ssl;
    }

    public int maxFrameSize() {
        return maxFrameSize;
    }

    public LoopResources loops() {
        return loops;
    }

    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public String toString() {
        return "TcpStoreOptions[" + host + ":" + port + ", timeout " + timeout + ", auth " + (secret != null)
                + ", tls " + (ssl != null) + "]";
    }
}
