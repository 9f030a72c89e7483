package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.transport.wire.LentBuffer;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Demultiplexes inbound collective frames to the collectives of one group: a frame is addressed
 * by (sequence, tag, step, chunk, source) and goes to the receive that asks for exactly that, or
 * waits here until it is asked for (frames may arrive before the local collective is subscribed;
 * several collectives may be in flight). Sequence numbers are assigned here, in subscription
 * order.
 *
 * <p>Frames waiting unclaimed count against a byte budget; over it the inbound connections stop
 * reading ({@code onPressure}) until claims bring the total under half the budget again, so a
 * fast sender is slowed by TCP back-pressure instead of filling this rank's memory.
 *
 * <p>Thread-safe; callbacks into subscribers run outside the lock.
 */
public final class Mailbox {

    private final UnclaimedBudget unclaimed;
    private final Runnable onPressure;
    private final Runnable onRelief;
    private final LongObjectHashMap<CollectiveBox> boxes = new LongObjectHashMap<>();  // by sequence number, unboxed
    private CollectiveBox recent;  // the box last looked up: found without boxing its sequence number
    private volatile long nextSequence;   // written under the lock; read without it
    private boolean cleared;              // the group closed: every later frame is released on arrival (under the lock)
    /** Set by {@link #failAll} (the group aborted or closed): a box opened later fails at once with it (under the lock). */
    private Function<CollectiveBox, CollectiveException> shut;

    /**
     * @param maxUnclaimed byte budget of frames that arrived before they were asked for
     * @param onPressure   called (outside the lock) when the budget is exceeded: stop reading
     * @param onRelief     called when the total fell under half the budget again: resume reading
     */
    public Mailbox(long maxUnclaimed, Runnable onPressure, Runnable onRelief) {
        this.unclaimed = new UnclaimedBudget(maxUnclaimed);
        this.onPressure = onPressure;
        this.onRelief = onRelief;
    }

    /**
     * Starts a local collective: assigns the next sequence number and returns its box (adopting
     * frames that arrived early). A collective a peer already aborted gets a box that fails at
     * once, with {@code abortError} making the error.
     */
    public CollectiveBox open(String op) {
        return open(op, 0L, 0L, System.nanoTime());
    }

    /**
     * {@link #open(String)} for a collective whose DATA frames are checked against (word, count)
     * (see {@link #disagreement}), opened at {@code nowNanos} ({@link System#nanoTime()}, the
     * caller's one clock reading for the collective).
     *
     * <p>What arrived before the box was opened (early frames' agreement and receipts owed, a
     * peer's abort) is written only while the box has no owner, under this lock: once this call
     * returns it no longer changes, so {@link CollectiveBox#earlyDisagreement}, {@link CollectiveBox#takeOwedAcks} and
     * {@link #pendingAbort} read it without the lock (on the opening thread, or one that the
     * subscription handed over to).
     */
    public CollectiveBox open(String op, long word, long count, long nowNanos) {
        return open(op, word, count, nowNanos, 0);
    }

    /**
     * {@link #open(String, long, long, long)} for a collective with a timeout of {@code timeoutNanos}
     * (0: unknown), which the wait reports give ({@link #stalled}).
     */
    public CollectiveBox open(String op, long word, long count, long nowNanos, long timeoutNanos) {
        CollectiveBox box;
        Function<CollectiveBox, CollectiveException> failed;
        synchronized (this) {
            failed = shut;
            long seq = nextSequence;
            nextSequence = seq + 1;
            box = boxOf(seq);
            if (box == null) {
                box = new CollectiveBox(seq);
                boxes.put(seq, box);
            }
            box.op = op;
            box.openedNanos = nowNanos;
            box.timeoutNanos = timeoutNanos;
            box.word = word;
            box.count = count;
        }
        if (failed != null) {   // passed the group's checks just before failAll: fails as those in flight did
            fail(box, failed.apply(box));
        }
        return box;
    }

    /** A receipt from {@code source} for collective {@code seq} (see {@link Receipts}). */
    public void ack(long seq, int source) {
        CollectiveBox box;
        synchronized (this) {
            box = boxOf(seq);
        }
        if (box != null && box.op != null) {
            Receipts.received(box, source);
        }
    }

