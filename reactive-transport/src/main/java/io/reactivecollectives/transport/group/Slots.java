package io.reactivecollectives.transport.group;

import java.util.HashMap;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * A {@link CollectiveBox}'s slots: what waits at each address (tag, step, chunk, source), a payload
 * that arrived or a receive that waits for one. Guarded by the mailbox's lock.
 *
 * <p>Most boxes hold one slot at a time (a barrier's, a small all-reduce's step), so the first slot
 * lives in this object's fields; a map of {@link SlotKey}s is made only when a second slot is held
 * beside it (pipelined segments, many peers). A box that never holds two slots allocates nothing
 * for them: no map, no table, no entry, no key.
 */
final class Slots {

    /** Whether the inline slot holds something; its address and value. */
    private boolean held;
    private int tag;
    private int step;
    private int chunk;
    private int source;
    private Object value;
    /** The slots beside the inline one, and the probe to look them up with (made together, on demand). */
    private HashMap<SlotKey, Object> more;
    private SlotKey probe;

    /** The slot's value (a payload or a waiting receive), or null. */
    Object get(int tag, int step, int chunk, int source) {
        if (held && at(tag, step, chunk, source)) {
            return value;
        }
        return more == null || more.isEmpty() ? null : more.get(probe.set(tag, step, chunk, source));
    }

    /** Fills an empty slot (the caller found it empty with {@link #get}). */
    void put(int tag, int step, int chunk, int source, Object v) {
        if (!held) {
            held = true;
            this.tag = tag;
            this.step = step;
            this.chunk = chunk;
            this.source = source;
            value = v;
            return;
        }
        if (more == null) {
            more = new HashMap<>();
            probe = new SlotKey();
        }
        more.put(new SlotKey().set(tag, step, chunk, source), v);
    }

    /** Empties a slot; returns what it held, or null. */
    Object remove(int tag, int step, int chunk, int source) {
        if (held && at(tag, step, chunk, source)) {
            Object v = value;
            held = false;
            value = null;
            return v;
        }
        return more == null || more.isEmpty() ? null : more.remove(probe.set(tag, step, chunk, source));
    }

    /** Empties a slot only if it holds {@code v} (the same object). */
    void removeIfHolds(int tag, int step, int chunk, int source, Object v) {
        if (get(tag, step, chunk, source) == v) {
            remove(tag, step, chunk, source);
        }
    }

    /** Whether no slot holds anything. */
    boolean isEmpty() {
        return !held && (more == null || more.isEmpty());
    }

    /** Empties every slot, handing each value to {@code each}. */
    void drain(Consumer<Object> each) {
        if (held) {
            Object v = value;
            held = false;
            value = null;
            each.accept(v);
        }
        if (more != null) {
            for (Iterator<Object> it = more.values().iterator(); it.hasNext(); ) {
                Object v = it.next();
                it.remove();
                each.accept(v);
            }
        }
    }

    /** The sources of the receives that wait here (the values that are not payloads) into {@code out}. */
    void waitingSources(java.util.BitSet out) {
        if (held && value instanceof MailboxReceive.Waiter) {
            out.set(source);
        }
        if (more != null) {
            for (java.util.Map.Entry<SlotKey, Object> e : more.entrySet()) {
                if (e.getValue() instanceof MailboxReceive.Waiter w) {
                    out.set(w.r.source);
                }
            }
        }
    }

    private boolean at(int t, int s, int c, int src) {
        return tag == t && step == s && chunk == c && source == src;
    }
}
