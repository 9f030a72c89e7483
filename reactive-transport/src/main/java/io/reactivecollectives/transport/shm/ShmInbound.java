package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The receiving end of one {@link ShmRing}, read by this rank's {@link ShmPoller} alone: splits the
 * byte stream into frames by their length prefix (as the socket decoder does), copies each into a
 * buffer of its exact size as its bytes arrive (freeing ring space at once, so a frame larger than
 * the ring streams through it) and hands every whole frame, without its length field, to the
 * {@link Frames} of the peer. A length out of bounds stops this ring for good and reports it.
 */
final class ShmInbound {

    /** Where whole frames go; called on the poller thread. */
    interface Frames {
        /** A whole frame (ownership passed), without its length field. */
        void onFrame(ByteBuf frame);

        /** The stream is corrupt ({@code why}); nothing more will be read from it. */
        void onCorrupt(String why);
    }

    private final ShmRing ring;
    private final ShmSegment segment;
    private final int producer;
    private final ByteBufAllocator alloc;
    private final int minLength;
    private final int maxLength;
    private final Frames frames;
    private ByteBuf partial;
    private int remaining;
    private boolean broken;

    ShmInbound(ShmSegment segment, int producer, int consumer, ByteBufAllocator alloc, int minLength, int maxLength,
               Frames frames) {
        this.segment = segment;
        this.ring = segment.ring(producer, consumer);
        this.producer = producer;
        this.alloc = alloc;
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.frames = frames;
    }

    /** A read at least this large hands its space back at once; smaller ones at the end of the poll. */
    private static final int RELEASE_BYTES = 16 << 10;

    /**
     * Reads whole or partial frames, about {@code budget} bytes at most.
     *
     * @return the bytes consumed (0: nothing to read)
     */
    int poll(int budget) {
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
                    frames.onCorrupt("a frame of " + length + " bytes (allowed " + minLength + ".." + maxLength + ")");
                    break;
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
                frames.onFrame(f);
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

    /** Whether bytes wait to be read. */
    boolean hasData() {
        return !broken && ring.available() > (partial == null ? 3 : 0);
    }

    /** Drops a frame half read (the poller stops). */
    void close() {
        broken = true;
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }
}