    /** Completes once every one of {@code peers} sent a receipt for {@code box}'s collective, or fails with the box. */
    public Mono<Void> awaitAcks(CollectiveBox box, java.util.BitSet peers) {
        return Receipts.await(box, peers);
    }

    /** Sequence number the next collective will get. */
    public long nextSequence() {
        return nextSequence;
    }

    /**
     * The error for a peer's abort of this box's collective that arrived before the collective
     * started here (call after {@link #open}), or null when no peer aborted it.
     */
    public CollectiveException pendingAbort(CollectiveBox box) {
        Function<CollectiveBox, CollectiveException> f = box.pendingAbort;
        return f == null ? null : f.apply(box);
    }

    /**
     * A receive of (tag, step, chunk) from {@code source} in {@code box}'s collective: emits the
     * payload (the subscriber releases it) or the box's failure, and tells {@code hooks} when it
     * waits and receives.
     *
     * @param box    the collective's box
     * @param tag    the sub-operation
     * @param step   the algorithm's step
     * @param chunk  the piece of the step
     * @param source the sending rank
     * @param hooks  told when the receive waits and receives
     * @return the receive
     */
    public Mono<ByteBuf> receive(CollectiveBox box, int tag, int step, int chunk, int source, ReceiveHooks hooks) {
        return new MailboxReceive(this, box, tag, step, chunk, source, hooks, false);
    }

    /**
     * {@link #receive(CollectiveBox, int, int, int, int, ReceiveHooks)} for a subscriber that requests on
     * subscribe and finishes with the payload, releasing it, inside {@code onNext}: a payload that
     * arrives while it waits may then be {@linkplain LentBuffer lent} (the transport's memory, valid
     * for that call only) instead of copied.
     *
     * @return the receive
     */
    public Mono<ByteBuf> receiveLent(CollectiveBox box, int tag, int step, int chunk, int source, ReceiveHooks hooks) {
        return new MailboxReceive(this, box, tag, step, chunk, source, hooks, true);
    }

    /** A subscribed receive: takes the payload that arrived, or waits in its slot, or fails with the box. */
    void claim(MailboxReceive.Waiter w) {
        CollectiveBox box = w.r.box;
        ByteBuf ready = null;
        CollectiveException fail = null;
        boolean relief = false;
        synchronized (this) {
            if (box.failure != null) {
                fail = box.failure;
            } else {
                MailboxReceive r = w.r;
                Object slot = box.slots.get(r.tag, r.step, r.chunk, r.source);
                if (slot instanceof ByteBuf) {
                    box.slots.remove(r.tag, r.step, r.chunk, r.source);
                    ready = (ByteBuf) slot;
                    unclaimed.remove(ready);
                    relief = unclaimed.relieved();
                } else if (slot == null) {
                    if (w.state != MailboxReceive.Waiter.DONE) {
                        w.slotted = true;
                        box.slots.put(r.tag, r.step, r.chunk, r.source, w);
                        box.waitingOn = r.source;
                        box.waitingTag = r.tag;
                        box.waitingStep = r.step;
                        box.waitingChunk = r.chunk;
                    }
                } else {
                    fail = new CollectiveException(box.op, -1, box.sequence, r.source, "internal error: two receives of step "
                            + r.step + " chunk " + r.chunk + " from rank " + r.source, null);
                }
            }
        }
        if (relief) {
            onRelief.run();
        }
        if (fail != null) {
            w.error(fail);
        } else if (ready != null) {
            w.success(ready);
        }
    }

    /** A cancelled receive leaves its slot. */
    synchronized void forget(MailboxReceive.Waiter w) {
        if (w.slotted) {
            MailboxReceive r = w.r;
            r.box.slots.removeIfHolds(r.tag, r.step, r.chunk, r.source, w);
        }
    }

