package io.reactivecollectives.core;

import java.time.Duration;

/** A collective ran past its timeout on this rank. Its {@link Work} reports {@link WorkResult#TIMEOUT}. */
public class CollectiveTimeoutException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    private final Duration elapsed;

    public CollectiveTimeoutException(String op, int rank, long sequence, int peer, Duration elapsed, String detail) {
        super(op, rank, sequence, peer, detail, null);
        this.elapsed = elapsed;
    }

    /** How long the collective ran before it timed out. */
    public Duration elapsed() {
        return elapsed;
    }

    @Override
    public WorkResult workResult() {
        return WorkResult.TIMEOUT;
    }
}
