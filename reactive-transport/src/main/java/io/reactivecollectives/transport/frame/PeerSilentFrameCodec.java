package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;

/**
 * A PEER_SILENT frame: the sender, which watches the named peer's heartbeats (a heartbeat ring),
 * found it silent; the step is the silent peer, the payload the UTF-8 finding. Stateless.
 */
public final class PeerSilentFrameCodec {

    private PeerSilentFrameCodec() {
    }

    /** The step that names {@code peer}. */
    public static int stepOf(int peer) {
        return peer;
    }

    /** The payload for {@code finding}. */
    public static ByteBuf findingPayload(String finding) {
        return AbortFrameCodec.reasonPayload(finding);
    }

    /** The silent peer. */
    public static int peer(ByteBuf frame) {
        return FrameCodec.step(frame);
    }

    /** What the sender found (at most {@link AbortFrameCodec#MAX_REASON} bytes of it). */
    public static String finding(ByteBuf frame) {
        return AbortFrameCodec.reason(frame);
    }
}
