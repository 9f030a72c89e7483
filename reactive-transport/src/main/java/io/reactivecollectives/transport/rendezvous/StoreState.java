package io.reactivecollectives.transport.rendezvous;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The key-value state of a {@link TcpStoreServer}: values plus, per missing key, the requests
 * waiting for it. Every operation runs under one short monitor and returns at once: nothing here
 * blocks, parks or schedules. A waiting request is a {@link Waiter} registered on the keys it
 * still misses; the write that creates the last of them removes it everywhere and hands it back
 * to the caller to answer (outside the monitor). Exactly one of fire, timeout and cancel wins for
 * each waiter, decided under the monitor. Semantics follow c10d (and core's HashStore): counters
 * are decimal text; {@code compareSet} with an empty expectation matches an absent key. Stored
 * arrays are never mutated, so they are handed out without copying.
 */
final class StoreState {

    /** A request waiting for keys. {@code keys} in request order; {@code missing} guarded by the state. */
    static final class Waiter {
        final Object owner;
        final int id;
        final String op;
        final List<String> keys;
        final Set<String> missing = new LinkedHashSet<>();
        boolean done;
        Object timer;

        Waiter(Object owner, int id, String op, List<String> keys) {
            this.owner = owner;
            this.id = id;
            this.op = op;
            this.keys = keys;
        }
    }

    /** A waiter completed by a write, with the values it waited for. */
    record Fired(Waiter waiter, List<byte[]> values) { }

    private final Map<String, byte[]> values = new HashMap<>();
    private final Map<String, List<Waiter>> waiting = new HashMap<>();
    private final AtomicInteger pendingWaits = new AtomicInteger();
    private boolean closed;

    int pendingWaits() {
        return pendingWaits.get();
    }

    AtomicInteger pendingWaitsCounter() {
        return pendingWaits;
    }

    synchronized List<Fired> set(String key, byte[] value) {
        ensureOpen("set");
        return putLocked(key, value, null);
    }

    /** The value of {@code key} now, or null. */
    synchronized byte[] getNow(String key) {
        ensureOpen("get");
        return values.get(key);
    }

    /** Adds and returns the new value; {@code fired} receives the waiters it completes. */
    synchronized long add(String key, long delta, List<Fired> fired) {
        ensureOpen("add");
        byte[] current = values.get(key);
        long next = (current == null ? 0L : parseCounter(key, current)) + delta;
        putLocked(key, Long.toString(next).getBytes(StandardCharsets.US_ASCII), fired);
        return next;
    }

    synchronized byte[] compareSet(String key, byte[] expected, byte[] desired, List<Fired> fired) {
        ensureOpen("compareSet");
        byte[] current = values.get(key);
        if ((current == null && expected.length == 0) || (current != null && Arrays.equals(current, expected))) {
            putLocked(key, desired, fired);
            return desired;
        }
        return current == null ? expected : current;
    }

    synchronized long append(String key, byte[] value, List<Fired> fired) {
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

    synchronized List<Fired> multiSet(Map<String, byte[]> entries) {
        ensureOpen("multiSet");
        List<Fired> fired = new ArrayList<>();
        entries.forEach((k, v) -> putLocked(k, v, fired));
        return fired;
    }

    synchronized boolean check(List<String> keys) {
        ensureOpen("check");
        return values.keySet().containsAll(keys);
    }

    synchronized boolean delete(String key) {
        ensureOpen("delete");
        return values.remove(key) != null;
    }

    synchronized long numKeys() {
        ensureOpen("numKeys");
        return values.size();
    }

    /**
     * Registers {@code w} on the keys it misses, or returns the values when none is missing (then
     * nothing is registered).
     */
    synchronized List<byte[]> awaitOrGet(Waiter w) {
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

    /** Removes {@code w} unless it already completed; returns the keys it still missed, or null if it had completed. */
    synchronized List<String> remove(Waiter w) {
        if (w.done) {
            return null;
        }
        w.done = true;
        pendingWaits.decrementAndGet();
        List<String> missing = new ArrayList<>(w.missing);
        for (String key : w.missing) {
            List<Waiter> list = waiting.get(key);
            if (list != null && list.remove(w) && list.isEmpty()) {
                waiting.remove(key);
            }
        }
        return missing;
    }

    /** Closes the state; returns every waiter still registered (now removed). */
    synchronized List<Waiter> close() {
        closed = true;
        Set<Waiter> all = new LinkedHashSet<>();
        waiting.values().forEach(all::addAll);
        waiting.clear();
        values.clear();
        for (Waiter w : all) {
            w.done = true;
            pendingWaits.decrementAndGet();
        }
        return new ArrayList<>(all);
    }

    private List<Fired> putLocked(String key, byte[] value, List<Fired> into) {
        values.put(key, value);
        List<Waiter> list = waiting.remove(key);
        if (list == null) {
            return into == null ? List.of() : into;
        }
        List<Fired> fired = into == null ? new ArrayList<>() : into;
        for (Waiter w : list) {
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
                fired.add(new Fired(w, snapshotLocked(w.keys)));
            }
        }
        return fired;
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

    static long parseCounter(String key, byte[] value) {
        String text = new String(value, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("add: key '" + key + "' does not hold a counter (value is "
                    + value.length + " bytes, not a decimal integer)", e);
        }
    }
}