    /**
     * Hands an inbound DATA payload to its receive or keeps it until asked for; takes ownership of
     * {@code payload}. Frames of collectives that already finished here (after an abort) are dropped;
     * a duplicate is a protocol violation ({@link Delivery#violation()}: the caller closes the
     * connection). The frame carries an agreement (word, count): a frame that disagrees with the
     * running local collective is released and reported ({@link Delivery#disagrees()}: the caller
     * fails the collective); one that arrives before the collective opened is kept and checked at
     * {@link #disagreement}. A frame whose word asks for a receipt ({@link CollectiveBox#ACK_REQUESTED})
     * is acknowledged through {@code receipts} before the payload goes to its receive (the sender
     * learns of the agreement without waiting for what the receiver does next with the data) or,
     * early, by the collective once it opened ({@link CollectiveBox#takeOwedAcks}).
     */
    public Delivery deliver(long seq, int tag, int step, int chunk, int source, long word, long count, ByteBuf payload,
                            ReceiptSender receipts) {
        MailboxReceive.Waiter waiter = null;
        boolean pressure = false;
        String violation = null;
        boolean ackNow = false;
        synchronized (this) {
            if (cleared) {
                payload.release();      // the group closed: a frame still on its way is nobody's
                return Delivery.OK;
            }
            CollectiveBox box = boxOf(seq);
            if (box == null) {
                if (seq < nextSequence || seq < 0) {
                    payload.release();  // stale: that collective ended here (aborted)
                    return Delivery.OK;
                }
                box = new CollectiveBox(seq);
                boxes.put(seq, box);
            }
            if (box.failure != null || box.pendingAbort != null) {
                payload.release();
                return Delivery.OK;
            }
            if (box.op != null && box.disagrees(word, count)) {
                payload.release();
                return Delivery.DISAGREES;
            }
            ChunkConflict chunkConflict = box.chunkFrame(tag, source, word);
            if (chunkConflict != null) {
                payload.release();
                return new Delivery(null, true, chunkConflict);
            }
            if (box.op == null && word != 0) {
                box.noteEarly(source, word, count);
            } else if ((word & CollectiveBox.ACK_REQUESTED) != 0) {
                ackNow = true;
            }
            Object slot = box.slots.get(tag, step, chunk, source);
            if (slot == null) {
                payload = LentBuffer.keep(payload);     // stored past this call: not the transport's memory
                box.slots.put(tag, step, chunk, source, payload);
                pressure = unclaimed.add(payload);
            } else if (slot instanceof ByteBuf) {
                violation = "duplicate frame (seq " + seq + " tag " + tag + " step " + step + " chunk " + chunk + ")";
                payload.release();
            } else {
                box.slots.remove(tag, step, chunk, source);
                waiter = (MailboxReceive.Waiter) slot;
            }
        }
        if (pressure) {
            onPressure.run();
        }
        if (violation != null) {
            return new Delivery(violation, false);
        }
        if (ackNow) {
            receipts.acknowledge(source, seq);
        }
        if (waiter != null) {
            waiter.success(waiter.borrowsNow() ? payload : LentBuffer.keep(payload));
        }
        return Delivery.OK;
    }

    /**
     * A peer aborted collective {@code seq}: fails it here if it runs (with the exception
     * {@code error} makes from the op name), or remembers the abort for when it starts.
     */
    public void abortFromPeer(long seq, Function<CollectiveBox, CollectiveException> error) {
        CollectiveBox box;
        synchronized (this) {
            box = boxOf(seq);
            if (box == null) {
                if (seq < nextSequence || seq < 0 || cleared) {
                    return;
                }
                box = new CollectiveBox(seq);
                boxes.put(seq, box);
            }
            if (box.op == null) {
                if (box.pendingAbort == null) {
                    box.pendingAbort = error;
                    releaseSlots(box);
                }
                return;
            }
        }
        fail(box, error.apply(box));
    }

    /** Fails {@code box}'s collective: pending and later receives error with {@code e}; buffered frames are released. */
    public void fail(CollectiveBox box, CollectiveException e) {
        List<MailboxReceive.Waiter> waiters;
        boolean relief;
        synchronized (this) {
            if (box.failure != null) {
                return;
            }
            box.failure = e;
            waiters = releaseSlots(box);

            relief = unclaimed.relieved();
        }
        if (relief) {
            onRelief.run();
        }
        for (MailboxReceive.Waiter w : waiters) {
            w.error(e);
        }
        Receipts.fail(box, e);
    }

    /**
     * Fails every collective that runs locally, with the exception {@code error} makes for it, and
     * every collective that opens its box later (the group is ending: aborted or closed).
     */
    public void failAll(Function<CollectiveBox, CollectiveException> error) {
        synchronized (this) {
            if (shut == null) {
                shut = error;
            }
        }
        failFrom(Long.MIN_VALUE, error);
    }

