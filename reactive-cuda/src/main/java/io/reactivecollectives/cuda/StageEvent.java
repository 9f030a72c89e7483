package io.reactivecollectives.cuda;

/**
 * One stage of one chunk of a host-staged collective, as reported to a {@link StageListener}.
 *
 * @param op         the collective ({@code allReduce})
 * @param opId       the staged group's running number of the operation
 * @param chunk      the chunk's index in the operation
 * @param stage      which stage
 * @param bytes      bytes the stage moved
 * @param startNanos {@link System#nanoTime()} when the stage was subscribed
 * @param endNanos   {@link System#nanoTime()} when it completed
 */
public record StageEvent(String op, long opId, int chunk, Stage stage, long bytes, long startNanos, long endNanos) {

    /** The stages of a chunk. */
    public enum Stage {
        /** Device to pinned host memory. */
        COPY_IN,
        /** The collective on the host copy, through the CPU process group. */
        NETWORK,
        /** Pinned host memory back to the device. */
        COPY_OUT
    }

    /**
     * Duration in nanoseconds.
     *
     * @return {@code endNanos - startNanos}
     */
    public long nanos() {
        return endNanos - startNanos;
    }
}
