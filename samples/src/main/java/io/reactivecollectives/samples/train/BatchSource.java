package io.reactivecollectives.samples.train;

/**
 * Where a rank's training batches come from. The default ({@link #synthetic}) reads the global
 * batch of each step from a {@link SyntheticTask}, rank {@code r} taking slice {@code r}; a Spark
 * partition, say, passes its own shard instead.
 */
@FunctionalInterface
public interface BatchSource {

    /**
     * Fills this rank's batch of step {@code step}: {@code labels.length} rows of {@code x}
     * (row-major, as wide as the model's input) and their labels.
     *
     * @param step   the optimizer step (0-based)
     * @param rank   this rank
     * @param world  the number of ranks
     * @param x      the inputs to fill
     * @param labels the labels to fill
     */
    void batch(int step, int rank, int world, float[] x, int[] labels);

    /**
     * The synthetic task's global batches: step {@code s} is samples {@code s * world * batch} on,
     * rank {@code r} reading its {@code r}-th slice of them.
     *
     * @param task the task
     * @return the source
     */
    static BatchSource synthetic(SyntheticTask task) {
        return (step, rank, world, x, labels) ->
                task.batch(((long) step * world + rank) * labels.length, labels.length, x, labels);
    }
}
