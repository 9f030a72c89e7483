package io.reactivecollectives.core.rendezvous;

import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An in-memory {@link Store} for ranks that live in one JVM, as c10d's {@code HashStore}.
 *
 * <p>Thread-safe: every operation runs under one short monitor (no parking lock, so it may be
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
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private final Map<String, byte[]> values = new HashMap<>();
    /** Guarded by {@link #lock}: key -> waiters still missing it. */
    private final Map<String, Set<Waiter>> waiters = new HashMap<>();
    /** Guarded by {@link #lock}. */
    private boolean closed;

    /** A store whose waits last {@link Store#DEFAULT_TIMEOUT}. */
    public HashStore() {
        this(DEFAULT_TIMEOUT);
    }

    /** A store whose waits last {@code timeout} unless a call says otherwise. */
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
            byte[] copy = value.clone();
            List<Fired> fired;
            synchronized (lock) {
                ensureOpen("set");
                fired = putLocked(key, copy);
            }
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
            long next;
            List<Fired> fired;
            synchronized (lock) {
                ensureOpen("add");
                byte[] current = values.get(key);
                next = (current == null ? 0L : parseCounter(key, current)) + delta;
                fired = putLocked(key, Long.toString(next).getBytes(StandardCharsets.US_ASCII));
            }
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
            byte[] result;
            List<Fired> fired = List.of();
            synchronized (lock) {
                ensureOpen("compareSet");
                byte[] current = values.get(key);
                if ((current == null && expected.length == 0) || (current != null && Arrays.equals(current, expected))) {
                    fired = putLocked(key, desired.clone());
                    result = desired.clone();
                } else if (current == null) {
                    result = expected.clone(); // c10d: an absent key with a non-empty expectation answers the expectation
                } else {
                    result = current.clone();
                }
            }
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
        return Mono.fromCallable(() -> {
            synchronized (lock) {
                ensureOpen("check");
                return values.keySet().containsAll(copy);
            }
        });
    }

    @Override
    public Mono<Boolean> delete(String key) {
        Objects.requireNonNull(key, "key");
        return Mono.fromCallable(() -> {
            synchronized (lock) {
                ensureOpen("delete");
                return values.remove(key) != null;
            }
        });
    }

    @Override
    public Mono<Long> numKeys() {
        return Mono.fromCallable(() -> {
            synchronized (lock) {
                ensureOpen("numKeys");
                return (long) values.size();
            }
        });
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return waitFor("multiGet", keys, timeout);
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        Map<String, byte[]> copy = new HashMap<>();
        entries.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value").clone()));
        return Mono.fromRunnable(() -> {
            List<Fired> fired = new ArrayList<>();
            synchronized (lock) {
                ensureOpen("multiSet");
                copy.forEach((k, v) -> fired.addAll(putLocked(k, v.clone())));
            }
            fire(fired);
        });
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return Mono.fromCallable(() -> {
            long length;
            List<Fired> fired;
            synchronized (lock) {
                ensureOpen("append");
                byte[] current = values.get(key);
                byte[] next;
                if (current == null) {
                    next = value.clone();
                } else {
                    next = Arrays.copyOf(current, current.length + value.length);
                    System.arraycopy(value, 0, next, current.length, value.length);
                }
                length = next.length;
                fired = putLocked(key, next);
            }
            fire(fired);
            return length;
        });
    }

    /** Closes the store: new calls fail, and pending waits fail with {@link IllegalStateException}. */
    @Override
    public void close() {
        Set<Waiter> pending = new HashSet<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            waiters.values().forEach(pending::addAll);
            waiters.clear();
            values.clear();
        }
        pending.forEach(w -> w.sink.error(new IllegalStateException(w.op + ": store closed while waiting for " + w.keys)));
    }

    /** Number of waiters registered now (for tests: a cancelled wait must leave none). */
    int pendingWaiters() {
        synchronized (lock) {
            Set<Waiter> all = new HashSet<>();
            waiters.values().forEach(all::addAll);
            return all.size();
        }
    }

    // --- waiting -------------------------------------------------------------------------------

    private Mono<List<byte[]>> waitFor(String op, List<String> keys, Duration waitTimeout) {
        List<String> keyList = List.copyOf(keys);
        Duration limit = requirePositive(waitTimeout, "timeout");
        Mono<List<byte[]>> wait = Mono.create(sink -> {
            Waiter waiter = new Waiter(op, keyList, sink);
            List<byte[]> ready = null;
            synchronized (lock) {
                if (closed) {
                    sink.error(new IllegalStateException(op + ": store closed"));
                    return;
                }
                for (String key : keyList) {
                    if (!values.containsKey(key)) {
                        waiter.missing.add(key);
                    }
                }
                if (waiter.missing.isEmpty()) {
                    ready = snapshotLocked(keyList);
                } else {
                    for (String key : waiter.missing) {
                        waiters.computeIfAbsent(key, k -> new HashSet<>()).add(waiter);
                    }
                }
            }
            if (ready != null) {
                sink.success(ready);
                return;
            }
            sink.onDispose(() -> removeWaiter(waiter));
        });
        return wait.timeout(limit, Mono.defer(() -> Mono.error(
                new StoreTimeoutException(op, missingNow(keyList), limit))));
    }

    private List<String> missingNow(List<String> keys) {
        List<String> missing = new ArrayList<>();
        synchronized (lock) {
            for (String key : new LinkedHashSet<>(keys)) {
                if (!values.containsKey(key)) {
                    missing.add(key);
                }
            }
        }
        return missing;
    }

    private void removeWaiter(Waiter waiter) {
        synchronized (lock) {
            for (String key : waiter.keys) {
                Set<Waiter> set = waiters.get(key);
                if (set != null && set.remove(waiter) && set.isEmpty()) {
                    waiters.remove(key);
                }
            }
        }
    }

    /** Stores {@code value} and returns the waiters this completes, to be fired outside the lock. */
    private List<Fired> putLocked(String key, byte[] value) {
        values.put(key, value);
        Set<Waiter> set = waiters.remove(key);
        if (set == null) {
            return List.of();
        }
        List<Fired> fired = new ArrayList<>();
        for (Waiter waiter : set) {
            waiter.missing.remove(key);
            if (waiter.missing.isEmpty()) {
                // a key found earlier may have been deleted since: wait for it again
                for (String k : waiter.keys) {
                    if (!values.containsKey(k)) {
                        waiter.missing.add(k);
                        waiters.computeIfAbsent(k, x -> new HashSet<>()).add(waiter);
                    }
                }
                if (waiter.missing.isEmpty()) {
                    fired.add(new Fired(waiter, snapshotLocked(waiter.keys)));
                }
            }
        }
        return fired;
    }

    private List<byte[]> snapshotLocked(List<String> keys) {
        List<byte[]> out = new ArrayList<>(keys.size());
        for (String key : keys) {
            out.add(values.get(key).clone());
        }
        return out;
    }

    private static void fire(List<Fired> fired) {
        for (Fired f : fired) {
            f.waiter.sink.success(f.values);
        }
    }

    private void ensureOpen(String op) {
        if (closed) {
            throw new IllegalStateException(op + ": store closed");
        }
    }

    static long parseCounter(String key, byte[] value) {
        String text = new String(value, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("add: key '" + key + "' does not hold a counter (value is "
                    + value.length + " bytes, not a decimal integer)", e);
        }
    }

    static Duration requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }

    private static final class Waiter {
        final String op;
        final List<String> keys;
        final Set<String> missing = new HashSet<>();
        final MonoSink<List<byte[]>> sink;

        Waiter(String op, List<String> keys, MonoSink<List<byte[]>> sink) {
            this.op = op;
            this.keys = keys;
            this.sink = sink;
        }
    }

    private record Fired(Waiter waiter, List<byte[]> values) {
    }
}
