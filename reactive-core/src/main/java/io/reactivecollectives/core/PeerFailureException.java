package io.reactivecollectives.core;

/** A peer closed its connection, stopped answering heartbeats, or sent something invalid. */
public class PeerFailureException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    public PeerFailureException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(op, rank, sequence, peer, detail, cause);
    }
}
