package io.reactivecollectives.transport.group;

/**
 * The address of a slot in a {@link Slots}' map: (tag, step, chunk, source). The keys stored in
 * the map are never changed; the {@link Slots} keeps one more, its probe, that it sets and looks
 * up with under the mailbox's lock, so that finding a slot allocates nothing.
 */
final class SlotKey {

    private int tag;
    private int step;
    private int chunk;
    private int source;

    /** Sets this key to (tag, step, chunk, source): a new key, or the probe (under the mailbox's lock). */
    SlotKey set(int tag, int step, int chunk, int source) {
        this.tag = tag;
        this.step = step;
        this.chunk = chunk;
        this.source = source;
        return this;
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
