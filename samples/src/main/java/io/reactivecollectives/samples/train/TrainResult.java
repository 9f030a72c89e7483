package io.reactivecollectives.samples.train;

/**
 * What one rank's training run measured.
 *
 * @param rank              this rank
 * @param world             number of ranks
 * @param finalParameters   all parameter values after the last step, flattened in parameter order
 * @param losses            this rank's loss at each step (on its own slice of the batch)
 * @param msPerStep         wall milliseconds per step, after the warm-up steps
 * @param commShare         share of step time during which gradients were being communicated
 * @param exposedCommShare  share of step time spent waiting for communication after the backward pass
 * @param samplesPerSecond  global samples (all ranks) per second
 */
public record TrainResult(int rank, int world, float[] finalParameters, double[] losses, double msPerStep,
                          double commShare, double exposedCommShare, double samplesPerSecond) {

    /** The last step's loss. */
    public double finalLoss() {
        return losses.length == 0 ? Double.NaN : losses[losses.length - 1];
    }

    /** Mean loss of the last {@code n} steps (fewer if the run was shorter). */
    public double meanLoss(int n) {
        int k = Math.min(n, losses.length);
        double sum = 0;
        for (int i = losses.length - k; i < losses.length; i++) {
            sum += losses[i];
        }
        return k == 0 ? Double.NaN : sum / k;
    }
}
