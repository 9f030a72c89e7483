package io.reactivecollectives.core.rendezvous;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The key-value map with waiters behind every in-memory store: {@link HashStore} and the TCP
 * store's server keep their keys here, so both have one set of semantics (c10d's): counters are
 * decimal text, {@code compareSet} with an empty expectation matches an absent key, a wait
 * completes when the last of its keys exists (and waits again for a key deleted meanwhile).
 *
 * <p>Every operation runs under this object's monitor, briefly, and returns at once: nothing here
 * blocks, parks or schedules, so it may be called from event loops. A waiting request is a
 * {@link Waiter} registered on the keys it still misses; the write that creates the last of them
 * removes it everywhere and hands it back, as a {@link Fired}, for the caller to answer outside
 * the monitor. Exactly one of fire, {@link #remove} (timeout, cancel) and {@link #close} wins for
 * each waiter. Arrays are stored and handed out as given: callers that let theirs be reused copy
 * them.
 *
 * @param <W> the caller's kind of waiter (carrying what it needs to answer it)
 */
public final class KeyValueWaiters<W extends KeyValueWaiters.Waiter> {

    /** A request waiting for keys; subclasses carry how to answer it. */
    public static class Waiter {
        final String op;
        final List<String> keys;
        /** Guarded by the map's monitor. */
        final Set<String> missing = new LinkedHashSet<>();
        /** Guarded by the map's monitor. */
        boolean done;

        /**
         * A waiter of operation {@code op} for {@code keys} (in request order).
         *
         * @param op   the operation waiting ({@code get})
         * @param keys the keys waited for, in request order
         */
        protected Waiter(String op, List<String> keys) {
            this.op = Objects.requireNonNull(op, "op");
            this.keys = List.copyOf(keys);
        }

        /**
         * The operation waiting ({@code get}, {@code await}, {@code multiGet}).
         *
         * @return the operation
         */
        public final String op() {
            return op;
        }

        /**
         * The keys waited for, in request order.
         *
         * @return the keys
         */
        public final List<String> keys() {
            return keys;
        }
    }

    /**
     * A waiter completed by a write, with the values of its keys in request order.
     *
     * @param <W>    the caller's kind of waiter
     * @param waiter the waiter
     * @param values the values of its keys, in request order
     */
    public record Fired<W>(W waiter, List<byte[]> values) { }

    private final Map<String, byte[]> values = new HashMap<>();
    private final Map<String, List<W>> waiting = new HashMap<>();
    private final AtomicInteger pendingWaits = new AtomicInteger();
    private boolean closed;

    /** An empty key-value map with no waiters. */
    public KeyValueWaiters() {
    }

    /**
     * Waiters registered now (read without the monitor, e.g. by a gauge).
     *
     * @return the number of waiters
     */
    public int pendingWaits() {
        return pendingWaits.get();
    }

    /**
     * Sets {@code key}; {@code fired} receives the waiters this completes.
     *
     * @param key   the key
     * @param value the value
     * @param fired receives the waiters this write completes
     */
    public synchronized void set(String key, byte[] value, List<Fired<W>> fired) {
        ensureOpen("set");
        putLocked(key, value, fired);
    }

    /**
     * The value of {@code key} now, or null.
     *
     * @param key the key
     * @return the value, or null
     */
    public synchronized byte[] get(String key) {
        ensureOpen("get");
        return values.get(key);
    }

    /**
     * Adds {@code delta} to the counter at {@code key} (absent: 0) and returns the new value.
     *
     * @param key   the key
     * @param delta the amount to add
     * @param fired receives the waiters this write completes
     * @return the counter's new value
     */
    public synchronized long add(String key, long delta, List<Fired<W>> fired) {
        ensureOpen("add");
        byte[] current = values.get(key);
        long next = (current == null ? 0L : parseCounter(key, current)) + delta;
        putLocked(key, Long.toString(next).getBytes(StandardCharsets.US_ASCII), fired);
        return next;
    }

    /**
     * Sets {@code key} to {@code desired} if it holds {@code expected} (empty: absent); returns the
     * value it holds afterwards ({@code expected} itself when absent and not matched, as c10d).
     *
     * @param key      the key
     * @param expected the value the key must hold (empty: absent)
     * @param desired  the value to set
     * @param fired    receives the waiters this write completes
     * @return the value held afterwards
     */
    public synchronized byte[] compareSet(String key, byte[] expected, byte[] desired, List<Fired<W>> fired) {
        ensureOpen("compareSet");
        byte[] current = values.get(key);
        if ((current == null && expected.length == 0) || (current != null && Arrays.equals(current, expected))) {
            putLocked(key, desired, fired);
            return desired;
        }
        return current == null ? expected : current;
    }

    /**
     * Appends {@code value} to {@code key} (absent: empty) and returns the new length.
     *
     * @param key   the key
     * @param value the value
     * @param fired receives the waiters this write completes
     * @return the new length
     */
    public synchronized long append(String key, byte[] value, List<Fired<W>> fired) {
        ensureOpen("append");
        byte[] current = values.get(key);
        byte[] next;
        if (current == null) {
            next = value;
        } else {
            next = Arrays.copyOf(current, current.length + value.length);
            System.arraycopy(value, 0, next, current.length, value.length);
        }
        putLocked(key, next, fired);
        return next.length;
    }

    /**
     * Sets every entry, in the map's order.
     *
     * @param entries the keys and values
     * @param fired   receives the waiters this write completes
     */
    public synchronized void multiSet(Map<String, byte[]> entries, List<Fired<W>> fired) {
        ensureOpen("multiSet");
        entries.forEach((k, v) -> putLocked(k, v, fired));
    }

    /**
     * Whether every key exists now.
     *
     * @param keys the keys
     * @return whether every key exists
     */
    public synchronized boolean check(List<String> keys) {
        ensureOpen("check");
        return values.keySet().containsAll(keys);
    }

    /**
     * Deletes {@code key}; whether it existed.
     *
     * @param key the key
     * @return whether it existed
     */
    public synchronized boolean delete(String key) {
        ensureOpen("delete");
        return values.remove(key) != null;
    }

    /**
     * The number of keys.
     *
     * @return the number of keys
     */
    public synchronized long numKeys() {
        ensureOpen("numKeys");
        return values.size();
    }

    /**
     * The keys of {@code keys} (without repeats, in order) that do not exist now.
     *
     * @param keys the keys
     * @return the missing keys
     */
    public synchronized List<String> missing(List<String> keys) {
        List<String> out = new ArrayList<>();
        for (String key : new LinkedHashSet<>(keys)) {
            if (!values.containsKey(key)) {
                out.add(key);
            }
        }
        return out;
    }

    /**
     * Registers {@code w} on the keys it misses, or returns the values of its keys when none is
     * missing (then nothing is registered).
     *
     * @param w the waiter
     * @return the values of its keys in order, or null when it was registered
     * @throws IllegalStateException when closed
     */
    public synchronized List<byte[]> awaitOrGet(W w) {
        ensureOpen(w.op);
        for (String key : w.keys) {
            if (!values.containsKey(key)) {
                w.missing.add(key);
            }
        }
        if (w.missing.isEmpty()) {
            return snapshotLocked(w.keys);
        }
        for (String key : w.missing) {
            waiting.computeIfAbsent(key, k -> new ArrayList<>(2)).add(w);
        }
        pendingWaits.incrementAndGet();
        return null;
    }

    /**
     * Removes {@code w} (timed out, cancelled) unless it completed already; returns the keys it still
     * missed, or null if it had completed (fired or closed).
     *
     * @param w the waiter
     * @return the keys it still missed, or null
     */
    public synchronized List<String> remove(W w) {
        if (w.done) {
            return null;
        }
        w.done = true;
        pendingWaits.decrementAndGet();
        List<String> missing = new ArrayList<>(w.missing);
        for (String key : w.missing) {
            List<W> list = waiting.get(key);
            if (list != null && list.remove(w) && list.isEmpty()) {
                waiting.remove(key);
            }
        }
        return missing;
    }

    /**
     * Whether {@link #close()} ran.
     *
     * @return whether the map is closed
     */
    public synchronized boolean isClosed() {
        return closed;
    }

    /**
     * Closes the map (later calls fail) and returns every waiter still registered, now removed.
     *
     * @return the waiters that were registered
     */
    public synchronized List<W> close() {
        closed = true;
        Set<W> all = new LinkedHashSet<>();
        waiting.values().forEach(all::addAll);
        waiting.clear();
        values.clear();
        for (W w : all) {
            w.done = true;
            pendingWaits.decrementAndGet();
        }
        return new ArrayList<>(all);
    }

    private void putLocked(String key, byte[] value, List<Fired<W>> fired) {
        values.put(key, value);
        List<W> list = waiting.remove(key);
        if (list == null) {
            return;
        }
        for (W w : list) {
            w.missing.remove(key);
            if (!w.missing.isEmpty()) {
                continue;
            }
            // a key seen earlier may have been deleted since: wait for it again
            for (String k : w.keys) {
                if (!values.containsKey(k)) {
                    w.missing.add(k);
                    waiting.computeIfAbsent(k, x -> new ArrayList<>(2)).add(w);
                }
            }
            if (w.missing.isEmpty()) {
                w.done = true;
                pendingWaits.decrementAndGet();
                fired.add(new Fired<>(w, snapshotLocked(w.keys)));
            }
        }
    }

    private List<byte[]> snapshotLocked(List<String> keys) {
        List<byte[]> out = new ArrayList<>(keys.size());
        for (String key : keys) {
            out.add(values.get(key));
        }
        return out;
    }

    private void ensureOpen(String op) {
        if (closed) {
            throw new IllegalStateException(op + ": store closed");
        }
    }

    /**
     * The counter {@code value} of {@code key} holds (decimal text); IllegalArgumentException if none.
     *
     * @param key   the key, for the error message
     * @param value the bytes held
     * @return the counter
     */
    public static long parseCounter(String key, byte[] value) {
        String text = new String(value, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("add: key '" + key + "' does not hold a counter (value is "
                    + value.length + " bytes, not a decimal integer)", e);
        }
    }
}
