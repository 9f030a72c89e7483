package io.reactivecollectives.core;

/**
 * Ranks issued different collectives at the same sequence number, or the same collective with
 * different sizes, dtypes, roots or reduce ops.
 */
public class CollectiveMismatchException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    /**
     * A mismatch found by {@code rank}.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param peer     the peer to blame, or {@link #NO_PEER}
     * @param detail   what happened
     */
    public CollectiveMismatchException(String op, int rank, long sequence, int peer, String detail) {
        super(op, rank, sequence, peer, detail, null);
    }

    /**
     * {@link #CollectiveMismatchException(String, int, long, int, String)} with the error it comes from.
     *
     * @param op       the operation
     * @param rank     the rank that reports it
     * @param sequence the collective's sequence number
     * @param peer     the rank that disagrees
     * @param detail   what differs
     * @param cause    the error this one reports (an object call's round), or null
     */
    public CollectiveMismatchException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(op, rank, sequence, peer, detail, cause);
    }
}
