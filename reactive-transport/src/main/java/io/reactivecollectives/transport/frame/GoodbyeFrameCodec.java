package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;

/**
 * A GOODBYE frame: the sender closes the group in order, having finished every collective whose
 * sequence number is below {@link #finishedBelow}. Stateless; on the wire the bound is the
 * sequence field.
 */
public final class GoodbyeFrameCodec {

    private GoodbyeFrameCodec() {
    }

    /** Every collective of the sender below this sequence number finished there. */
    public static long finishedBelow(ByteBuf frame) {
        return FrameCodec.sequence(frame);
    }
}
