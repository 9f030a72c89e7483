package io.reactivecollectives.core;

/** The group was aborted (here or by a peer) or closed; in-flight and new collectives fail with this. */
public class GroupAbortedException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    /**
     * An abort or close of the group, as {@code rank} reports it.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param peer     the peer to blame, or {@link #NO_PEER}
     * @param detail   what happened
     */
    public GroupAbortedException(String op, int rank, long sequence, int peer, String detail) {
        super(op, rank, sequence, peer, detail, null);
    }

    /**
     * {@link #GroupAbortedException(String, int, long, int, String)} with the error it comes from.
     *
     * @param op       the operation
     * @param rank     the rank that reports it
     * @param sequence the collective's sequence number
     * @param peer     the rank that aborted, or {@link #NO_PEER}
     * @param detail   what happened
     * @param cause    the error this one reports (an object call's round), or null
     */
    public GroupAbortedException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(op, rank, sequence, peer, detail, cause);
    }
}
