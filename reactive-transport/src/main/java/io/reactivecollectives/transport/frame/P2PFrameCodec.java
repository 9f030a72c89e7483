package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;

/**
 * A P2P frame: fragment {@link #index} of {@link #count} of a point-to-point message with a user
 * {@link #tag}. Stateless; on the wire the count is the step field and the index the chunk field.
 */
public final class P2PFrameCodec {

    private P2PFrameCodec() {
    }

    public static int tag(ByteBuf frame) {
        return FrameCodec.tag(frame);
    }

    public static int index(ByteBuf frame) {
        return FrameCodec.chunk(frame);
    }

    public static int count(ByteBuf frame) {
        return FrameCodec.step(frame);
    }

    /**
     * What a point-to-point message holds, as its frames carry it in the agreement word: the sent
     * tensor's dtype (its ordinal plus one), so that a receive into a tensor of another dtype of the
     * same byte size fails instead of reading the bytes as something else.
     *
     * @param dtype the sent tensor's dtype
     * @return the word
     */
    public static long kindOf(io.reactivecollectives.core.DType dtype) {
        return dtype.ordinal() + 1L;
    }

    /**
     * The dtype a message's frame says it holds, or null when it says none (0).
     *
     * @param frame the frame
     * @return the dtype, or null
     */
    public static io.reactivecollectives.core.DType dtype(ByteBuf frame) {
        long w = FrameCodec.agreementWord(frame);
        io.reactivecollectives.core.DType[] all = io.reactivecollectives.core.DType.values();
        return w > 0 && w <= all.length ? all[(int) w - 1] : null;
    }

    /** The fragment's bytes, a slice sharing the frame's reference count. */
    public static ByteBuf payload(ByteBuf frame) {
        return frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
    }
}
