package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;

/** A GROUP_ABORT frame: the sender aborted the whole group; the payload is the UTF-8 reason. Stateless. */
public final class GroupAbortFrameCodec {

    private GroupAbortFrameCodec() {
    }

    /** The payload for {@code reason}. */
    public static ByteBuf reasonPayload(String reason) {
        return AbortFrameCodec.reasonPayload(reason);
    }

    /** The reason (at most {@link AbortFrameCodec#MAX_REASON} bytes of it). */
    public static String reason(ByteBuf frame) {
        return AbortFrameCodec.reason(frame);
    }
}
