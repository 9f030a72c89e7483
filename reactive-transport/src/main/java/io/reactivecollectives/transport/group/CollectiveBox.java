package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveException;

import io.reactivecollectives.transport.algorithms.SubAddress;

import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One collective's state in the {@link Mailbox}: its slots (frames that arrived, receives that
 * wait), its failure, what it is (the agreement every DATA frame is checked against), and the
 * receipts it waits for. Guarded by the mailbox's lock; the accessors are for messages. Its slots
 * ({@code Slots}, {@code SlotKey}) are nested here: a frame's and a receive's walk through the box
 * stays in this file.
 */
public final class CollectiveBox {

    /** Bit of an agreement word that asks the receiver for a receipt (ACK); not part of the agreement. */
    public static final long ACK_REQUESTED = 1L << 32;

    /**
     * Bit of the agreement word of a stream ({@code allReduceStream}), where other collectives hold
     * their root (a rank, below 2^31). A stream has no root: its frames carry their chunk's dtype
     * (plus one) in the bits below this one ({@link #CHUNK_DTYPE}), checked chunk by chunk
     * ({@link ChunkDtypes}) since the chunks of one stream may have different dtypes.
     */
    public static final long STREAM = 1L << 31;

    /** Bits of a stream frame's agreement word that hold its chunk's dtype plus one (0: not said). */
    public static final long CHUNK_DTYPE = STREAM - 1;

    /**
     * The "dtype" of a stream's end: after its last chunk every rank all-reduces one tiny tensor
     * tagged as the chunk after the last and marked with this code, so a rank whose stream ended
     * early meets another rank's next chunk as a dtype conflict, and every rank fails at once.
     */
    public static final int STREAM_END = (int) CHUNK_DTYPE;

    final long sequence;
    String op;                      // null while no local collective owns it
    final Slots slots = new Slots(); // ByteBuf (arrived) | MailboxReceive.Waiter (waiting), by address
    CollectiveException failure;    // once failed, every receive fails with it
    Function<CollectiveBox, CollectiveException> pendingAbort; // a peer's ABORT that came before the local collective started
    long openedNanos;               // when the local collective opened the box
    long timeoutNanos;              // its timeout (0: unknown), for the wait reports
    volatile int waitingOn = -1;    // the peer of the latest receive, for timeout messages
    volatile int waitingTag;        // tag, step, chunk of that receive
    volatile int waitingStep;
    volatile int waitingChunk;
    // the agreement: the local collective's (word 0: not checked), and the first early frames' that differ
    long word;
    long count;
    private volatile ChunkDtypes chunkDtypes;   // a stream's chunks' dtypes as they arrive and start (null until the first)
    private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<CollectiveBox, ChunkDtypes> CHUNK_DTYPES =
            java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(CollectiveBox.class, ChunkDtypes.class, "chunkDtypes");
    int earlySource = -1;
    long earlyWord;
    long earlyCount;
    int oddSource = -1;
    long oddWord;
    long oddCount;
    BitSet acksOwed;                // sources whose early frames asked for a receipt
    BitSet acksReceived;
    BitSet acksAwaited;
    Receipts.Waiter ackWaiter;
    CollectiveException receiptFailure;
    volatile boolean ended;                // the local collective signalled its result (its box may still be open)

    CollectiveBox(long sequence) {
        this.sequence = sequence;
    }

    public long sequence() {
        return sequence;
    }

