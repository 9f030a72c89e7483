package io.reactivecollectives.core;

/**
 * A collective failed. Carries the operation, the rank that reports it, the collective's sequence
 * number and, where one is to blame, the peer. Messages read
 * {@code allReduce[seq=41] rank 2: peer 3 closed the connection}.
 *
 * <p>Subclasses tell the kinds apart: {@link CollectiveTimeoutException},
 * {@link PeerFailureException}, {@link CollectiveMismatchException},
 * {@link GroupAbortedException}.
 */
public class CollectiveException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Peer value when no single peer is to blame. */
    public static final int NO_PEER = -1;

    /** The operation ({@code allReduce}). */
    private final String op;
    /** The rank that reports the failure. */
    private final int rank;
    /** The collective's sequence number, or -1 outside any collective. */
    private final long sequence;
    /** The peer to blame, or {@link #NO_PEER}. */
    private final int peer;
    /** What happened, without the message's prefix. */
    private final String detail;

    /**
     * A failure of collective {@code op[sequence]} on {@code rank}, blaming {@code peer}.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param peer     the peer to blame, or {@link #NO_PEER}
     * @param detail   what happened; the message is {@link #format} of these
     * @param cause    the underlying error, or null
     */
    public CollectiveException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(format(op, rank, sequence, detail), cause);
        this.detail = detail;
        this.op = op;
        this.rank = rank;
        this.sequence = sequence;
        this.peer = peer;
    }

    /**
     * A failure that blames no single peer and has no cause.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param detail   what happened
     */
    public CollectiveException(String op, int rank, long sequence, String detail) {
        this(op, rank, sequence, NO_PEER, detail, null);
    }

    /**
     * {@code op[seq=N] rank R: detail}; a negative sequence (outside any collective) is left out.
     *
     * @param op       the operation
     * @param rank     the rank that reports the failure
     * @param sequence the sequence number, negative outside any collective
     * @param detail   what happened
     * @return the message
     */
    public static String format(String op, int rank, long sequence, String detail) {
        return op + (sequence >= 0 ? "[seq=" + sequence + "]" : "") + " rank " + rank + ": " + detail;
    }

    /**
     * The operation, as named by {@link OpType#displayName()} ({@code allReduce}).
     *
     * @return the operation
     */
    public String op() {
        return op;
    }

    /**
     * The rank that reports the failure.
     *
     * @return the reporting rank
     */
    public int rank() {
        return rank;
    }

    /**
     * The collective's sequence number in its group, or -1 outside any collective.
     *
     * @return the sequence number, or -1
     */
    public long sequence() {
        return sequence;
    }

    /**
     * The peer to blame, or {@link #NO_PEER}.
     *
     * @return the peer, or {@link #NO_PEER}
     */
    public int peer() {
        return peer;
    }

    /**
     * What happened, without the {@code op[seq=N] rank R: } prefix of the message.
     *
     * @return the detail
     */
    public String detail() {
        return detail;
    }

    /**
     * The {@link WorkResult} a {@link Work} that failed with this exception reports.
     *
     * @return {@link WorkResult#COMM_ERROR} here; subclasses answer their own
     */
    public WorkResult workResult() {
        return WorkResult.COMM_ERROR;
    }
}
