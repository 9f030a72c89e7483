package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveTimeoutException;

import java.time.Duration;

/**
 * Another rank's timeout ended this collective before this rank's own timer did: the collective
 * timed out group-wide, so this rank fails with a timeout too (its {@code Work} reports
 * {@code TIMEOUT}), naming the rank that gave up and the rank it was waiting for. Not echoed to the
 * other ranks.
 */
public final class RemoteTimeoutException extends CollectiveTimeoutException {

    private static final long serialVersionUID = 1L;

    /**
     * @param waitedFor the rank the timed-out peer was waiting for (or -1), reported as this error's peer
     * @param elapsed   how long the collective had run on this rank
     */
    public RemoteTimeoutException(String op, int rank, long sequence, int waitedFor, Duration elapsed, String detail) {
        super(op, rank, sequence, waitedFor, elapsed, detail);
    }
}
