package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import reactor.util.concurrent.Queues;

import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sending end of one {@link ShmRing}: any thread may write; one at a time copies into the ring
 * (a work-in-progress counter, Reactor's drain loop), so the ring has a single producer and the
 * buffers of one write (a header and its payload, or all the fragments of a message) stay
 * contiguous in the stream. A write completes its promise once its last byte is in the ring, and
 * its buffers are released then. When the ring is full the writer marks it waiting and returns;
 * the consumer wakes this rank's {@link ShmPoller} once it freed space, and the poller goes on.
 *
 * <p>A frame written while nothing else is queued or being written, and that fits in the ring,
 * goes straight in on the calling thread ({@link #tryWriteFrame}): its header is encoded into an
 * array this end reuses, and nothing is queued, allocated or completed for it. That is the path
 * of every small message (a barrier's, a 4 B all-reduce's), where each of those steps shows.
 */
public final class ShmOutbound {

    private final ShmRing ring;
    private final ShmSegment segment;
    private final int consumer;
    private final Queue<Write> queue = Queues.<Write>unboundedMultiproducer().get();
    private final AtomicInteger wip = new AtomicInteger();
    /** Only the drainer touches these. */
    private Write current;
    private int part;
    private int offset;
    /** Bytes copied into the ring so far. */
    private long copied;
    /** The header of a frame written at once ({@link #tryWriteFrame}), and a buffer over it for the copy; only the drainer touches them. */
    private final byte[] header = new byte[FrameCodec.PREFIXED_HEADER];
    private final ByteBuf headerView = Unpooled.wrappedBuffer(header);
    private volatile boolean stalled;
    private volatile Throwable failure;
    /** Whether the ring's data is taken from the host's budget: 0 not yet asked, 1 yes, -1 refused. */
    private volatile int reserved;

    ShmOutbound(ShmSegment segment, int producer, int consumer) {
        this.segment = segment;
        this.ring = segment.ring(producer, consumer);
        this.consumer = consumer;
    }

    /**
     * Takes the ring's data bytes from the host's budget ({@link ShmSegment#reserveRing()}) the first
     * time a sender asks; the same answer every time after.
     *
     * @return false when the budget cannot hold the ring: nothing may be written to it
     */
    public boolean reserve() {
        int r = reserved;
        if (r != 0) {
            return r > 0;
        }
        synchronized (this) {
            if (reserved == 0) {
                reserved = segment.reserveRing() ? 1 : -1;
            }
            return reserved > 0;
        }
    }

    /**
     * Whether the host's budget refused the ring (asking nothing of it).
     *
     * @return true once {@link #reserve()} said no
     */
    public boolean refused() {
        return reserved < 0;
    }

    /**
     * Queues {@code parts} (ownership taken) to be written in order, contiguously; {@code promise}
     * (may be null) completes when the last byte is in the ring, or fails with the link's failure.
     *
     * @param parts   buffers to write, released once written or on failure
     * @param promise completed when written
     */
    public void write(ByteBuf[] parts, Promise<Void> promise) {
        Throwable f = failure;
        if (f != null) {
            for (ByteBuf b : parts) {
                ReferenceCountUtil.safeRelease(b);
            }
            if (promise != null) {
                promise.tryFailure(f);
            }
            return;
        }
        queue.offer(new Write(parts, promise));
        drain();
    }

    /**
     * Writes one frame (its header from these fields, then {@code payload}) into the ring at once
     * when no other write is queued or under way and the whole frame fits; else writes nothing.
     *
     * @param type           the frame's type
     * @param group          the group's id hash
     * @param seq            the collective's sequence number
     * @param tag            the tag
     * @param step           the algorithm's step
     * @param chunk          the chunk
     * @param source         the sending rank
     * @param agreementWord  the agreement word
     * @param agreementCount the agreement count
     * @param payload        the payload, released when written (left to the caller when not)
     * @return true when the frame is in the ring (and {@code payload} released); false when the
     *         caller must {@link #write} it
     * @throws RuntimeException when copying {@code payload} failed (nothing of the frame was
     *         written; {@code payload} is released)
     */
    public boolean tryWriteFrame(FrameType type, int group, long seq, int tag, int step, int chunk, int source,
                                 long agreementWord, long agreementCount, ByteBuf payload) {
        if (!wip.compareAndSet(0, 1)) {
            return false;   // another thread writes now: queue behind it
        }
        boolean written;
        try {
            written = current == null && queue.isEmpty() && failure == null
                    && copyFrame(type, group, seq, tag, step, chunk, source, agreementWord, agreementCount, payload);
        } catch (RuntimeException e) {
            ReferenceCountUtil.safeRelease(payload);
            throw e;
        } finally {
            drainMissed(1);   // writes queued meanwhile (or a failure) are this thread's to go on with
        }
        if (written) {
            payload.release();
        }
        return written;
    }

    /**
     * {@link #tryWriteFrame}'s copy, holding the drain: all of the frame, or none of it when the
     * segment is closing, the frame does not fit or a copy fails.
     */
    private boolean copyFrame(FrameType type, int group, long seq, int tag, int step, int chunk, int source,
                              long agreementWord, long agreementCount, ByteBuf payload) {
        int len = payload.readableBytes();
        if (!segment.retain()) {
            return false;
        }
        try {
            if (!ring.fits(FrameCodec.PREFIXED_HEADER + len)) {
                return false;
            }
            FrameCodec.encodeHeaderInto(header, type, group, seq, tag, step, chunk, source, agreementWord,
                    agreementCount, len);
            boolean whole = false;
            try {
                ring.write(headerView, 0, FrameCodec.PREFIXED_HEADER);
                ring.write(payload, payload.readerIndex(), len);
                whole = true;
            } finally {
                if (!whole) {
                    ring.unwrite();   // a header without its payload never reaches the consumer
                }
            }
            ring.publish();
            segment.wake(consumer);
            return true;
        } finally {
            segment.release();
        }
    }

    /** Whether a write waits for the consumer to free space. */
    boolean stalled() {
        return stalled;
    }

    /** Whether a stalled write could go on now (the consumer freed space). */
    boolean resumable() {
        return stalled && ring.free() > 0;
    }

    /**
     * Fails every queued write and every later one with {@code why} (the link closed).
     *
     * @param why the cause the writes fail with
     */
    public void fail(Throwable why) {
        if (failure == null) {
            failure = why;
        }
        drain();
    }

    /** Copies what it can of the queued writes into the ring (any thread; one drains at a time). */
    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        drainOnce();
        drainMissed(1);
    }

    /** Leaves the drain after a pass that saw {@code missed} requests; drains again for those that came meanwhile. */
    private void drainMissed(int missed) {
        for (;;) {
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
            drainOnce();
        }
    }

    /** One pass; wakes the consumer when it wrote anything. */
    private void drainOnce() {
        boolean wrote = false;
        if (!segment.retain()) {
            failAll(failure != null ? failure : new IllegalStateException("shared memory closed"));
            return;
        }
        try {
            for (;;) {
                Throwable f = failure;
                if (f != null) {
                    failAll(f);
                    return;
                }
                Write w = current;
                if (w == null) {
                    w = queue.poll();
                    if (w == null) {
                        stalled = false;
                        return;
                    }
                    current = w;
                    part = 0;
                    offset = 0;
                }
                long before = copied;
                boolean done = copy(w);
                if (!done) {
                    ring.publish();   // the consumer frees space only from what it sees
                    ring.markWaiting();
                    done = copy(w);  // the consumer may have freed space before it saw the mark
                }
                wrote |= copied != before;
                if (!done) {
                    stalled = true;
                    return;
                }
                ring.publish();       // the whole frame (header and payload) at once
                current = null;
                w.succeed();
            }
        } finally {
            if (wrote) {
                ring.publish();
                segment.wake(consumer);
            }
            segment.release();
        }
    }

    /** Copies the rest of {@code w}; true when all of it is in the ring. */
    private boolean copy(Write w) {
        ByteBuf[] parts = w.parts;
        while (part < parts.length) {
            ByteBuf b = parts[part];
            int len = b.readableBytes() - offset;
            int n = len == 0 ? 0 : ring.write(b, b.readerIndex() + offset, len);
            offset += n;
            copied += n;
            if (n < len) {
                return false;
            }
            part++;
            offset = 0;
        }
        return true;
    }

    private void failAll(Throwable f) {
        stalled = false;
        Write w = current;
        current = null;
        if (w != null) {
            w.fail(f);
        }
        while ((w = queue.poll()) != null) {
            w.fail(f);
        }
    }

    private static final class Write {
        final ByteBuf[] parts;
        final Promise<Void> promise;

        Write(ByteBuf[] parts, Promise<Void> promise) {
            this.parts = parts;
            this.promise = promise;
        }

        void succeed() {
            release();
            if (promise != null) {
                promise.trySuccess(null);
            }
        }

        void fail(Throwable f) {
            release();
            if (promise != null) {
                promise.tryFailure(f);
            }
        }

        private void release() {
            for (ByteBuf b : parts) {
                ReferenceCountUtil.safeRelease(b);
            }
        }
    }
}
