package io.reactivecollectives.transport.mesh;

/** A peer broke the protocol (bad frame, failed handshake); its connection was closed. */
public final class PeerProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PeerProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
