package io.reactivecollectives.djl;

/**
 * What one step of a {@link DistributedTrainer} did on this rank.
 *
 * @param step          the step's number on this rank, from 1 (accumulation steps included)
 * @param loss          this rank's loss on its own batch (not averaged over ranks)
 * @param synced        whether gradients were averaged and the optimizer stepped (false: an
 *                      accumulation step, {@link DistributedTrainer#accumulate})
 * @param computeNanos  forward and backward pass
 * @param exposedNanos  from the end of the backward pass until the last bucket was averaged and its
 *                      parameters updated: communication (and copies) not hidden behind compute,
 *                      plus the optimizer updates that overlapped it
 * @param stepNanos     the whole step, from its start on the compute thread to its end
 */
public record StepResult(long step, float loss, boolean synced, long computeNanos, long exposedNanos, long stepNanos) {
}
