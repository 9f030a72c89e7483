package io.reactivecollectives.transport.group;

/**
 * The address of a slot in a {@link CollectiveBox}: (tag, step, chunk, source). The keys stored
 * in a box's map are never changed; the {@link Mailbox} keeps one more, its probe, that it sets
 * and looks up with under its lock, so that finding a slot allocates nothing (a key is copied out
 * of the probe only to store a new slot).
 */
final class SlotKey {

    private int tag;
    private int step;
    private int chunk;
    private int source;

    /** Sets this probe to (tag, step, chunk, source); only for the mailbox's probe, under its lock. */
    SlotKey set(int tag, int step, int chunk, int source) {
        this.tag = tag;
        this.step = step;
        this.chunk = chunk;
        this.source = source;
        return this;
    }

    /** A key to store, equal to this probe. */
    SlotKey copy() {
        return new SlotKey().set(tag, step, chunk, source);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotKey k && k.tag == tag && k.step == step && k.chunk == chunk && k.source == source;
    }

    @Override
    public int hashCode() {
        return ((tag * 31 + step) * 31 + chunk) * 31 + source;
    }

    @Override
    public String toString() {
        return "(tag " + tag + " step " + step + " chunk " + chunk + " from " + source + ")";
    }
}
