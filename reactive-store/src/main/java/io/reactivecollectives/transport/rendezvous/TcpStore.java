package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import reactor.core.publisher.Mono;

import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The TCP store client, as c10d's {@code TCPStore} for a non-master rank: a {@link Store} over one
 * Reactor Netty connection to a {@link TcpStoreServer}.
 *
 * <p>{@link #connect} is cold: on subscription it connects, retrying refused or failed connections
 * with exponential backoff (20 ms doubling to 1 s) until the options' timeout (logging the address,
 * the attempt and the last error every few seconds while it retries), then runs the handshake (HMAC
 * challenge-response when a secret is set; TLS when an SslContext is set), and emits the connected
 * store. A rejected secret is not retried.
 *
 * <p>Every call is a cold {@link Mono}: on subscription one request frame, with a fresh request id,
 * is written from the connection's event loop, so one connection carries many requests at once
 * (pipelined) and their responses may come back in any order. Values are emitted on the event loop.
 * Waiting calls ({@code get}, {@code await}, {@code multiGet}) carry their timeout to the server,
 * which answers with the keys still missing when it runs out ({@link StoreTimeoutException});
 * cancelling one sends {@code CANCEL} so the server drops the waiter.
 *
 * <p>Every call has a deadline, so a stopped or frozen server host cannot hang it: a call that does
 * not wait for keys fails after {@link TcpStoreOptions#operationTimeout()} without an answer, a
 * waiting call after its wait plus a margin (the operation timeout, at most {@value #LOCAL_GRACE_SECONDS} s),
 * each with a {@link StoreTimeoutException} naming the operation, its keys and the server's
 * address, e.g. {@code store get("rc/g/addr/1") at 127.0.0.1:29500: no reply within 10000 ms}. If the connection is lost,
 * every pending and later call fails with {@link IllegalStateException} naming the op and the
 * server. Each call is timed into the {@code rc.store.client.op} timer (tags {@code op},
 * {@code outcome}).
 *
 * <p>{@code set} waits for the server's answer unless the options turn that off
 * ({@link TcpStoreOptions#withAcknowledgedSets(boolean)}, PyTorch TCPStore's behaviour): then it
 * completes once the request is queued on the connection, and queued sets go out together in one
 * write.
 */
public final class TcpStore implements Store {

    /** The longest margin, in seconds, a waiting call grants the server to report its timeout. */
    public static final int LOCAL_GRACE_SECONDS = 5;
    /** Extra time the client grants the server to report a timeout before giving up itself (at most). */
    static final Duration LOCAL_GRACE = Duration.ofSeconds(LOCAL_GRACE_SECONDS);

    private final TcpStoreOptions options;
    private final StoreClientSession session;

    private TcpStore(StoreClientSession session, TcpStoreOptions options) {
        this.session = session;
        this.options = options;
    }

    /**
     * Connects to the server of {@code options}: emits the store once connected and (if configured)
     * authenticated; fails after {@link TcpStoreOptions#timeout()} naming the server and the last
     * connection error, or at once with {@link StoreAuthenticationException}.
     *
     * @param options the server's address, timeouts, secret and TLS
     * @return a cold {@code Mono} emitting the connected store, which the caller closes
     */
    public static Mono<TcpStore> connect(TcpStoreOptions options) {
        Objects.requireNonNull(options, "options");
        return StoreClientConnector.connect(options).map(s -> new TcpStore(s, options));
    }

    /** {@return the options this store was connected with} */
    public TcpStoreOptions options() {
        return options;
    }

    @Override
    public Duration timeout() {
        return options.timeout();
    }

    // --- the Store calls -------------------------------------------------------------------------

    @Override
    public Mono<Void> set(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        byte[] copy = value.clone();
        if (!options.acknowledgedSets()) {
            return session.handOver("set", List.of(key), (a, id) -> StoreFrameCodec.setNoReply(a, id, key, copy));
        }
        return call("set", List.of(key), (a, id) -> StoreFrameCodec.set(a, id, key, copy), r -> null);
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        Objects.requireNonNull(key, "key");
        long ms = waitMillis(timeout);
        return session.call("get", List.of(key), (a, id) -> StoreFrameCodec.get(a, id, key, ms),
                StorePendingCall::value, timeout);
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        Objects.requireNonNull(key, "key");
        return call("add", List.of(key), (a, id) -> StoreFrameCodec.add(a, id, key, delta), StorePendingCall::longValue);
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        Objects.requireNonNull(key, "key");
        byte[] e = expected.clone();
        byte[] d = desired.clone();
        return call("compareSet", List.of(key), (a, id) -> StoreFrameCodec.compareSet(a, id, key, e, d),
                StorePendingCall::value);
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        List<String> copy = List.copyOf(keys);
        long ms = waitMillis(timeout);
        return session.call("await", copy, (a, id) -> StoreFrameCodec.await(a, id, copy, ms), r -> null, timeout);
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        return call("check", copy, (a, id) -> StoreFrameCodec.check(a, id, copy), StorePendingCall::boolValue);
    }

    @Override
    public Mono<Boolean> delete(String key) {
        Objects.requireNonNull(key, "key");
        return call("delete", List.of(key), (a, id) -> StoreFrameCodec.delete(a, id, key), StorePendingCall::boolValue);
    }

    @Override
    public Mono<Long> numKeys() {
        return call("numKeys", List.of(), StoreFrameCodec::numKeys, StorePendingCall::longValue);
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        Duration timeout = options.timeout();
        long ms = timeout.toMillis();
        return session.call("multiGet", copy, (a, id) -> StoreFrameCodec.multiGet(a, id, copy, ms),
                StorePendingCall::values, timeout);
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        Map<String, byte[]> copy = new LinkedHashMap<>();
        entries.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value").clone()));
        List<String> keys = List.copyOf(copy.keySet());
        return call("multiSet", keys, (a, id) -> StoreFrameCodec.multiSet(a, id, copy), r -> null);
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        byte[] copy = value.clone();
        return call("append", List.of(key), (a, id) -> StoreFrameCodec.append(a, id, key, copy),
                StorePendingCall::longValue);
    }

    /**
     * Closes the connection (without blocking); pending calls fail with
     * {@link IllegalStateException}, later ones too.
     */
    @Override
    public void close() {
        if (session.closedBy == null) {
            session.closedBy = new IllegalStateException("TCP store client for " + session.server + " closed");
        }
        session.connection().dispose();
    }

    /**
     * Whether this client reached its server through the server's Unix domain socket (a server on
     * this host, see {@link TcpStoreServer#localSocket()}) rather than TCP.
     *
     * @return whether the connection is a Unix domain socket
     */
    public boolean isLocalSocket() {
        return session.channel.remoteAddress() instanceof UnixDomainSocketAddress;
    }

    /** {@return a {@code Mono} that completes when the connection has closed} */
    @Override
    public Mono<Void> onClose() {
        return session.connection().onDispose();
    }

    @Override
    public String toString() {
        return "TcpStore[" + session.server + (isLocalSocket() ? " via its local socket" : "") + "]";
    }

    // --- plumbing -------------------------------------------------------------------------------

    /** A call that does not wait for keys: answered within the operation timeout or failed. */
    private <T> Mono<T> call(String op, List<String> keys, StoreClientSession.RequestEncoder encoder,
                             Function<StoreResponseCodec.Response, T> decoder) {
        return session.call(op, keys, encoder, decoder, null);
    }

    private static long waitMillis(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        return timeout.isZero() ? 0 : Math.max(1, timeout.toMillis());
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
