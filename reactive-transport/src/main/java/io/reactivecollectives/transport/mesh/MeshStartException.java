package io.reactivecollectives.transport.mesh;

/** The mesh could not be formed in time; the message names the ranks that never appeared. */
public final class MeshStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MeshStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
