package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
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
    private volatile boolean stalled;
    private volatile Throwable failure;

    ShmOutbound(ShmSegment segment, int producer, int consumer) {
        this.segment = segment;
        this.ring = segment.ring(producer, consumer);
        this.consumer = consumer;
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
        int missed = 1;
        for (;;) {
            drainOnce();
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
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
