package io.reactivecollectives.transport.rendezvous;

/**
 * The TCP store handshake failed: the server rejected the client's HMAC (wrong or missing
 * secret), the server could not prove it knows the secret, or one side requires authentication
 * and the other does not. Not retried by the client's connect loop.
 */
public final class StoreAuthenticationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * An authentication failure.
     *
     * @param message what failed, naming the server
     */
    public StoreAuthenticationException(String message) {
        super(message);
    }
}
