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

    /** The fragment's bytes, a slice sharing the frame's reference count. */
    public static ByteBuf payload(ByteBuf frame) {
        return frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
    }
}
