package io.reactivecollectives.core;

import java.time.Duration;

/** A collective ran past its timeout on this rank. Its {@link Work} reports {@link WorkResult#TIMEOUT}. */
public class CollectiveTimeoutException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    /** How long the collective ran before it timed out. */
    private final Duration elapsed;

    /**
     * A timeout of collective {@code op[sequence]} on {@code rank}.
     *
     * @param op       the operation, as {@link OpType#displayName()} names it
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number, or -1 outside any collective
     * @param peer     the rank it was waiting for, or {@link #NO_PEER}
     * @param elapsed  how long the collective ran
     * @param detail   what happened
     */
    public CollectiveTimeoutException(String op, int rank, long sequence, int peer, Duration elapsed, String detail) {
        super(op, rank, sequence, peer, detail, null);
        this.elapsed = elapsed;
    }

    /**
     * {@link #CollectiveTimeoutException(String, int, long, int, Duration, String)} with the error it
     * comes from.
     *
     * @param op       the operation
     * @param rank     the rank that reports the failure
     * @param sequence the collective's sequence number
     * @param peer     the rank it was waiting for, or {@link #NO_PEER}
     * @param elapsed  how long the collective ran
     * @param detail   what happened
     * @param cause    the error this one reports (an object call's round), or null
     */
    public CollectiveTimeoutException(String op, int rank, long sequence, int peer, Duration elapsed, String detail,
                                      Throwable cause) {
        super(op, rank, sequence, peer, detail, cause);
        this.elapsed = elapsed;
    }

    /**
     * How long the collective ran before it timed out.
     *
     * @return the time it ran
     */
    public Duration elapsed() {
        return elapsed;
    }

    @Override
    public WorkResult workResult() {
        return WorkResult.TIMEOUT;
    }
}
