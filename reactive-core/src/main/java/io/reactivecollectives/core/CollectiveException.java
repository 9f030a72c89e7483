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

    private final String op;
    private final int rank;
    private final long sequence;
    private final int peer;
    private final String detail;

    public CollectiveException(String op, int rank, long sequence, int peer, String detail, Throwable cause) {
        super(format(op, rank, sequence, detail), cause);
        this.detail = detail;
        this.op = op;
        this.rank = rank;
        this.sequence = sequence;
        this.peer = peer;
    }

    public CollectiveException(String op, int rank, long sequence, String detail) {
        this(op, rank, sequence, NO_PEER, detail, null);
    }

    /** {@code op[seq=N] rank R: detail}; a negative sequence (outside any collective) is left out. */
    public static String format(String op, int rank, long sequence, String detail) {
        return op + (sequence >= 0 ? "[seq=" + sequence + "]" : "") + " rank " + rank + ": " + detail;
    }

    /** The operation, as named by {@link OpType#displayName()} ({@code allReduce}). */
    public String op() {
        return op;
    }

    /** The rank that reports the failure. */
    public int rank() {
        return rank;
    }

    /** The collective's sequence number in its group, or -1 outside any collective. */
    public long sequence() {
        return sequence;
    }

    /** The peer to blame, or {@link #NO_PEER}. */
    public int peer() {
        return peer;
    }

    /** What happened, without the {@code op[seq=N] rank R: } prefix of the message. */
    public String detail() {
        return detail;
    }

    /** The {@link WorkResult} a {@link Work} that failed with this exception reports. */
    public WorkResult workResult() {
        return WorkResult.COMM_ERROR;
    }
}
