package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import io.reactivecollectives.transport.rendezvous.TorchStoreConnection.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A client of PyTorch's {@code TCPStore} server, in the torch 1.x or 2.x wire protocol
 * ({@link TorchStoreProtocol}; by default it finds out which, see {@link TorchProtocolProbe}), for
 * joining a job whose store torch runs: torchrun's agent store
 * ({@code TORCHELASTIC_USE_AGENT_STORE=True}) or a {@code TCPStore(is_master=True)} of a Python
 * process. Non-blocking, over Reactor Netty: one connection carries the calls that answer at once,
 * pipelined; every waiting {@code get} or {@code await} that cannot answer at once opens its own
 * connection for torch's {@code WAIT}, closed when the wait ends, times out or is cancelled (the
 * server forgets the waiter of a closed connection; over 2.x a cancelled wait first sends
 * {@code CANCEL_WAIT}).
 *
 * <p>Keys go on the wire with torch's client prefix {@value #KEY_PREFIX}, so a key set here is the
 * key a Python {@code TCPStore} client sees under the same name. Differences from the contract of
 * {@link Store}: {@link #numKeys()} counts every key of the torch store (torch's own included);
 * torch's legacy servers do not wake waiters on {@code compare_set} (the 2.x libuv server does), so a
 * waiting call also checks its keys every {@link #POLL_INTERVAL}; an {@link #add} on a value that is
 * not a number fails and makes the torch server close the connection, which the next call opens
 * again. Over 1.x, {@link #multiSet} sets one key after another (not atomically), {@link #multiGet}
 * gets one after another and {@link #append} is not offered (torch 1.x has no APPEND). Over 2.x they
 * are torch's {@code MULTI_SET}, {@code MULTI_GET} and {@code APPEND}; as torch's APPEND has no reply,
 * the length {@link #append} returns is read after it on the same connection, so appends of other
 * clients in between are counted too.
 */
public final class TorchTcpStore implements Store {

    /** The prefix torch's {@code TCPStore} client puts before every key. */
    public static final String KEY_PREFIX = "/";
    /** How often a waiting call also checks its keys (torch 1.x's compare_set wakes no waiter). */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(500);
    /** The largest value a reply may carry; {@code set}, {@code compareSet} and {@code multiSet} refuse larger ones. */
    public static final int MAX_VALUE_SIZE = 64 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(TorchTcpStore.class);

    private final String host;
    private final int port;
    private final Duration timeout;
    private final TorchStoreProtocol requested;
    private final AtomicReference<TorchStoreProtocol> protocol = new AtomicReference<>();
    private final Mono<TorchStoreConnection> main;
    private final AtomicReference<TorchStoreConnection> current = new AtomicReference<>();
    private final TorchStoreWaits waits;
    private volatile boolean closed;

    private TorchTcpStore(String host, int port, Duration timeout, TorchStoreProtocol requested) {
        this.host = host;
        this.port = port;
        this.timeout = timeout;
        this.requested = requested;
        if (requested != TorchStoreProtocol.AUTO) {
            protocol.set(requested);
        }
        this.main = Mono.defer(() -> closed ? Mono.error(closedError("call")) : connectWithRetry(timeout))
                .doOnNext(c -> {
                    TorchStoreConnection old = current.getAndSet(c);
                    if (old != null && old != c) {
                        old.close();
                    }
                    if (closed) {
                        c.close();
                    }
                })
                .cacheInvalidateIf(c -> !c.isActive());
        this.waits = new TorchStoreWaits(main, this::open, () -> closed);
    }

    /**
     * Connects to the torch {@code TCPStore} at {@code host:port} in the protocol the server speaks
     * ({@link TorchStoreProtocol#AUTO}); see {@link #connect(String, int, Duration, TorchStoreProtocol)}.
     *
     * @param host    the store's host name or address
     * @param port    the store's port
     * @param timeout how long to keep trying to connect, and the default wait of {@link #get}
     * @return a cold {@code Mono} emitting the connected store, which the caller closes
     */
    public static Mono<TorchTcpStore> connect(String host, int port, Duration timeout) {
        return connect(host, port, timeout, TorchStoreProtocol.AUTO);
    }

    /**
     * Connects to the torch {@code TCPStore} at {@code host:port} in {@code protocol}, retrying
     * refused or failed attempts with backoff (20 ms doubling to 1 s; the name is resolved again by
     * each attempt) until {@code timeout}, which is also the store's default wait. With
     * {@link TorchStoreProtocol#AUTO} the first attempt that reaches the server probes its protocol
     * on a connection of its own ({@link TorchProtocolProbe}), and the store keeps the answer. While
     * it retries it says so every {@code rc.wait-reports.interval} (5 s), as {@link TcpStore} does:
     * {@code TCP store at 10.0.0.1:29500 not reachable yet (5 s of 60 s): attempt 9 failed: ...}.
     *
     * @param host     the store's host name or address
     * @param port     the store's port
     * @param timeout  how long to keep trying to connect, and the default wait of {@link #get}
     * @param protocol the wire protocol, or {@link TorchStoreProtocol#AUTO} to detect it
     * @return a cold {@code Mono} emitting the connected store, which the caller closes
     */
    public static Mono<TorchTcpStore> connect(String host, int port, Duration timeout, TorchStoreProtocol protocol) {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(protocol, "protocol");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 1..65535");
        }
        return Mono.defer(() -> {
            TorchTcpStore store = new TorchTcpStore(host, port, timeout, protocol);
            return store.main.thenReturn(store);
        });
    }

    /**
     * The protocol this store speaks: the one asked for, or the one {@link TorchStoreProtocol#AUTO}
     * found (known once {@link #connect} has emitted the store).
     *
     * @return {@link TorchStoreProtocol#V1} or {@link TorchStoreProtocol#V2}; {@link TorchStoreProtocol#AUTO}
     *         only before the detection ended
     */
    public TorchStoreProtocol protocol() {
        TorchStoreProtocol p = protocol.get();
        return p == null ? requested : p;
    }

    private Mono<TorchStoreConnection> open() {
        TorchStoreProtocol p = protocol.get();
        Mono<TorchStoreProtocol> known = p != null ? Mono.just(p)
                : TorchProtocolProbe.detect(host, port, TorchProtocolProbe.window(timeout)).doOnNext(protocol::set);
        return known.flatMap(v -> TorchStoreConnection.connect(host, port, MAX_VALUE_SIZE, v));
    }

    /**
     * Connects, retrying with backoff until {@code within}; while it waits it says so every
     * {@link io.reactivecollectives.core.observe.WaitReports#defaultInterval()}, as {@link TcpStore}
     * does ({@link StoreConnectProgress}).
     */
    private Mono<TorchStoreConnection> connectWithRetry(Duration within) {
        return Mono.defer(() -> {
            StoreConnectProgress progress = new StoreConnectProgress(LOG, host, port, within);
            Disposable reports = progress.reportEvery();
            return open()
                    .doOnError(progress::failed)
                    .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(20)).maxBackoff(Duration.ofSeconds(1)))
                    .timeout(within)
                    .onErrorMap(TimeoutException.class, e -> {
                        Throwable last = progress.lastError();
                        return new IllegalStateException("connect: no torch TCPStore at " + server() + " after "
                                + within.toMillis() + " ms (" + progress.failedAttempts() + " failed attempts)"
                                + (last == null ? "" : "; last error: " + last), last);
                    })
                    .doFinally(s -> reports.dispose());
        });
    }

    private String server() {
        return host + ":" + port;
    }

    private IllegalStateException closedError(String op) {
        return new IllegalStateException(op + ": torch TCPStore client of " + server() + " is closed");
    }

    private Mono<Object> call(String op, TorchQuery query, Reply reply, java.util.function.Consumer<ByteBuf> body) {
        return main.flatMap(c -> c.call(op, query, reply, body));
    }

    /** A value this client could not read back ({@link #MAX_VALUE_SIZE}), refused before it is sent. */
    private static <T> Mono<T> tooLarge(String op, String key, int length) {
        return Mono.error(new IllegalArgumentException(op + ": the value of '" + key + "' is " + length
                + " bytes, over the " + MAX_VALUE_SIZE + " bytes this client reads back from a torch TCPStore"));
    }

    private static String wire(String key) {
        return KEY_PREFIX + Objects.requireNonNull(key, "key");
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        String k = wire(key);
        if (value.length > MAX_VALUE_SIZE) {     // checked before the copy: a refused value is not copied
            return tooLarge("set", key, value.length);
        }
        byte[] v = value.clone();
        // SET has no reply; a CHECK behind it on the same connection answers once the server applied it
        return main.flatMap(c -> c.call("set", TorchQuery.SET, Reply.NONE, b -> {
            TorchStoreConnection.writeString(b, k);
            TorchStoreConnection.writeBytes(b, v);
        }).then(check(c, "set", List.of(k)))).then();
    }

    /** A CHECK of {@code wireKeys} on {@code c}: whether every one is set. */
    static Mono<Boolean> check(TorchStoreConnection c, String op, List<String> wireKeys) {
        return c.call(op, TorchQuery.CHECK, Reply.BYTE, b -> writeKeys(b, wireKeys))
                .map(r -> ((Integer) r) == TorchStoreConnection.READY);
    }

    private Mono<byte[]> getNow(String op, TorchStoreConnection c, String wireKey) {
        return c.call(op, TorchQuery.GET, Reply.BYTES, b -> TorchStoreConnection.writeString(b, wireKey))
                .map(byte[].class::cast);
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        checkTimeout(timeout);
        String k = wire(key);
        return main.flatMap(c -> check(c, "get", List.of(k)).flatMap(ready -> {
            if (ready) {
                return getNow("get", c, k);
            }
            if (timeout.isZero()) {
                return Mono.error(new StoreTimeoutException("get", List.of(key), timeout, server()));
            }
            return waits.waitFor("get", List.of(k), timeout).then(Mono.defer(() -> main.flatMap(m -> getNow("get", m, k))))
                    .onErrorMap(TimeoutException.class,
                            e -> new StoreTimeoutException("get", List.of(key), timeout, server()));
        }));
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return await("await", keys, timeout);
    }

    /** {@link #await(List, Duration)} for {@code op}, which its timeout names. */
    private Mono<Void> await(String op, List<String> keys, Duration timeout) {
        checkTimeout(timeout);
        List<String> userKeys = List.copyOf(keys);
        if (userKeys.isEmpty()) {
            return Mono.empty();
        }
        List<String> wireKeys = userKeys.stream().map(TorchTcpStore::wire).toList();
        return main.flatMap(c -> check(c, op, wireKeys)).flatMap(ready -> {
            if (ready) {
                return Mono.<Void>empty();
            }
            Mono<Void> waited = timeout.isZero() ? Mono.error(new TimeoutException()) : waits.waitFor(op, wireKeys, timeout);
            return waited.onErrorResume(TimeoutException.class, e -> missing(userKeys)
                    .flatMap(m -> Mono.error(new StoreTimeoutException(op, m, timeout, server()))));
        });
    }

    private Mono<List<String>> missing(List<String> userKeys) {
        return Flux.fromIterable(userKeys)
                .concatMap(k -> main.flatMap(c -> check(c, "await", List.of(wire(k)))).filter(r -> !r).map(r -> k))
                .collectList();
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        List<String> wireKeys = keys.stream().map(TorchTcpStore::wire).toList();
        return main.flatMap(c -> check(c, "check", wireKeys));
    }

    /**
     * {@inheritDoc} torch's server closes the connection of an add on a key whose value is not a
     * decimal integer (its parse throws), failing the calls in flight on it; the error says so, and
     * the next call connects again.
     */
    @Override
    public Mono<Long> add(String key, long delta) {
        String k = wire(key);
        return call("add", TorchQuery.ADD, Reply.INT64, b -> {
            TorchStoreConnection.writeString(b, k);
            b.writeLongLE(delta);
        }).map(Long.class::cast).onErrorMap(e -> e instanceof IllegalStateException && !closed
                && String.valueOf(e.getMessage()).endsWith(": connection closed"), e -> new IllegalStateException(
                "add at torch TCPStore " + server() + ": the server closed the connection: either '" + key
                        + "' holds a value that is not a decimal integer (torch's server closes the connection of "
                        + "such an add) or the server is gone", e));
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        String k = wire(key);
        if (Math.max(expected.length, desired.length) > MAX_VALUE_SIZE) {
            return tooLarge("compareSet", key, Math.max(expected.length, desired.length));
        }
        byte[] e = expected.clone();
        byte[] d = desired.clone();
        return call("compareSet", TorchQuery.COMPARE_SET, Reply.BYTES, b -> {
            TorchStoreConnection.writeString(b, k);
            TorchStoreConnection.writeBytes(b, e);
            TorchStoreConnection.writeBytes(b, d);
        }).map(byte[].class::cast);
    }

    @Override
    public Mono<Boolean> delete(String key) {
        String k = wire(key);
        return call("delete", TorchQuery.DELETE_KEY, Reply.INT64, b -> TorchStoreConnection.writeString(b, k))
                .map(n -> ((Long) n) == 1L);
    }

    @Override
    public Mono<Long> numKeys() {
        return call("numKeys", TorchQuery.GETNUMKEYS, Reply.INT64, b -> { }).map(Long.class::cast);
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        List<String> userKeys = List.copyOf(keys);
        if (userKeys.isEmpty()) {
            return Mono.just(List.of());
        }
        List<String> wireKeys = userKeys.stream().map(TorchTcpStore::wire).toList();
        return await("multiGet", userKeys, timeout).then(main.flatMap(c -> {
            if (!TorchQuery.MULTI_GET.in(c.protocol())) {
                return Flux.fromIterable(wireKeys).concatMap(k -> getNow("multiGet", c, k)).collectList();
            }
            return c.call("multiGet", TorchQuery.MULTI_GET, Reply.BYTES_LIST, wireKeys.size(),
                    b -> writeKeys(b, wireKeys)).map(TorchTcpStore::values);
        }));
    }

    @SuppressWarnings("unchecked")
    private static List<byte[]> values(Object reply) {
        return (List<byte[]>) reply;
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            if (e.getValue().length > MAX_VALUE_SIZE) {
                return tooLarge("multiSet", e.getKey(), e.getValue().length);
            }
        }
        List<Map.Entry<String, byte[]>> copy = new ArrayList<>();
        entries.forEach((k, v) -> copy.add(Map.entry(wire(k), v.clone())));
        if (copy.isEmpty()) {
            return Mono.empty();
        }
        return main.flatMap(c -> {
            if (!TorchQuery.MULTI_SET.in(c.protocol())) {
                return Flux.fromIterable(copy).concatMap(e -> c.call("multiSet", TorchQuery.SET, Reply.NONE, b -> {
                    TorchStoreConnection.writeString(b, e.getKey());
                    TorchStoreConnection.writeBytes(b, e.getValue());
                })).then(check(c, "multiSet", List.of(copy.get(copy.size() - 1).getKey())));
            }
            // MULTI_SET has no reply; a CHECK behind it answers once the server applied it
            return c.call("multiSet", TorchQuery.MULTI_SET, Reply.NONE, b -> {
                b.writeLongLE(copy.size());
                for (Map.Entry<String, byte[]> e : copy) {
                    TorchStoreConnection.writeString(b, e.getKey());
                    TorchStoreConnection.writeBytes(b, e.getValue());
                }
            }).then(check(c, "multiSet", List.of(copy.get(0).getKey())));
        }).then();
    }

    /**
     * torch 2.x's APPEND (no reply), then a GET on the same connection for the new length (appends
     * of other clients in between are counted too). Over 1.x it is not offered: torch 1.x has no
     * APPEND, and composing it of {@code compare_set} cannot tell two concurrent appends of the same
     * bytes apart (both would see their value and count once).
     *
     * @param key   the key
     * @param value the bytes to append
     * @return a {@code Mono} of the value's length after the append; over 1.x failing with
     *         {@link UnsupportedOperationException}
     */
    @Override
    public Mono<Long> append(String key, byte[] value) {
        String k = wire(key);
        byte[] v = value.clone();
        return main.flatMap(c -> {
            if (!TorchQuery.APPEND.in(c.protocol())) {
                return Mono.error(new UnsupportedOperationException("append of '" + key + "' at torch TCPStore "
                        + server() + ": the torch 1.x store protocol has no APPEND"));
            }
            return c.call("append", TorchQuery.APPEND, Reply.NONE, b -> {
                TorchStoreConnection.writeString(b, k);
                TorchStoreConnection.writeBytes(b, v);
            }).then(getNow("append", c, k)).map(b -> (long) b.length);
        });
    }

    /** torch's key list: count:int64 LE, then each key as a string. */
    static void writeKeys(ByteBuf b, List<String> wireKeys) {
        b.writeLongLE(wireKeys.size());
        for (String k : wireKeys) {
            TorchStoreConnection.writeString(b, k);
        }
    }

    private static void checkTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative timeout " + timeout);
        }
    }

    @Override
    public void close() {
        closed = true;
        TorchStoreConnection c = current.getAndSet(null);
        if (c != null) {
            c.close();
        }
        waits.closeAll();
    }
}
