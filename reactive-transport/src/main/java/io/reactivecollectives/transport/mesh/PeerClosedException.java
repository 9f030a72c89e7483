package io.reactivecollectives.transport.mesh;

import java.io.IOException;

/**
 * The connection to a peer ended from the far side: an orderly close ({@code peer 3 closed the
 * connection}) or a reset or other I/O error ({@code connection to peer 3 reset: Connection reset
 * by peer}, with the I/O exception as its cause).
 */
public final class PeerClosedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int peer;
    private final boolean reset;
    private final boolean unreachable;

    private PeerClosedException(int peer, boolean reset, String message, Throwable cause) {
        this(peer, reset, false, message, cause);
    }

    private PeerClosedException(int peer, boolean reset, boolean unreachable, String message, Throwable cause) {
        super(message, cause);
        this.peer = peer;
        this.reset = reset;
        this.unreachable = unreachable;
    }

    /** The peer closed the connection in order (end of stream). */
    public static PeerClosedException closed(int peer) {
        return new PeerClosedException(peer, false, "peer " + peer + " closed the connection", null);
    }

    /** This rank closed the connection to {@code peer} (its mesh was closed). */
    public static PeerClosedException closedHere(int peer) {
        return new PeerClosedException(peer, false, "connection to peer " + peer + " closed by this rank", null);
    }

    /** The connection to {@code peer} failed with {@code error} (a reset, a broken pipe, ...). */
    public static PeerClosedException reset(int peer, IOException error) {
        String what = error.getMessage() != null ? error.getMessage() : error.getClass().getSimpleName();
        return new PeerClosedException(peer, true, "connection to peer " + peer + " reset: " + what, error);
    }

    /**
     * No connection to {@code peer} could be made when a collective first needed one ({@link Mesh#connect}).
     *
     * @param peer   the peer
     * @param detail what was tried and why it failed
     * @param cause  the failure, or null
     * @return the exception: {@code peer 7 unreachable: <detail>}
     */
    public static PeerClosedException unreachable(int peer, String detail, Throwable cause) {
        return new PeerClosedException(peer, true, true, "peer " + peer + " unreachable: " + detail, cause);
    }

    /** The peer. */
    public int peer() {
        return peer;
    }

    /** Whether no connection to the peer could be made on demand ({@link #unreachable}). */
    public boolean isUnreachable() {
        return unreachable;
    }

    /** Whether the connection was reset or failed, rather than closed in order. */
    public boolean isReset() {
        return reset;
    }
}
