package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.core.CollectiveException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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

    /** Bytes a frame counts for at least, so that empty frames are bounded too. */
    private static final int MIN_FRAME_COST = 64;

    /** One collective's slots. */
    public static final class Box {
        final long sequence;
        String op;                      // null while no local collective owns it
        final HashMap<Key, Object> slots = new HashMap<>(); // Key -> ByteBuf (arrived) | MonoSink (waiting)
        CollectiveException failure;    // once failed, every receive fails with it
        Function<Box, CollectiveException> pendingAbort; // a peer's ABORT that came before the local collective started
        long openedNanos;               // when the local collective opened the box
        volatile int waitingOn = -1;    // the peer of the latest receive, for timeout messages
        volatile long waitingKey;       // tag, step, chunk of that receive (packed; the text is made on demand)

        Box(long sequence) {
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

        /** A description of what it last waited for. */
        public String waitingWhat() {
            if (waitingOn < 0) {
                return null;
            }
            long k = waitingKey;
            return "tag " + (int) (k >>> 40) + " step " + (int) ((k >>> 20) & 0xFFFFF) + " chunk " + (int) (k & 0xFFFFF);
        }
    }

    record Key(int tag, int step, int chunk, int source) {
    }

    private final long maxUnclaimed;
    private final Runnable onPressure;
    private final Runnable onRelief;
    private final HashMap<Long, Box> boxes = new HashMap<>();
    private long nextSequence;
    private long unclaimed;
    private boolean paused;

    /**
     * @param maxUnclaimed byte budget of frames that arrived before they were asked for
     * @param onPressure   called (outside the lock) when the budget is exceeded: stop reading
     * @param onRelief     called when the total fell under half the budget again: resume reading
     */
    public Mailbox(long maxUnclaimed, Runnable onPressure, Runnable onRelief) {
        this.maxUnclaimed = maxUnclaimed;
        this.onPressure = onPressure;
        this.onRelief = onRelief;
    }

    /**
     * Starts a local collective: assigns the next sequence number and returns its box (adopting
     * frames that arrived early). A collective a peer already aborted gets a box that fails at
     * once, with {@code abortError} making the error.
     */
    public synchronized Box open(String op) {
        long seq = nextSequence++;
        Box box = boxes.computeIfAbsent(seq, Box::new);
        box.op = op;
        box.openedNanos = System.nanoTime();
        return box;
    }

    /** Sequence number the next collective will get. */
    public synchronized long nextSequence() {
        return nextSequence;
    }

    /**
     * The error for a peer's abort of this box's collective that arrived before the collective
     * started here (call after {@link #open}), or null when no peer aborted it.
     */
    public CollectiveException pendingAbort(Box box) {
        Function<Box, CollectiveException> f;
        synchronized (this) {
            f = box.pendingAbort;
        }
        return f == null ? null : f.apply(box);
    }

    /**
     * A receive of (tag, step, chunk) from {@code source} in {@code box}'s collective: emits the
     * payload (the subscriber releases it) or the box's failure.
     */
    public Mono<ByteBuf> receive(Box box, int tag, int step, int chunk, int source) {
        Key key = new Key(tag, step, chunk, source);
        return Mono.<ByteBuf>create(sink -> {
            ByteBuf ready = null;
            CollectiveException fail = null;
            boolean relief = false;
            synchronized (this) {
                if (box.failure != null) {
                    fail = box.failure;
                } else {
                    Object slot = box.slots.get(key);
                    if (slot instanceof ByteBuf) {
                        box.slots.remove(key);
                        ready = (ByteBuf) slot;
                        unclaimed -= cost(ready);
                        if (paused && unclaimed < maxUnclaimed / 2) {
                            paused = false;
                            relief = true;
                        }
                    } else if (slot == null) {
                        box.slots.put(key, sink);
                        box.waitingOn = source;
                        box.waitingKey = ((long) tag << 40) | ((long) (step & 0xFFFFF) << 20) | (chunk & 0xFFFFF);
                    } else {
                        fail = new CollectiveException(box.op, -1, box.sequence, source,
                                "internal error: two receives of step " + step + " chunk " + chunk + " from rank " + source, null);
                    }
                }
            }
            if (relief) {
                onRelief.run();
            }
            if (fail != null) {
                sink.error(fail);
            } else if (ready != null) {
                sink.success(ready);
            } else {
                sink.onCancel(() -> {
                    synchronized (this) {
                        if (box.slots.get(key) == sink) {
                            box.slots.remove(key);
                        }
                    }
                });
            }
        }).doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease);
    }

    /**
     * Hands an inbound DATA payload to its receive or keeps it until asked for; takes ownership of
     * {@code payload}. Frames of collectives that already finished here (after an abort) are dropped.
     *
     * @return an error message when the frame is a protocol violation (the caller closes the connection), else null
     */
    @SuppressWarnings("unchecked")
    public String deliver(long seq, int tag, int step, int chunk, int source, ByteBuf payload) {
        MonoSink<ByteBuf> waiter = null;
        boolean pressure = false;
        String violation = null;
        synchronized (this) {
            Box box = boxes.get(seq);
            if (box == null) {
                if (seq < nextSequence || seq < 0) {
                    payload.release();  // stale: that collective ended here (aborted)
                    return null;
                }
                box = new Box(seq);
                boxes.put(seq, box);
            }
            if (box.failure != null || box.pendingAbort != null) {
                payload.release();
                return null;
            }
            Key key = new Key(tag, step, chunk, source);
            Object slot = box.slots.get(key);
            if (slot == null) {
                box.slots.put(key, payload);
                unclaimed += cost(payload);
                if (!paused && unclaimed > maxUnclaimed) {
                    paused = true;
                    pressure = true;
                }
            } else if (slot instanceof ByteBuf) {
                violation = "duplicate frame (seq " + seq + " tag " + tag + " step " + step + " chunk " + chunk + ")";
                payload.release();
            } else {
                box.slots.remove(key);
                waiter = (MonoSink<ByteBuf>) slot;
            }
        }
        if (pressure) {
            onPressure.run();
        }
        if (waiter != null) {
            waiter.success(payload);
        }
        return violation;
    }

    /**
     * A peer aborted collective {@code seq}: fails it here if it runs (with the exception
     * {@code error} makes from the op name), or remembers the abort for when it starts.
     */
    public void abortFromPeer(long seq, Function<Box, CollectiveException> error) {
        Box box;
        synchronized (this) {
            box = boxes.get(seq);
            if (box == null) {
                if (seq < nextSequence || seq < 0) {
                    return;
                }
                box = new Box(seq);
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
    public void fail(Box box, CollectiveException e) {
        List<MonoSink<ByteBuf>> waiters;
        boolean relief;
        synchronized (this) {
            if (box.failure != null) {
                return;
            }
            box.failure = e;
            waiters = releaseSlots(box);
            relief = paused && unclaimed < maxUnclaimed / 2;
            if (relief) {
                paused = false;
            }
        }
        if (relief) {
            onRelief.run();
        }
        for (MonoSink<ByteBuf> w : waiters) {
            w.error(e);
        }
    }

    /** Fails every collective that runs locally, with the exception {@code error} makes for it. */
    public void failAll(Function<Box, CollectiveException> error) {
        List<Box> owned = new ArrayList<>();
        synchronized (this) {
            for (Box b : boxes.values()) {
                if (b.op != null) {
                    owned.add(b);
                }
            }
        }
        for (Box b : owned) {
            fail(b, error.apply(b));
        }
    }

    /** The local collective of {@code box} ended: forget it and release what it left. */
    public void close(Box box) {
        boolean relief;
        synchronized (this) {
            boxes.remove(box.sequence);
            releaseSlots(box);
            relief = paused && unclaimed < maxUnclaimed / 2;
            if (relief) {
                paused = false;
            }
        }
        if (relief) {
            onRelief.run();
        }
    }

    /** Releases everything (group closed). */
    public synchronized void clear() {
        for (Box b : boxes.values()) {
            releaseSlots(b);
        }
        boxes.clear();
    }

    /** Bytes of frames waiting unclaimed. */
    public synchronized long unclaimedBytes() {
        return unclaimed;
    }

    /** Collectives with state here (running locally or with early frames). */
    public synchronized int openBoxes() {
        return boxes.size();
    }

    @SuppressWarnings("unchecked")
    private List<MonoSink<ByteBuf>> releaseSlots(Box box) {
        List<MonoSink<ByteBuf>> waiters = new ArrayList<>();
        for (Iterator<Map.Entry<Key, Object>> it = box.slots.entrySet().iterator(); it.hasNext(); ) {
            Object v = it.next().getValue();
            if (v instanceof ByteBuf) {
                unclaimed -= cost((ByteBuf) v);
                ((ByteBuf) v).release();
            } else {
                waiters.add((MonoSink<ByteBuf>) v);
            }
            it.remove();
        }
        return waiters;
    }

    private static long cost(ByteBuf b) {
        return Math.max(MIN_FRAME_COST, b.readableBytes());
    }
}
