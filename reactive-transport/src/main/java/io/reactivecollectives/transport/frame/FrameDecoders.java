package io.reactivecollectives.transport.frame;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** Factories of the inbound frame splitter. */
public final class FrameDecoders {

    private FrameDecoders() {
    }

    /**
     * A decoder that splits the byte stream at frame boundaries and emits each frame without its
     * length field, as a retained slice of the inbound buffer (no copy of complete frames that
     * arrived in one read). A length over {@code maxPayload} + header fails with Netty's
     * {@code TooLongFrameException} before anything is allocated for it, and the connection is
     * closed by the frame handler.
     */
    public static LengthFieldBasedFrameDecoder create(int maxPayload) {
        return new LengthFieldBasedFrameDecoder(FrameCodec.HEADER + maxPayload + FrameCodec.LENGTH_FIELD,
                0, FrameCodec.LENGTH_FIELD, 0, FrameCodec.LENGTH_FIELD, true);
    }
}
