package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;
import reactor.util.retry.Retry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The TCP store client, as c10d's {@code TCPStore} for a non-master rank: a {@link Store} over one
 * Reactor Netty connection to a {@link TcpStoreServer}.
 *
 * <p>{@link #connect} is cold: on subscription it connects, retrying refused or failed connections
 * with exponential backoff (20 ms doubling to 1 s) until the options' timeout, then runs the
 * handshake (HMAC challenge-response when a secret is set; TLS when an SslContext is set), and
 * emits the connected store. A rejected secret is not retried.
 *
 * <p>Every call is a cold {@link Mono}: on subscription one request frame, with a fresh request id,
 * is written from the connection's event loop, so one connection carries many requests at once
 * (pipelined) and their responses may come back in any order. Values are emitted on the event loop.
 * Waiting calls ({@code get}, {@code await}, {@code multiGet}) carry their timeout to the server,
 * which answers with the keys still missing when it runs out ({@link StoreTimeoutException});
 * cancelling one sends {@code CANCEL} so the server drops the waiter. If the connection is lost,
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

    private static final Logger LOG = LoggerFactory.getLogger(TcpStore.class);
    /** Extra time the client grants the server to report a timeout before giving up itself. */
    static final Duration LOCAL_GRACE = Duration.ofSeconds(5);

    private final TcpStoreOptions options;
    private final Connection connection;
    private final Channel channel;
    private final String server;
    private final Sinks.One<TcpStore> ready = Sinks.one();
    private final Metrics metrics;
    /** Event-loop only. */
    private final Map<Integer, Pending<?>> pending = new HashMap<>();
    /** Event-loop only. */
    private int nextId;
    /** Event-loop only: 0 hello expected, 1 ready expected, 2 serving, 3 closed. */
    private int state;
    private byte[] clientNonce;
    private volatile Throwable closedBy;

    private TcpStore(TcpStoreOptions options, Connection connection, Metrics metrics) {
        this.options = options;
        this.connection = connection;
        this.channel = connection.channel();
        this.server = options.host() + ":" + options.port();
        this.metrics = metrics;
    }

    /**
     * Connects to the server of {@code options}: emits the store once connected and (if configured)
     * authenticated; fails after {@link TcpStoreOptions#timeout()} naming the server and the last
     * connection error, or at once with {@link StoreAuthenticationException}.
     */
    public static Mono<TcpStore> connect(TcpStoreOptions options) {
        Objects.requireNonNull(options, "options");
        return Mono.defer(() -> {
            if (options.authenticated()) {
                StoreAuth.init();
            }
            Metrics metrics = Metrics.of(options.meterRegistry());
            AtomicReference<Throwable> last = new AtomicReference<>();
            TcpClient client = TcpClient.newConnection()
                    .doOnConnected(c -> {
                        c.addHandlerLast(StoreFrameDecoder.NAME, new StoreFrameDecoder(options.maxFrameSize()));
                        c.addHandlerLast("rc.store.flush", new FlushConsolidationHandler(256, true));
                    });
            if (options.loops() != null) {
                client = client.runOn(options.loops());
            }
            TcpClient tcp = client.host(options.host()).port(options.port()).option(ChannelOption.TCP_NODELAY, true);
            if (options.ssl() != null) {
                tcp = tcp.secure(spec -> spec.sslContext(options.ssl()));
            }
            TcpClient viaTcp = tcp;
            Mono<Connection> connection = Mono.defer(() -> viaTcp.connect().map(Connection.class::cast));
            if (options.ssl() == null && StoreLocalSocket.enabled() && StoreLocalSocket.isLoopback(options.host())) {
                // a server on this host also listens on a Unix domain socket: try it first, TCP if it is not there
                TcpClient viaLocal = client.remoteAddress(() -> java.net.UnixDomainSocketAddress.of(
                        StoreLocalSocket.path(options.port())));
                Mono<Connection> tcpOnly = connection;
                connection = Mono.defer(() -> viaLocal.connect().map(Connection.class::cast)).onErrorResume(e -> tcpOnly);
            }
            Mono<TcpStore> attempt = connection.flatMap(conn -> new TcpStore(options, conn, metrics).start());
            long timeoutMs = options.timeout().toMillis();
            return attempt
                    .doOnError(last::set)
                    .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(20))
                            .maxBackoff(Duration.ofSeconds(1))
                            .filter(e -> !(e instanceof StoreAuthenticationException)))
                    .timeout(options.timeout())
                    .onErrorMap(TimeoutException.class, e -> new IllegalStateException("connect: no TCP store at "
                            + options.host() + ":" + options.port() + " after " + timeoutMs + " ms"
                            + (last.get() == null ? "" : "; last error: " + last.get()), last.get()));
        });
    }

    /** Subscribes the inbound side and emits this store when the handshake is done. */
    private Mono<TcpStore> start() {
        connection.inbound().receive().subscribe(this::onFrame, this::onInboundError, () -> onClosed(null));
        return ready.asMono().doOnError(e -> connection.dispose());
    }

    /** The options this store was connected with. */
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
            return handOver("set", (a, id) -> StoreFrameCodec.setNoReply(a, id, key, copy));
        }
        return this.<Void>call("set", (a, id) -> StoreFrameCodec.set(a, id, key, copy), r -> null, null, null);
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        Objects.requireNonNull(key, "key");
        long ms = waitMillis(timeout);
        return call("get", (a, id) -> StoreFrameCodec.get(a, id, key, ms), r -> value(r), List.of(key), timeout);
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        Objects.requireNonNull(key, "key");
        return call("add", (a, id) -> StoreFrameCodec.add(a, id, key, delta), TcpStore::longValue, null, null);
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        Objects.requireNonNull(key, "key");
        byte[] e = expected.clone();
        byte[] d = desired.clone();
        return call("compareSet", (a, id) -> StoreFrameCodec.compareSet(a, id, key, e, d), TcpStore::value, null, null);
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        List<String> copy = List.copyOf(keys);
        long ms = waitMillis(timeout);
        return this.<Void>call("await", (a, id) -> StoreFrameCodec.await(a, id, copy, ms), r -> null, copy, timeout);
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        return call("check", (a, id) -> StoreFrameCodec.check(a, id, copy), TcpStore::boolValue, null, null);
    }

    @Override
    public Mono<Boolean> delete(String key) {
        Objects.requireNonNull(key, "key");
        return call("delete", (a, id) -> StoreFrameCodec.delete(a, id, key), TcpStore::boolValue, null, null);
    }

    @Override
    public Mono<Long> numKeys() {
        return call("numKeys", StoreFrameCodec::numKeys, TcpStore::longValue, null, null);
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        Duration timeout = options.timeout();
        long ms = timeout.toMillis();
        return call("multiGet", (a, id) -> StoreFrameCodec.multiGet(a, id, copy, ms), TcpStore::values, copy, timeout);
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        Map<String, byte[]> copy = new LinkedHashMap<>();
        entries.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value").clone()));
        return this.<Void>call("multiSet", (a, id) -> StoreFrameCodec.multiSet(a, id, copy), r -> null, null, null);
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        byte[] copy = value.clone();
        return call("append", (a, id) -> StoreFrameCodec.append(a, id, key, copy), TcpStore::longValue, null, null);
    }

    /**
     * Closes the connection (without blocking); pending calls fail with
     * {@link IllegalStateException}, later ones too.
     */
    @Override
    public void close() {
        if (closedBy == null) {
            closedBy = new IllegalStateException("TCP store client for " + server + " closed");
        }
        connection.dispose();
    }

    /**
     * Whether this client reached its server through the server's Unix domain socket (a server on
     * this host, see {@link TcpStoreServer#localSocket()}) rather than TCP.
     */
    public boolean isLocalSocket() {
        return channel.remoteAddress() instanceof java.net.UnixDomainSocketAddress;
    }

    /** Completes when the connection has closed. */
    public Mono<Void> onClose() {
        return connection.onDispose();
    }

    @Override
    public String toString() {
        return "TcpStore[" + server + (isLocalSocket() ? " via its local socket" : "") + "]";
    }

    // --- plumbing -------------------------------------------------------------------------------

    private static long waitMillis(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return Math.max(1, timeout.toMillis());
    }

    @FunctionalInterface
    private interface RequestEncoder {
        ByteBuf encode(ByteBufAllocator alloc, int id);
    }

    /**
     * One request/response. {@code waitKeys}/{@code wait} are set for waiting calls: the client
     * then also gives up by itself {@link #LOCAL_GRACE} after the server should have answered.
     */
    private <T> Mono<T> call(String op, RequestEncoder encoder, Function<StoreFrameCodec.Response, T> decoder,
                             List<String> waitKeys, Duration wait) {
        return Mono.create(sink -> onEventLoop(op, sink, () -> send(op, encoder, decoder, sink, waitKeys, wait)));
    }

    /** Runs {@code task} on the connection's event loop (now when already there); fails {@code sink} if the loop is gone. */
    private void onEventLoop(String op, MonoSink<?> sink, Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            channel.eventLoop().execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            sink.error(new IllegalStateException(op + ": TCP store client for " + server + " is closed"));
        }
    }

    /**
     * A request without a response: completes once the frame is queued on the connection, or, when
     * the outbound buffer is above its high-water mark, once the frame is written (backpressure).
     */
    private Mono<Void> handOver(String op, RequestEncoder encoder) {
        return Mono.create(sink -> onEventLoop(op, sink, () -> sendNoReply(op, encoder, sink)));
    }

    private void sendNoReply(String op, RequestEncoder encoder, MonoSink<Void> sink) {
        ByteBuf frame = frame(op, encoder, sink);
        if (frame == null) {
            return;
        }
        long start = System.nanoTime();
        OpMeters meters = metrics.of(op);
        if (channel.isWritable()) {
            channel.writeAndFlush(frame, channel.voidPromise());
            meters.ok.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            sink.success();
            return;
        }
        channel.writeAndFlush(frame).addListener(f -> {
            long nanos = System.nanoTime() - start;
            if (f.isSuccess()) {
                meters.ok.record(nanos, TimeUnit.NANOSECONDS);
                sink.success();
            } else {
                meters.error.record(nanos, TimeUnit.NANOSECONDS);
                sink.error(new IllegalStateException(op + ": TCP store connection to " + server + " lost: "
                        + f.cause(), f.cause()));
            }
        });
    }

    /** The request frame with a fresh id, or null after failing {@code sink} (closed, too large). */
    private ByteBuf frame(String op, RequestEncoder encoder, MonoSink<?> sink) {
        if (state != 2) {
            Throwable cause = closedBy;
            sink.error(new IllegalStateException(op + ": TCP store connection to " + server + " is closed"
                    + (cause == null ? "" : ": " + cause.getMessage()), cause));
            return null;
        }
        int id = ++nextId;
        if (id == 0) {
            id = ++nextId;
        }
        ByteBuf frame = encoder.encode(channel.alloc(), id);
        if (frame.readableBytes() - StoreFrameCodec.LENGTH_FIELD > options.maxFrameSize()) {
            int size = frame.readableBytes();
            frame.release();
            sink.error(new IllegalArgumentException(op + ": request of " + size + " bytes exceeds the frame limit of "
                    + options.maxFrameSize() + " bytes"));
            return null;
        }
        return frame;
    }

    private <T> void send(String op, RequestEncoder encoder, Function<StoreFrameCodec.Response, T> decoder,
                          MonoSink<T> sink, List<String> waitKeys, Duration wait) {
        boolean waits = waitKeys != null;
        ByteBuf frame = frame(op, encoder, sink);
        if (frame == null) {
            return;
        }
        int id = nextId;
        Pending<T> p = new Pending<>(op, sink, decoder, System.nanoTime(), metrics.of(op));
        pending.put(id, p);
        int requestId = id;
        sink.onCancel(() -> cancel(requestId, p, waits));
        if (waits) {
            // the server answers a wait that runs out; this timer (on the event loop, no thread) is for a server that does not
            p.timer = channel.eventLoop().schedule(() -> localTimeout(requestId, p, waitKeys, wait),
                    wait.plus(LOCAL_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        }
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    private void localTimeout(int id, Pending<?> p, List<String> keys, Duration wait) {
        if (pending.get(id) == p) {
            pending.remove(id);
            if (state == 2 && channel.isActive()) {
                channel.writeAndFlush(StoreFrameCodec.cancel(channel.alloc(), id), channel.voidPromise());
            }
            p.sink.error(new StoreTimeoutException(p.op, keys, wait));
        }
    }

    private void cancel(int id, Pending<?> p, boolean waits) {
        if (!channel.eventLoop().inEventLoop()) {
            channel.eventLoop().execute(() -> cancel(id, p, waits));
            return;
        }
        if (pending.get(id) == p) {
            pending.remove(id);
            p.cancelTimer();
            p.meters.cancelled.increment();
            if (waits && state == 2 && channel.isActive()) {
                channel.writeAndFlush(StoreFrameCodec.cancel(channel.alloc(), id), channel.voidPromise());
            }
        }
    }

    private void onFrame(ByteBuf body) {
        switch (state) {
            case 0 -> onHello(StoreFrameCodec.decodeHello(body));
            case 1 -> onReady(body);
            case 2 -> onResponse(StoreFrameCodec.decodeResponse(body));
            default -> { }
        }
    }

    private void onHello(StoreFrameCodec.Hello hello) {
        if (hello.version() != StoreFrameCodec.VERSION) {
            fail(new StoreProtocolException("server " + server + " speaks protocol version " + hello.version()
                    + ", this client " + StoreFrameCodec.VERSION));
            return;
        }
        byte[] secret = options.secret();
        if (hello.authRequired() && secret == null) {
            fail(new StoreAuthenticationException("connect: the TCP store at " + server
                    + " requires a shared secret (set " + StoreAuth.SECRET_ENV + ")"));
        } else if (!hello.authRequired() && secret != null) {
            fail(new StoreAuthenticationException("connect: a secret is configured but the TCP store at " + server
                    + " does not authenticate clients"));
        } else if (secret != null) {
            clientNonce = StoreAuth.nonce();
            state = 1;
            channel.writeAndFlush(StoreFrameCodec.auth(channel.alloc(), StoreAuth.hmac(secret, hello.nonce()), clientNonce),
                    channel.voidPromise());
        } else {
            state = 2;
            ready.tryEmitValue(this);
        }
    }

    private void onReady(ByteBuf body) {
        if (StoreFrameCodec.opcode(body) == StoreOpcode.ERROR) {
            StoreFrameCodec.Response r = StoreFrameCodec.decodeResponse(body);
            fail(new StoreAuthenticationException("connect: the TCP store at " + server + " rejected this client: "
                    + ((StoreFrameCodec.Error) r).message()));
            return;
        }
        byte[] proof = StoreFrameCodec.decodeReady(body);
        if (!StoreAuth.verify(options.secret(), clientNonce, proof)) {
            fail(new StoreAuthenticationException("connect: the TCP store at " + server
                    + " could not prove it knows the secret"));
            return;
        }
        state = 2;
        ready.tryEmitValue(this);
    }

    private void onResponse(StoreFrameCodec.Response r) {
        if (r instanceof StoreFrameCodec.Error e && e.code() == StoreFrameCodec.E_CLOSED && state == 2) {
            // the server's store is closed: it serves nothing more, so later calls fail here at once (an
            // unacknowledged set would otherwise be queued on a connection about to close, and lost)
            state = 3;
            closedBy = new IllegalStateException("the TCP store at " + server + " is closed: " + e.message());
        }
        Pending<?> p = pending.remove(r.id());
        if (p != null) {
            p.cancelTimer();
            p.complete(r, server);
        } else if (r instanceof StoreFrameCodec.Error e && "set".equals(e.op())) {
            // the failure of a request sent without waiting for an answer (an unacknowledged set)
            LOG.warn("TCP store at {}: {} (request {}) failed: {}", server, e.op(), e.id(), e.message());
        }
    }

    private void fail(Throwable e) {
        state = 3;
        closedBy = e;
        ready.tryEmitError(e);
        connection.dispose();
    }

    private void onInboundError(Throwable e) {
        Throwable cause = e instanceof DecoderException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof StoreProtocolException) {
            LOG.error("TCP store client: closing connection to {}: {}", server, cause.getMessage());
        }
        onClosed(cause);
        connection.dispose();
    }

    /** Runs on the event loop when the inbound side ends: fails the handshake and every pending call. */
    private void onClosed(Throwable cause) {
        if (closedBy == null) {
            closedBy = cause != null ? cause : new IllegalStateException("the server closed the connection");
        }
        Throwable why = closedBy;
        state = 3;
        ready.tryEmitError(why instanceof StoreAuthenticationException ? why
                : new IllegalStateException("connect: TCP store at " + server + " closed the connection during the handshake: "
                + why.getMessage(), why));
        List<Pending<?>> all = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending<?> p : all) {
            p.cancelTimer();
            p.sink.error(new IllegalStateException(p.op + ": TCP store connection to " + server + " lost: "
                    + why.getMessage(), why));
        }
    }

    // --- responses ------------------------------------------------------------------------------

    private static byte[] value(StoreFrameCodec.Response r) {
        return ((StoreFrameCodec.Value) r).value();
    }

    private static Long longValue(StoreFrameCodec.Response r) {
        return ((StoreFrameCodec.LongValue) r).value();
    }

    private static Boolean boolValue(StoreFrameCodec.Response r) {
        return ((StoreFrameCodec.BoolValue) r).value();
    }

    private static List<byte[]> values(StoreFrameCodec.Response r) {
        return ((StoreFrameCodec.Values) r).values();
    }

    private static final class Pending<T> {
        final String op;
        final MonoSink<T> sink;
        final Function<StoreFrameCodec.Response, T> decoder;
        final long startNanos;
        final OpMeters meters;
        ScheduledFuture<?> timer;

        Pending(String op, MonoSink<T> sink, Function<StoreFrameCodec.Response, T> decoder, long startNanos,
                OpMeters meters) {
            this.op = op;
            this.sink = sink;
            this.decoder = decoder;
            this.startNanos = startNanos;
            this.meters = meters;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }

        void complete(StoreFrameCodec.Response r, String server) {
            long nanos = System.nanoTime() - startNanos;
            if (r instanceof StoreFrameCodec.Error e) {
                meters.error.record(nanos, TimeUnit.NANOSECONDS);
                sink.error(toException(e, server));
                return;
            }
            T value;
            try {
                value = decoder.apply(r);
            } catch (ClassCastException wrongType) {
                meters.error.record(nanos, TimeUnit.NANOSECONDS);
                sink.error(new StoreProtocolException(op + ": TCP store at " + server + " answered with "
                        + r.getClass().getSimpleName()));
                return;
            }
            meters.ok.record(nanos, TimeUnit.NANOSECONDS);
            if (value == null) {
                sink.success();
            } else {
                sink.success(value);
            }
        }

        private RuntimeException toException(StoreFrameCodec.Error e, String server) {
            return switch (e.code()) {
                case StoreFrameCodec.E_TIMEOUT -> new StoreTimeoutException(op, e.missing(), Duration.ofMillis(e.waitedMs()));
                case StoreFrameCodec.E_BAD_REQUEST -> new IllegalArgumentException(e.message());
                case StoreFrameCodec.E_AUTH -> new StoreAuthenticationException(e.message());
                case StoreFrameCodec.E_CLOSED -> new IllegalStateException(op + ": TCP store at " + server + ": " + e.message());
                default -> new IllegalStateException(op + ": TCP store at " + server + " failed: " + e.message());
            };
        }
    }

    /** The meters of one op. */
    record OpMeters(Timer ok, Timer error, Counter cancelled) { }

    /** Timers per op and outcome, made once per op and registry. */
    static final class Metrics {
        private static final Map<MeterRegistry, Metrics> BY_REGISTRY = new ConcurrentHashMap<>();
        private final MeterRegistry registry;
        private final Map<String, OpMeters> byOp = new ConcurrentHashMap<>();

        private Metrics(MeterRegistry registry) {
            this.registry = registry;
        }

        static Metrics of(MeterRegistry registry) {
            return BY_REGISTRY.computeIfAbsent(registry, Metrics::new);
        }

        OpMeters of(String op) {
            OpMeters m = byOp.get(op);
            return m != null ? m : byOp.computeIfAbsent(op, k -> new OpMeters(timer(op, "ok"), timer(op, "error"),
                    Counter.builder("rc.store.client.cancelled").tag("op", op).register(registry)));
        }

        private Timer timer(String op, String outcome) {
            return Timer.builder("rc.store.client.op").description("TCP store request round trips")
                    .tag("op", op).tag("outcome", outcome).register(registry);
        }
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