    /** How long the local collective has run (zero while none owns the box). */
    public Duration elapsed() {
        return op == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - openedNanos);
    }

    /** The local collective's name (null while none owns the box). */
    public String opName() {
        return op;
    }

    /** The peer this collective last waited for, or -1. */
    public int waitingOn() {
        return waitingOn;
    }

    /** The local collective's agreement word (0: not checked). */
    public long word() {
        return word;
    }

    /** The local collective's agreement count. */
    public long count() {
        return count;
    }

    /** A description of what it last waited for ({@code tag 0 step 3 chunk 1}), or null. */
    public String waitingWhat() {
        if (waitingOn < 0) {
            return null;
        }
        return "tag " + waitingTag + " " + SubAddress.describeStep(waitingStep) + " chunk " + waitingChunk;
    }

    /** Whether a frame's agreement differs from this box's (neither unchecked). */
    boolean disagrees(long frameWord, long frameCount) {
        long w = frameWord & ~ACK_REQUESTED;
        if ((word & STREAM) != 0) {
            w &= ~CHUNK_DTYPE;      // a stream's chunks: their dtypes are checked chunk by chunk
        }
        return word != 0 && frameWord != 0 && (w != word || frameCount != count);
    }

    /**
     * The sources whose early frames asked for a receipt (the caller sends them), cleared; by the
     * collective that opened the box.
     */
    public int[] takeOwedAcks() {
        if (acksOwed == null) {
            return NO_ACKS;
        }
        int[] owed = acksOwed.stream().toArray();
        acksOwed = null;
        return owed;
    }

    /**
     * A frame of chunk {@code tag} from {@code source} with agreement {@code frameWord}: where it is a
     * stream's chunk whose dtype differs from the chunk's here, the conflict; else null.
     */
    ChunkConflict chunkFrame(int tag, int source, long frameWord) {
        int dtype = (int) (frameWord & CHUNK_DTYPE);
        return (frameWord & STREAM) == 0 || dtype == 0 ? null : chunkDtypes().frame(tag, source, dtype);
    }

    /**
     * Chunk {@code tag} of this box's stream starts here with {@code dtype} (plus one): the conflict
     * with a frame of that chunk that came with another dtype, or null.
     */
    public ChunkConflict chunkStarts(int tag, int dtype) {
        return chunkDtypes().local(tag, dtype);
    }

    /** Chunk {@code tag} of this box's stream ended here (every frame of it arrived): its dtype is forgotten. */
    public void chunkEnds(int tag) {
        ChunkDtypes c = chunkDtypes;
        if (c != null) {
            c.done(tag);
        }
    }

    private ChunkDtypes chunkDtypes() {
        ChunkDtypes c = chunkDtypes;
        if (c == null && !CHUNK_DTYPES.compareAndSet(this, null, c = new ChunkDtypes())) {
            c = chunkDtypes;
        }
        return c;
    }

    /** A frame that came before the local collective opened: keep its agreement for {@link #earlyDisagreement}. */
    void noteEarly(int source, long frameWord, long frameCount) {
        if ((frameWord & ACK_REQUESTED) != 0) {
            if (acksOwed == null) {
                acksOwed = new BitSet();
            }
            acksOwed.set(source);
        }
        long w = frameWord & ~ACK_REQUESTED;
        if (earlySource < 0) {
            earlySource = source;
            earlyWord = w;
            earlyCount = frameCount;
        } else if (oddSource < 0 && (w != earlyWord || frameCount != earlyCount)) {
            oddSource = source;
            oddWord = w;
            oddCount = frameCount;
        }
    }

    private static final int[] NO_ACKS = new int[0];

    /**
     * The first early frame (arrived before {@link Mailbox#open}) whose agreement differs from the
     * local collective's, or null; call after the open, by the collective that opened the box.
     */
    public Disagreement earlyDisagreement() {
        if (earlySource >= 0 && disagrees(earlyWord, earlyCount)) {
            return new Disagreement(earlySource, earlyWord, earlyCount);
        }
        if (oddSource >= 0 && disagrees(oddWord, oddCount)) {
            return new Disagreement(oddSource, oddWord, oddCount);
        }
        return null;
    }

    /**
     * A box's slots: what waits at each address (tag, step, chunk, source), a payload
     * that arrived or a receive that waits for one. Guarded by the mailbox's lock.
     *
     * <p>Most boxes hold one slot at a time (a barrier's, a small all-reduce's step), so the first slot
     * lives in this object's fields; a map of {@link SlotKey}s is made only when a second slot is held
     * beside it (pipelined segments, many peers). A box that never holds two slots allocates nothing
     * for them: no map, no table, no entry, no key.
     */
    static final class Slots {

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
        void waitingSources(BitSet out) {
            if (held && value instanceof MailboxReceive.Waiter) {
                out.set(source);
            }
            if (more != null) {
                for (Map.Entry<SlotKey, Object> e : more.entrySet()) {
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

    /**
     * The address of a slot in a {@link Slots}' map: (tag, step, chunk, source). The keys stored in
     * the map are never changed; the {@link Slots} keeps one more, its probe, that it sets and looks
     * up with under the mailbox's lock, so that finding a slot allocates nothing.
     */
    private static final class SlotKey {

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
}