    /** Fails every collective with sequence {@code from} or later that runs locally. */
    public void failFrom(long from, Function<CollectiveBox, CollectiveException> error) {
        List<CollectiveBox> owned = new ArrayList<>();
        synchronized (this) {
            for (CollectiveBox b : boxes.values()) {
                if (b.op != null && b.sequence >= from) {
                    owned.add(b);
                }
            }
        }
        for (CollectiveBox b : owned) {
            fail(b, error.apply(b));
        }
    }

    /** The local collective of {@code box} ended: forget it and release what it left. */
    public void close(CollectiveBox box) {
        boolean relief;
        synchronized (this) {
            boxes.remove(box.sequence);
            if (recent == box) {
                recent = null;
            }
            releaseSlots(box);
            relief = unclaimed.relieved();
        }
        if (relief) {
            onRelief.run();
        }
    }

    /** Releases everything (group closed); a frame delivered later is released at once. */
    public synchronized void clear() {
        cleared = true;
        for (CollectiveBox b : boxes.values()) {
            releaseSlots(b);
        }
        boxes.clear();
        recent = null;
    }

    /** The local collective of {@code box} ended here (before its result goes downstream). */
    public void ended(CollectiveBox box) {
        box.ended = true;
    }

    /** The lowest sequence number of a collective running here, or the next one when none runs. */
    public synchronized long lowestRunning() {
        long low = nextSequence;
        for (CollectiveBox b : boxes.values()) {
            if (b.op != null && !b.ended && b.sequence < low) {
                low = b.sequence;
            }
        }
        return low;
    }

    /**
     * The local collectives that have run for at least {@code minNanos} at {@code nowNanos} and not
     * ended, oldest first, with whom each waits for: a snapshot for the wait reports, taken under the lock.
     */
    public synchronized List<Stall> stalled(long minNanos, long nowNanos) {
        return Stall.of(boxes.values(), minNanos, nowNanos);
    }

    /** Bytes of frames waiting unclaimed. */
    public synchronized long unclaimedBytes() {
        return unclaimed.bytes();
    }

    /** Collectives with state here (running locally or with early frames). */
    public synchronized int openBoxes() {
        return boxes.size();
    }

    /** The box of collective {@code seq}, or null; under the lock. */
    private CollectiveBox boxOf(long seq) {
        CollectiveBox b = recent;
        if (b == null || b.sequence != seq) {
            b = boxes.get(seq);
            recent = b != null ? b : recent;
        }
        return b;
    }

    private List<MailboxReceive.Waiter> releaseSlots(CollectiveBox box) {
        if (box.slots.isEmpty()) {
            return List.of();
        }
        List<MailboxReceive.Waiter> waiters = new ArrayList<>();
        box.slots.drain(v -> {
            if (v instanceof ByteBuf) {
                unclaimed.remove((ByteBuf) v);
                ((ByteBuf) v).release();
            } else {
                waiters.add((MailboxReceive.Waiter) v);
            }
        });
        return waiters;
    }

    /**
     * The byte budget of frames that arrived before a receive asked for them: over the budget the
     * inbound connections stop reading; once the total is under half of it again they resume. Only
     * the bookkeeping: the mailbox calls it under its lock and runs the pressure and relief
     * callbacks outside it.
     */
    private static final class UnclaimedBudget {

        /** Bytes a frame counts for at least, so that empty frames are bounded too. */
        private static final int MIN_FRAME_COST = 64;

        private final long max;
        private long bytes;
        private boolean paused;

        UnclaimedBudget(long max) {
            this.max = max;
        }

        /** Counts a frame left waiting; true when this crosses the budget (stop reading now). */
        boolean add(ByteBuf frame) {
            bytes += cost(frame);
            if (!paused && bytes > max) {
                paused = true;
                return true;
            }
            return false;
        }

        /** A waiting frame was claimed or released. */
        void remove(ByteBuf frame) {
            bytes -= cost(frame);
        }

        /** True, once, when reading was paused and the total is now under half the budget (resume). */
        boolean relieved() {
            if (paused && bytes < max / 2) {
                paused = false;
                return true;
            }
            return false;
        }

        /** Bytes of frames waiting. */
        long bytes() {
            return bytes;
        }

        private static long cost(ByteBuf b) {
            return Math.max(MIN_FRAME_COST, b.readableBytes());
        }
    }
}
