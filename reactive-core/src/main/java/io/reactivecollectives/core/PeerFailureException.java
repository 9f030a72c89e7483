package io.reactivecollectives.core;

/** A peer closed its connection, stopped answering heartbeats, or sent something invalid. */
public class PeerFailureException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    /**
     * A failure of {@code peer}, as {@code rank} reports it.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param peer     the peer to blame, or {@link #NO_PEER}
     * @param detail   what happened
     * @param cause    the underlying error (a closed channel, an I/O error), or null
     */
    public PeerFailureException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(op, rank, sequence, peer, detail, cause);
    }
}
