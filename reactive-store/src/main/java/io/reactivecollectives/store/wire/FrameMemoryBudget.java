package io.reactivecollectives.store.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory that incomplete frames may hold across every connection of one server, so what a
 * server buffers never grows with what clients announce or send. A {@link LengthPrefixedDecoder}
 * with a budget reserves a frame's whole declared length before it allocates anything for it;
 * when the budget cannot cover it, that connection stops reading (back-pressure through TCP) and
 * waits in line until frames of other connections complete or their connections close and return
 * their reservations. Reservations are all-or-nothing, so two half-arrived frames can never wait
 * for each other; a client that stalls while holding a reservation is closed by the decoder's frame
 * timeout, which returns it.
 *
 * <p>Large frames are assembled from this budget's own chunks ({@link #CHUNK} bytes of direct
 * memory each, reused by every connection and event loop): as reservations bound the chunks in use,
 * the chunks ever allocated stay within the budget too, so the process's memory does not grow past
 * it however often connections come and go (a pooled allocator would keep what one event loop
 * freed for that loop alone).
 *
 * <p>Thread-safe: connections on different event loops share one budget; a waiting connection is
 * resumed on its own event loop.
 */
public final class FrameMemoryBudget {

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ByteBuffer> chunks = new ConcurrentLinkedQueue<>();
    private final AtomicLong chunksAllocated = new AtomicLong();

    /** The size of the chunks large frames are assembled from. */
    public static final int CHUNK = 64 * 1024;

    /** A budget of {@code limit} bytes (at least 1). */
    public FrameMemoryBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("frame memory budget must be at least 1 byte, was " + limit);
        }
        this.limit = limit;
    }

    /** The budget, in bytes. */
    public long limit() {
        return limit;
    }

    /** Bytes reserved by incomplete frames now. */
    public long used() {
        return used.get();
    }

    /** The most bytes reserved at once so far. */
    public long peak() {
        return peak.get();
    }

    /** Bytes of chunks allocated so far (in use or free for reuse): at most the budget, rounded up to a chunk. */
    public long chunkMemory() {
        return chunksAllocated.get() * CHUNK;
    }

    /**
     * A buffer of {@code size} bytes (at most {@link #CHUNK}) on one of this budget's chunks, which
     * goes back to the budget's free chunks when the buffer is released. Call only for bytes
     * reserved.
     */
    ByteBuf chunk(ByteBufAllocator alloc, int size) {
        ByteBuffer whole = chunks.poll();
        if (whole == null) {
            whole = ByteBuffer.allocateDirect(CHUNK);
            chunksAllocated.incrementAndGet();
        }
        whole.clear().limit(size);
        return new Chunk(alloc, whole, this);
    }

    /** A buffer on a chunk: released, it returns the chunk to the budget instead of freeing it. */
    private static final class Chunk extends UnpooledDirectByteBuf {
        private final ByteBuffer whole;
        private final FrameMemoryBudget home;

        Chunk(ByteBufAllocator alloc, ByteBuffer whole, FrameMemoryBudget home) {
            super(alloc, whole.slice(), whole.limit()); // a wrapped buffer: never freed by Netty
            this.whole = whole;
            this.home = home;
            writerIndex(0);
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            home.chunks.offer(whole);
        }
    }

    /** Connections waiting for the budget now. */
    public int waiting() {
        return waiting.size();
    }

    /** Reserves {@code bytes} if the budget has them; all or nothing. */
    boolean tryReserve(long bytes) {
        long now;
        do {
            now = used.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!used.compareAndSet(now, now + bytes));
        peak.accumulateAndGet(now + bytes, Math::max);
        return true;
    }

    /**
     * Queues {@code retry}, the retry of a reservation of {@code bytes} that did not fit, to run when
     * reservations are returned (it runs once; it may queue itself again).
     */
    void await(long bytes, Runnable retry) {
        waiting.add(retry);
        if (used.get() + bytes <= limit) {
            wake(); // enough was returned between the failed reservation and queueing up
        }
    }

    /** Drops a queued retry (its connection closed). */
    void cancel(Runnable retry) {
        waiting.remove(retry);
    }

    /** Returns {@code bytes} to the budget and lets the connections waiting for it try again. */
    void release(long bytes) {
        if (bytes > 0) {
            used.addAndGet(-bytes);
            wake();
        }
    }

    private void wake() {
        // each waiter retries on its own event loop; one that still does not fit queues itself again
        int n = waiting.size();
        Runnable r;
        while (n-- > 0 && (r = waiting.poll()) != null) {
            r.run();
        }
    }
}
