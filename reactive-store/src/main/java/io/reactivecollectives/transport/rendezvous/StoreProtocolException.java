package io.reactivecollectives.transport.rendezvous;

/**
 * A frame of the TCP store protocol that cannot be decoded: unknown opcode, a length that
 * points outside the frame, trailing bytes, a frame over the size limit, or a frame that is not
 * allowed in the connection's current state (a request before authentication). The side that
 * reads it logs the error and closes that one connection.
 */
public final class StoreProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * A frame that cannot be decoded.
     *
     * @param message what is wrong with the frame
     */
    public StoreProtocolException(String message) {
        super(message);
    }
}
