package io.reactivecollectives.transport.frame;

/** A frame from a peer did not follow the protocol; the connection it came on is closed. */
public final class MalformedFrameException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MalformedFrameException(String message) {
        super(message);
    }
}
