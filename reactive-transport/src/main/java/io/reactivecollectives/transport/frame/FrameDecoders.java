package io.reactivecollectives.transport.frame;

/** Factories of the inbound frame splitter. */
public final class FrameDecoders {

    private FrameDecoders() {
    }

    /**
     * A decoder that splits the byte stream at frame boundaries and emits each frame without its
     * length field (see {@link FrameDecoder}). A length over {@code maxPayload} + header fails with
     * a {@link MalformedFrameException} before anything is allocated for it, and the connection is
     * closed by the frame handler.
     */
    public static FrameDecoder create(int maxPayload) {
        return new FrameDecoder(maxPayload);
    }

    /**
     * A decoder for a connection whose handshake has not passed yet: frames up to
     * {@link Handshake#MAX_PAYLOAD}; {@link FrameDecoder#limitPayload} raises the limit afterwards.
     */
    public static FrameDecoder handshake() {
        return new FrameDecoder(Handshake.MAX_PAYLOAD);
    }
}
