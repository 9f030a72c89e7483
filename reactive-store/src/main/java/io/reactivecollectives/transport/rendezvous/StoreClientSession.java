package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.codec.DecoderException;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import io.reactivecollectives.store.wire.HandshakeMac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The protocol side of one {@link TcpStore} connection, on its event loop: the handshake, request
 * ids, the calls awaiting responses and their deadlines, and the connection's end.
 *
 * <p>Deadlines: a call that does not wait for keys must be answered within the options'
 * {@link TcpStoreOptions#operationTimeout()}. Those calls all have the same deadline length, so they
 * expire in the order they were sent: they are queued in that order and one timer per connection
 * (not one per call) fires at the oldest one's deadline. A waiting call has a timer of its own at its
 * wait plus a margin ({@link #waitMargin()}): the server answers a wait that runs out, so that timer
 * only fires when the server does not answer at all.
 */
final class StoreClientSession {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStore.class);

    /** How the request frame of a call is written, given its request id. */
    @FunctionalInterface
    interface RequestEncoder {
        ByteBuf encode(ByteBufAllocator alloc, int id);
    }

    private final TcpStoreOptions options;
    private final Connection connection;
    final Channel channel;
    final String server;
    private final Sinks.One<StoreClientSession> ready = Sinks.one();
    private final StoreClientMetrics metrics;
    private final long operationNanos;
    /** Event-loop only. */
    private final Map<Integer, StorePendingCall<?>> pending = new HashMap<>();
    /** Event-loop only: calls that do not wait, in the order sent (so in deadline order). */
    private final ArrayDeque<StorePendingCall<?>> byDeadline = new ArrayDeque<>();
    /** Event-loop only: fires at the deadline of {@link #byDeadline}'s head. */
    private ScheduledFuture<?> watchdog;
    /** Event-loop only. */
    private int nextId;
    /** Event-loop only: 0 hello expected, 1 ready expected, 2 serving, 3 closed. */
    private int state;
    private byte[] clientNonce;
    volatile Throwable closedBy;

    StoreClientSession(TcpStoreOptions options, Connection connection, StoreClientMetrics metrics) {
        this.options = options;
        this.connection = connection;
        this.channel = connection.channel();
        this.server = options.host() + ":" + options.port();
        this.metrics = metrics;
        this.operationNanos = options.operationTimeout().toNanos();
    }

    /** Subscribes the inbound side and emits this session when the handshake is done. */
    Mono<StoreClientSession> start() {
        connection.inbound().receive().subscribe(this::onFrame, this::onInboundError, () -> onClosed(null));
        return ready.asMono().doOnError(e -> connection.dispose());
    }

    Connection connection() {
        return connection;
    }

    /** How long a waiting call may go unanswered after its wait: the operation timeout, at most {@link TcpStore#LOCAL_GRACE}. */
    Duration waitMargin() {
        Duration op = options.operationTimeout();
        return op.compareTo(TcpStore.LOCAL_GRACE) < 0 ? op : TcpStore.LOCAL_GRACE;
    }

    // --- calls ---------------------------------------------------------------------------------

    /**
     * One request/response on {@code keys}. {@code wait} is set for calls that wait for keys: then
     * the client also gives up by itself {@link #waitMargin()} after the server should have answered.
     */
    <T> Mono<T> call(String op, List<String> keys, RequestEncoder encoder, Function<StoreResponseCodec.Response, T> decoder,
                     Duration wait) {
        return Mono.create(sink -> onEventLoop(op, sink, () -> send(op, keys, encoder, decoder, sink, wait)));
    }

    /**
     * A request without a response: completes once the frame is queued on the connection, or, when
     * the outbound buffer is above its high-water mark, once the frame is written (backpressure), or
     * fails when it could not be written within the operation timeout.
     */
    Mono<Void> handOver(String op, List<String> keys, RequestEncoder encoder) {
        return Mono.create(sink -> onEventLoop(op, sink, () -> sendNoReply(op, keys, encoder, sink)));
    }

    /** Runs {@code task} on the connection's event loop (now when already there); fails {@code sink} if the loop is gone. */
    private void onEventLoop(String op, MonoSink<?> sink, Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            sink.error(new IllegalStateException(op + ": TCP store client for " + server + " is closed"));
        }
    }

    private void sendNoReply(String op, List<String> keys, RequestEncoder encoder, MonoSink<Void> sink) {
        ByteBuf frame = frame(op, encoder, sink);
        if (frame == null) {
            return;
        }
        long start = System.nanoTime();
        StoreClientMetrics.OpMeters meters = metrics.of(op);
        if (channel.isWritable()) {
            channel.writeAndFlush(frame, channel.voidPromise());
            meters.ok().record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            sink.success();
            return;
        }
        StorePendingCall<Void> p = new StorePendingCall<>(nextId, op, keys, false, sink, r -> null, meters);
        // a server that reads nothing (stopped) leaves the buffer full: the write gets the operation timeout too
        p.timer = channel.eventLoop().schedule(() -> {
            if (!p.finished) {
                p.fail(StoreTimeoutException.noReply(op, keys, server, options.operationTimeout(),
                        "the request could not be written: the server reads nothing"));
            }
        }, operationNanos, TimeUnit.NANOSECONDS);
        channel.writeAndFlush(frame).addListener(f -> {
            if (p.finished) {
                return;
            }
            if (f.isSuccess()) {
                p.finish();
                meters.ok().record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                sink.success();
            } else {
                p.fail(new IllegalStateException(op + ": TCP store connection to " + server + " lost: "
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

    private <T> void send(String op, List<String> keys, RequestEncoder encoder,
                          Function<StoreResponseCodec.Response, T> decoder, MonoSink<T> sink, Duration wait) {
        ByteBuf frame = frame(op, encoder, sink);
        if (frame == null) {
            return;
        }
        boolean waits = wait != null;
        StorePendingCall<T> p = new StorePendingCall<>(nextId, op, keys, waits, sink, decoder, metrics.of(op));
        pending.put(p.id, p);
        sink.onCancel(() -> cancel(p));
        if (waits) {
            Duration deadline = wait.plus(waitMargin());
            p.timer = channel.eventLoop().schedule(() -> expire(p, deadline, "the call waits up to "
                    + wait.toMillis() + " ms for its keys"), deadline.toNanos(), TimeUnit.NANOSECONDS);
        } else {
            p.deadlineNanos = p.startNanos + operationNanos;
            byDeadline.add(p);
            if (watchdog == null) {
                watchdog = channel.eventLoop().schedule(this::sweep, operationNanos, TimeUnit.NANOSECONDS);
            }
        }
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    /** The watchdog: fails the calls past their deadline, then waits for the next one's. */
    private void sweep() {
        watchdog = null;
        long now = System.nanoTime();
        StorePendingCall<?> p;
        while ((p = byDeadline.peek()) != null) {
            if (p.finished) {
                byDeadline.poll();
            } else if (p.deadlineNanos - now <= 0) {
                byDeadline.poll();
                expire(p, options.operationTimeout(), null);
            } else {
                break;
            }
        }
        if (p != null && state != 3) {
            watchdog = channel.eventLoop().schedule(this::sweep, p.deadlineNanos - now, TimeUnit.NANOSECONDS);
        }
    }

    /** Fails a call the server did not answer in time (a waiting one is also cancelled on the server). */
    private void expire(StorePendingCall<?> p, Duration deadline, String detail) {
        if (pending.get(p.id) != p) {
            return;
        }
        pending.remove(p.id);
        if (p.waits && state == 2 && channel.isActive()) {
            channel.writeAndFlush(StoreFrameCodec.cancel(channel.alloc(), p.id), channel.voidPromise());
        }
        p.fail(StoreTimeoutException.noReply(p.op, p.keys, server, deadline, detail));
    }

    private void cancel(StorePendingCall<?> p) {
        if (!channel.eventLoop().inEventLoop()) {
            channel.eventLoop().execute(() -> cancel(p));
            return;
        }
        if (pending.get(p.id) == p) {
            pending.remove(p.id);
            p.finish();
            trim();
            p.meters.cancelled().increment();
            if (p.waits && state == 2 && channel.isActive()) {
                channel.writeAndFlush(StoreFrameCodec.cancel(channel.alloc(), p.id), channel.voidPromise());
            }
        }
    }

    /** Drops finished calls from the head of {@link #byDeadline} (answers mostly come in order). */
    private void trim() {
        StorePendingCall<?> head;
        while ((head = byDeadline.peek()) != null && head.finished) {
            byDeadline.poll();
        }
    }

    // --- inbound -------------------------------------------------------------------------------

    private void onFrame(ByteBuf body) {
        switch (state) {
            case 0 -> onHello(StoreHandshakeCodec.decodeHello(body));
            case 1 -> onReady(body);
            case 2 -> onResponse(StoreResponseCodec.decodeResponse(body));
            default -> { }
        }
    }

    private void onHello(StoreHandshakeCodec.Hello hello) {
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
            clientNonce = HandshakeMac.nonce(StoreAuth.NONCE_BYTES);
            state = 1;
            channel.writeAndFlush(StoreHandshakeCodec.auth(channel.alloc(), HandshakeMac.mac(secret, hello.nonce()), clientNonce),
                    channel.voidPromise());
        } else {
            // protocol 2: every client speaks first, so a connection that never does is closed by the server's
            // handshake timeout; without a secret the AUTH is empty and unanswered (no extra round trip)
            state = 2;
            channel.writeAndFlush(StoreHandshakeCodec.auth(channel.alloc(), new byte[0], new byte[0]), channel.voidPromise());
            ready.tryEmitValue(this);
        }
    }

    private void onReady(ByteBuf body) {
        if (StoreFrameCodec.opcode(body) == StoreOpcode.ERROR) {
            StoreResponseCodec.Response r = StoreResponseCodec.decodeResponse(body);
            fail(new StoreAuthenticationException("connect: the TCP store at " + server + " rejected this client: "
                    + ((StoreResponseCodec.Error) r).message()));
            return;
        }
        byte[] proof = StoreHandshakeCodec.decodeReady(body);
        if (!HandshakeMac.verify(options.secret(), clientNonce, proof)) {
            fail(new StoreAuthenticationException("connect: the TCP store at " + server
                    + " could not prove it knows the secret"));
            return;
        }
        state = 2;
        ready.tryEmitValue(this);
    }

    private void onResponse(StoreResponseCodec.Response r) {
        if (r instanceof StoreResponseCodec.Error e && r.id() == 0 && closedBy == null) {
            // no call's: the server says why it is about to close the connection (a frame over its limit)
            closedBy = new IllegalStateException("the TCP store at " + server + " said: " + e.message());
            return;
        }
        if (r instanceof StoreResponseCodec.Error e && e.code() == StoreFrameCodec.E_CLOSED && state == 2) {
            // the server's store is closed: it serves nothing more, so later calls fail here at once (an
            // unacknowledged set would otherwise be queued on a connection about to close, and lost)
            state = 3;
            closedBy = new IllegalStateException("the TCP store at " + server + " is closed: " + e.message());
        }
        StorePendingCall<?> p = pending.remove(r.id());
        if (p != null) {
            p.complete(r, server);
            trim();
        } else if (r instanceof StoreResponseCodec.Error e && "set".equals(e.op())) {
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
        if (watchdog != null) {
            watchdog.cancel(false);
            watchdog = null;
        }
        byDeadline.clear();
        List<StorePendingCall<?>> all = new ArrayList<>(pending.values());
        pending.clear();
        for (StorePendingCall<?> p : all) {
            p.finish();
            p.sink.error(new IllegalStateException(p.op + ": TCP store connection to " + server + " lost: "
                    + why.getMessage(), why));
        }
    }
}
