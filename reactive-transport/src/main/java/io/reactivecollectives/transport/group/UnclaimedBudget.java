package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;

/**
 * The byte budget of frames that arrived before a receive asked for them: over the budget the
 * inbound connections stop reading; once the total is under half of it again they resume. Only
 * the bookkeeping: the {@link Mailbox} calls it under its lock and runs the pressure and relief
 * callbacks outside it.
 */
final class UnclaimedBudget {

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
