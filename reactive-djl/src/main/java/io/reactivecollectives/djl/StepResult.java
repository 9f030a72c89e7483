package io.reactivecollectives.djl;

/**
 * What one step of a {@link DistributedTrainer} did on this rank.
 *
 * @param step          the step's number on this rank, from 1 (accumulation steps included)
 * @param loss          this rank's loss on its own batch (not averaged over ranks)
 * @param synced        whether gradients were averaged and the optimizer stepped (false: an
 *                      accumulation step, {@link DistributedTrainer#accumulate})
 * @param computeNanos  forward and backward pass
 * @param exposedNanos  communication not hidden behind computation: the time from the end of the
 *                      backward pass to the end of the step, less the optimizer's updates (the
 *                      copies into and out of the buckets count as communication)
 * @param optimizerNanos the optimizer's updates (run per bucket, while later buckets communicate)
 * @param stepNanos     the whole step, from its start on the compute thread to its end
 */
public record StepResult(long step, float loss, boolean synced, long computeNanos, long exposedNanos, long optimizerNanos,
                         long stepNanos) {
}
