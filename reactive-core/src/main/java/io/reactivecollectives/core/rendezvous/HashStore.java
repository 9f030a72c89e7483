package io.reactivecollectives.core.rendezvous;

import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An in-memory {@link Store} for ranks that live in one JVM, as c10d's {@code HashStore}.
 *
 * <p>The keys and their waiters live in a {@link KeyValueWaiters} (as the TCP store server's do).
 * Thread-safe: every operation runs under one short monitor (no parking lock, so it may be
 * called from Netty event loops and {@code Schedulers.parallel()}). Waiting calls ({@link #get},
 * {@link #await}, {@link #multiGet}) hold no thread: they register a waiter on each missing key,
 * completed by the {@link #set}/{@link #add}/{@link #append}/{@link #compareSet} that creates the
 * last of them; the timeout runs on {@code Schedulers.parallel()} ({@link Mono#timeout(Duration)})
 * and fails with a {@link StoreTimeoutException} naming the keys still missing. Cancelling a waiting
 * call removes its waiter. Values are copied in and out, so callers may reuse their arrays.
 *
 * <p>After {@link #close()}, new calls fail with {@link IllegalStateException} and pending waits
 * fail with the same.
 */
public final class HashStore implements Store {

    private final Duration timeout;
    private final KeyValueWaiters<SinkWaiter> map = new KeyValueWaiters<>();

    /** A store whose waits last {@link Store#DEFAULT_TIMEOUT}. */
    public HashStore() {
        this(DEFAULT_TIMEOUT);
    }

    /**
     * A store whose waits last {@code timeout} unless a call says otherwise.
     *
     * @param timeout the default wait
     */
    public HashStore(Duration timeout) {
        this.timeout = requirePositive(timeout, "timeout");
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return Mono.fromRunnable(() -> {
            List<KeyValueWaiters.Fired<SinkWaiter>> fired = new ArrayList<>(0);
            map.set(key, value.clone(), fired);
            fire(fired);
        });
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        Objects.requireNonNull(key, "key");
        return waitFor("get", List.of(key), timeout).map(list -> list.get(0));
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        Objects.requireNonNull(key, "key");
        return Mono.fromCallable(() -> {
            List<KeyValueWaiters.Fired<SinkWaiter>> fired = new ArrayList<>(0);
            long next = map.add(key, delta, fired);
            fire(fired);
            return next;
        });
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(desired, "desired");
        return Mono.fromCallable(() -> {
            List<KeyValueWaiters.Fired<SinkWaiter>> fired = new ArrayList<>(0);
            byte[] result = map.compareSet(key, expected.clone(), desired.clone(), fired).clone();
            fire(fired);
            return result;
        });
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return waitFor("await", keys, timeout).then();
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        return Mono.fromCallable(() -> map.check(copy));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        Objects.requireNonNull(key, "key");
        return Mono.fromCallable(() -> map.delete(key));
    }

    @Override
    public Mono<Long> numKeys() {
        return Mono.fromCallable(map::numKeys);
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return waitFor("multiGet", keys, timeout);
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        // stored arrays are never changed (append makes new ones) and values go out as copies: one copy in suffices
        Map<String, byte[]> copy = new LinkedHashMap<>();
        entries.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value").clone()));
        return Mono.fromRunnable(() -> {
            List<KeyValueWaiters.Fired<SinkWaiter>> fired = new ArrayList<>();
            map.multiSet(copy, fired);
            fire(fired);
        });
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return Mono.fromCallable(() -> {
            List<KeyValueWaiters.Fired<SinkWaiter>> fired = new ArrayList<>(0);
            long length = map.append(key, value.clone(), fired);
            fire(fired);
            return length;
        });
    }

    /** Closes the store: new calls fail, and pending waits fail with {@link IllegalStateException}. */
    @Override
    public void close() {
        if (map.isClosed()) {
            return;
        }
        for (SinkWaiter w : map.close()) {
            w.sink.error(new IllegalStateException(w.op() + ": store closed while waiting for " + w.keys()));
        }
    }

    /** Number of waiters registered now (for tests: a cancelled wait must leave none). */
    int pendingWaiters() {
        return map.pendingWaits();
    }

    // --- waiting -------------------------------------------------------------------------------

    private Mono<List<byte[]>> waitFor(String op, List<String> keys, Duration waitTimeout) {
        List<String> keyList = List.copyOf(keys);
        Duration limit = requireNotNegative(waitTimeout, "timeout");
        Mono<List<byte[]>> wait = Mono.create(sink -> {
            SinkWaiter waiter = new SinkWaiter(op, keyList, sink);
            List<byte[]> ready;
            try {
                ready = map.awaitOrGet(waiter);
            } catch (IllegalStateException closed) {
                sink.error(closed);
                return;
            }
            if (ready != null) {
                sink.success(copies(ready));
                return;
            }
            if (limit.isZero()) { // no wait: a check now
                map.remove(waiter);
                sink.error(new StoreTimeoutException(op, map.missing(keyList), limit));
                return;
            }
            sink.onDispose(() -> map.remove(waiter));
        });
        return limit.isZero() ? wait : wait.timeout(limit, Mono.defer(() -> Mono.error(
                new StoreTimeoutException(op, map.missing(keyList), limit))));
    }

    private static List<byte[]> copies(List<byte[]> values) {
        List<byte[]> out = new ArrayList<>(values.size());
        values.forEach(v -> out.add(v.clone()));
        return out;
    }

    private static void fire(List<KeyValueWaiters.Fired<SinkWaiter>> fired) {
        for (KeyValueWaiters.Fired<SinkWaiter> f : fired) {
            f.waiter().sink.success(copies(f.values()));
        }
    }

    static long parseCounter(String key, byte[] value) {
        return KeyValueWaiters.parseCounter(key, value);
    }

    /** {@code d}, unless it is negative (zero is a wait that does not wait). */
    static Duration requireNotNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + d);
        }
        return d;
    }

    static Duration requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }

    /** A waiting call: answered through its sink. */
    private static final class SinkWaiter extends KeyValueWaiters.Waiter {
        final MonoSink<List<byte[]>> sink;

        SinkWaiter(String op, List<String> keys, MonoSink<List<byte[]>> sink) {
            super(op, keys);
            this.sink = sink;
        }
    }
}
