package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.transport.settings.TransportSettings;
import io.reactivecollectives.transport.wire.LentBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of one {@link ShmRing}, read by this rank's {@link ShmPoller} alone: splits the
 * byte stream into frames by their length prefix (as the socket decoder does) and hands every whole
 * frame, without its length field, straight to the {@link ShmFrames}, with the peer's rank. A length
 * out of bounds stops this ring for good and reports it.
 *
 * <p>A frame of at least {@link #LEND_BYTES} (by default) that fits in the ring is {@linkplain LentBuffer lent}
 * where it lies once all of it has arrived (in two pieces when it wraps around the ring's end): the
 * receiver reduces or copies it straight out of the shared memory (the segments of large
 * collectives), and its space is handed back when the call returns. Other frames (small, or larger
 * than the ring) are copied into a buffer of their exact size as their bytes arrive, freeing ring
 * space at once, so a frame larger than the ring streams through it. A lent frame still held after
 * the call (a receiver that broke the contract) holds the ring until it is released.
 */
final class ShmInbound {

    private final ShmRing ring;
    private final ShmSegment segment;
    private final int producer;
    private final ByteBufAllocator alloc;
    private final int minLength;
    private final int maxLength;
    /** The group rank of the producer, which {@link #frames} hears the frames from. */
    private final int peer;
    /** Where whole frames go, straight (each frame ownership passed; it may be {@linkplain LentBuffer lent}). */
    private final ShmFrames frames;
    private final int lendBytes;
    private ByteBuf partial;
    private int remaining;
    private boolean broken;
    private ByteBuf held;       // a lent frame its receiver did not release in the call (its capacity is its length)

    /**
     * The reader of the ring from local rank {@code producer} to {@code consumer}.
     *
     * @param segment   the segment holding the ring
     * @param producer  the writer's local rank in the segment
     * @param consumer  this rank's local rank in the segment
     * @param alloc     allocator of the frames copied out
     * @param minLength the shortest frame length allowed
     * @param maxLength the longest frame length allowed
     * @param peer      the writer's rank in the group, as {@code frames} hears it
     * @param frames    where whole frames go, on the poller thread
     */
    ShmInbound(ShmSegment segment, int producer, int consumer, ByteBufAllocator alloc, int minLength, int maxLength,
               int peer, ShmFrames frames) {
        this(segment, producer, consumer, alloc, minLength, maxLength, LEND_BYTES, peer, frames);
    }

    /** With frames of at least {@code lendBytes} lent ({@code <= 0}: none). */
    ShmInbound(ShmSegment segment, int producer, int consumer, ByteBufAllocator alloc, int minLength, int maxLength,
               int lendBytes, int peer, ShmFrames frames) {
        this.segment = segment;
        this.peer = peer;
        this.ring = segment.ring(producer, consumer);
        this.producer = producer;
        this.alloc = alloc;
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.frames = frames;
        this.lendBytes = lendBytes;
    }

    /** A read at least this large hands its space back at once; smaller ones at the end of the poll. */
    private static final int RELEASE_BYTES = 16 << 10;

    /**
     * Frames at least this large (bytes, without the length field) are lent where they lie instead of
     * copied out ({@code rc.transport.shmLendBytes}; 0 never lends).
     */
    static final int LEND_BYTES = TransportSettings.SHM_LEND_BYTES.get();

    private static final Logger log = LoggerFactory.getLogger(ShmInbound.class);

    /**
     * Reads whole or partial frames, about {@code budget} bytes at most.
     *
     * @return the bytes consumed (0: nothing to read)
     */
    int poll(int budget) {
        if (held != null && !reclaimHeld()) {
            return 0;
        }
        int done = 0;
        while (done < budget && !broken) {
            int available = ring.available();
            if (partial == null) {
                if (available < 4) {
                    break;
                }
                int length = ring.peekInt();
                if (length < minLength || length > maxLength) {
                    broken = true;
                    frames.onCorrupt(peer, "a frame of " + length + " bytes (allowed " + minLength + ".." + maxLength + ")");
                    break;
                }
                if (lendable(length)) {
                    if (available < 4 + length) {
                        break;      // lent whole or not at all: wait for the rest
                    }
                    done += 4 + length;
                    if (!lend(length)) {
                        break;
                    }
                    continue;
                }
                ring.consume(4);
                available -= 4;
                done += 4;
                partial = alloc.directBuffer(length, length);
                remaining = length;
            }
            int n = Math.min(available, remaining);
            if (n == 0) {
                break;
            }
            ring.read(partial, n);
            if (n >= RELEASE_BYTES) {
                ring.release();   // a large piece: the producer refills while this one is delivered
            }
            remaining -= n;
            done += n;
            if (remaining == 0) {
                ByteBuf f = partial;
                partial = null;
                frames.onFrame(peer, f);
            }
        }
        if (done > 0) {
            ring.release();   // once per poll: the producer's view of the head moves once, not per frame
            if (ring.takeWaiting()) {
                segment.wake(producer);
            }
        }
        return done;
    }

    /** Whether a frame of {@code length} bytes at the consumer's position would be lent. */
    private boolean lendable(int length) {
        return lendBytes > 0 && length >= lendBytes && 4 + length <= ring.capacity();
    }

    /**
     * Lends the whole frame of {@code length} bytes after the length field to the receiver, then
     * consumes it, unless the receiver still holds it. A receiver that throws has still had the
     * frame: it is consumed (or held) all the same, never delivered twice.
     *
     * @return false when the receiver holds it (the ring waits)
     */
    private boolean lend(int length) {
        ByteBuf frame = ring.contiguous(4, length) ? new LentBuffer(alloc, ring.view(4, length))
                : LentBuffer.of(alloc, ring.wrappedView(4, length, 0), ring.wrappedView(4, length, 1));
        try {
            frames.onFrame(peer, frame);
        } finally {
            if (frame.refCnt() > 0) {
                held = frame;
                log.warn("rank {}'s shared-memory ring: a frame of {} bytes lent to its receiver was not released in"
                        + " the call; the ring waits until it is", producer, length);
            } else {
                consumeLent(length);
            }
        }
        return held == null;
    }

    /** Consumes the held frame once its receiver released it; whether it was. */
    private boolean reclaimHeld() {
        if (held.refCnt() > 0) {
            return false;
        }
        int length = held.capacity();
        held = null;
        consumeLent(length);
        return true;
    }

    /** Hands a lent frame's space (and its length field's) back to the producer, waking it if it waits. */
    private void consumeLent(int length) {
        ring.consume(4 + length);
        ring.release();
        if (ring.takeWaiting()) {
            segment.wake(producer);
        }
    }

    /** Whether bytes wait to be read. */
    boolean hasData() {
        return !broken && (held == null || held.refCnt() == 0) && ring.available() > (partial == null ? 3 : 0);
    }

    /** Drops a frame half read (the poller stops). */
    void close() {
        broken = true;
        held = null;   // not ours to release
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }
}
