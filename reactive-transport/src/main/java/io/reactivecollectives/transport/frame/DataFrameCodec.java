package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;

/**
 * A DATA frame: one piece of a collective's data, addressed inside the collective's sequence
 * number by (tag, step, chunk). Named accessors over a frame whose length prefix was stripped.
 * Stateless.
 */
public final class DataFrameCodec {

    private DataFrameCodec() {
    }

    /** The collective's sequence number. */
    public static long sequence(ByteBuf frame) {
        return FrameCodec.sequence(frame);
    }

    /** The sub-operation inside the collective (a coalesced op's tensor, a stream's chunk). */
    public static int tag(ByteBuf frame) {
        return FrameCodec.tag(frame);
    }

    /** The algorithm's step. */
    public static int step(ByteBuf frame) {
        return FrameCodec.step(frame);
    }

    /** The piece of the step (pipelined segments). */
    public static int chunk(ByteBuf frame) {
        return FrameCodec.chunk(frame);
    }

    /** What the sender's collective is (op, dtype, reduce op, root), or 0 when it sent none. */
    public static long agreementWord(ByteBuf frame) {
        return FrameCodec.agreementWord(frame);
    }

    /** The sender's element count for the collective, or -1 / 0 when it sent none. */
    public static long agreementCount(ByteBuf frame) {
        return FrameCodec.agreementCount(frame);
    }

    /**
     * The payload: the frame itself with its reader index moved past the header (no slice is made:
     * one runs for every pipelined segment), so read the header's fields first. Release it once, as
     * the frame.
     */
    public static ByteBuf payload(ByteBuf frame) {
        return frame.skipBytes(FrameCodec.HEADER);
    }
}
