package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/**
 * An ABORT frame: the collective with this sequence number failed or was cancelled on the sender.
 * The kind says why; {@link #peer} names the failed peer ({@link Kind#PEER_FAILED}) or the peer the
 * sender waited for ({@link Kind#TIMED_OUT}, -1 for none); the payload is the UTF-8 reason.
 * Stateless; on the wire the kind is the tag field and the peer (+1) the step field.
 */
public final class AbortFrameCodec {

    /** Why the sender aborted. */
    public enum Kind {
        /** Failed or cancelled on the sender. */
        FAILED,
        /** The sender saw a peer fail. */
        PEER_FAILED,
        /** The collective timed out on the sender. */
        TIMED_OUT,
        /** The ranks disagree on the collective (op, dtype, size, root, reduce op, or a bad argument on the sender). */
        MISMATCH;

        static Kind of(int code) {
            return code >= 0 && code < values().length ? values()[code] : FAILED;
        }
    }

    /** Longest reason read from a frame. */
    public static final int MAX_REASON = 4096;

    private AbortFrameCodec() {
    }

    /** The tag field for {@code kind}. */
    public static int tagOf(Kind kind) {
        return kind.ordinal();
    }

    /** The step field for {@code peer} (-1: none). */
    public static int stepOf(int peer) {
        return peer + 1;
    }

    /** The payload for {@code reason}. */
    public static ByteBuf reasonPayload(String reason) {
        return Unpooled.wrappedBuffer((reason == null ? "failed" : reason).getBytes(StandardCharsets.UTF_8));
    }

    public static long sequence(ByteBuf frame) {
        return FrameCodec.sequence(frame);
    }

    public static Kind kind(ByteBuf frame) {
        return Kind.of(FrameCodec.tag(frame));
    }

    /** The failed peer or the peer waited for; -1 for none. */
    public static int peer(ByteBuf frame) {
        return FrameCodec.step(frame) - 1;
    }

    /** The reason (at most {@link #MAX_REASON} bytes of it). */
    public static String reason(ByteBuf frame) {
        int len = Math.min(FrameCodec.payloadLength(frame), MAX_REASON);
        return frame.toString(frame.readerIndex() + FrameCodec.HEADER, len, StandardCharsets.UTF_8);
    }
}
