package io.reactivecollectives.core;

/** How a {@link Work} ended, as c10d's {@code WorkResult}. */
public enum WorkResult {
    /** Completed normally. */
    SUCCESS,
    /** Ran past its timeout. */
    TIMEOUT,
    /** Failed because of the communication: a peer failed, a frame was bad, the group was aborted. */
    COMM_ERROR,
    /** Not finished, or failed for another reason. */
    UNKNOWN
}
