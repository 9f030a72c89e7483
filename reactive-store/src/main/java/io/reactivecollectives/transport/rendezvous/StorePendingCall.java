package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import reactor.core.publisher.MonoSink;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One request of a {@link TcpStore} client awaiting its response: how to decode the answer, where
 * to emit it, its meters and its deadline. Touched on the connection's event loop only.
 */
final class StorePendingCall<T> {

    final int id;
    final String op;
    /** The keys the call is about (for error messages). */
    final List<String> keys;
    /** Whether the call waits for keys (get, await, multiGet). */
    final boolean waits;
    final MonoSink<T> sink;
    final Function<StoreResponseCodec.Response, T> decoder;
    final long startNanos;
    final StoreClientMetrics.OpMeters meters;
    /** When a call that does not wait must have been answered ({@link System#nanoTime()}). */
    long deadlineNanos;
    /** A waiting call's own timer. */
    ScheduledFuture<?> timer;
    /** Answered, failed or cancelled. */
    boolean finished;

    StorePendingCall(int id, String op, List<String> keys, boolean waits, MonoSink<T> sink,
                     Function<StoreResponseCodec.Response, T> decoder, StoreClientMetrics.OpMeters meters) {
        this.id = id;
        this.op = op;
        this.keys = keys;
        this.waits = waits;
        this.sink = sink;
        this.decoder = decoder;
        this.startNanos = System.nanoTime();
        this.meters = meters;
    }

    /** Marks the call finished and stops its timer. */
    void finish() {
        finished = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** Fails the call with {@code e}, timed as an error. */
    void fail(Throwable e) {
        finish();
        meters.error().record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        sink.error(e);
    }

    /** Completes the call with the server's response {@code r}. */
    void complete(StoreResponseCodec.Response r, String server) {
        finish();
        long nanos = System.nanoTime() - startNanos;
        if (r instanceof StoreResponseCodec.Error e) {
            meters.error().record(nanos, TimeUnit.NANOSECONDS);
            sink.error(toException(e, server));
            return;
        }
        T value;
        try {
            value = decoder.apply(r);
        } catch (ClassCastException wrongType) {
            meters.error().record(nanos, TimeUnit.NANOSECONDS);
            sink.error(new StoreProtocolException(op + ": TCP store at " + server + " answered with "
                    + r.getClass().getSimpleName()));
            return;
        }
        meters.ok().record(nanos, TimeUnit.NANOSECONDS);
        if (value == null) {
            sink.success();
        } else {
            sink.success(value);
        }
    }

    private RuntimeException toException(StoreResponseCodec.Error e, String server) {
        return switch (e.code()) {
            case StoreFrameCodec.E_TIMEOUT -> new StoreTimeoutException(op, e.missing(), Duration.ofMillis(e.waitedMs()),
                    server);
            case StoreFrameCodec.E_BAD_REQUEST -> new IllegalArgumentException(e.message());
            case StoreFrameCodec.E_AUTH -> new StoreAuthenticationException(e.message());
            case StoreFrameCodec.E_CLOSED -> new IllegalStateException(op + ": TCP store at " + server + ": " + e.message());
            default -> new IllegalStateException(op + ": TCP store at " + server + " failed: " + e.message());
        };
    }

    // --- decoders of the responses ---------------------------------------------------------------

    static byte[] value(StoreResponseCodec.Response r) {
        return ((StoreResponseCodec.Value) r).value();
    }

    static Long longValue(StoreResponseCodec.Response r) {
        return ((StoreResponseCodec.LongValue) r).value();
    }

    static Boolean boolValue(StoreResponseCodec.Response r) {
        return ((StoreResponseCodec.BoolValue) r).value();
    }

    static List<byte[]> values(StoreResponseCodec.Response r) {
        return ((StoreResponseCodec.Values) r).values();
    }
}
