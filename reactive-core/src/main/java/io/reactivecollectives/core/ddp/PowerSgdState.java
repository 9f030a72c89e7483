package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.ProcessGroup;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

/**
 * The state of {@link PowerSgdHook}, as c10d's {@code PowerSGDState}: the settings, the iteration
 * counter, and per bucket the local error (error feedback) and the last P and Q (warm start).
 *
 * <p>Until {@link #startPowerSgdIter()} iterations have run the hook all-reduces uncompressed, as
 * PyTorch recommends, so that the first steps of training are exact. The iteration counter moves
 * when the last bucket of an iteration has been reduced.
 *
 * <p>The state is used by one reducer's hook runs, which never overlap (the hook is not
 * {@linkplain CommHook#singleCollective() single-collective}); it is not meant for concurrent use.
 */
public final class PowerSgdState {

    private final ProcessGroup group;
    private final int matrixApproximationRank;
    private final long startPowerSgdIter;
    private final double minCompressionRate;
    private final boolean useErrorFeedback;
    private final boolean warmStart;
    private final double orthogonalizationEpsilon;
    final Random rng;

    long iter;
    final Map<Integer, float[]> errors = new HashMap<>();
    final Map<Integer, float[]> pMemory = new HashMap<>();
    final Map<Integer, float[]> qMemory = new HashMap<>();

    /**
     * PowerSGD's state, with PyTorch's {@code PowerSGDState} parameters.
     *
     * @param group                    the group the hook reduces over
     * @param matrixApproximationRank  r, the rank of the approximation (PyTorch's default 1)
     * @param startPowerSgdIter        iterations of plain all-reduce before compression starts (PyTorch's default 1000)
     * @param minCompressionRate       compress a matrix only when its elements exceed
     *                                 {@code (rows + cols) * r * minCompressionRate} (PyTorch's default 2)
     * @param useErrorFeedback         add each rank's previous compression error to its next gradient
     * @param warmStart                start each iteration's power step from the previous Q
     * @param orthogonalizationEpsilon added to column norms when orthogonalizing (0: none)
     * @param randomSeed               seed of the random initial Qs (the same on every rank)
     */
    public PowerSgdState(ProcessGroup group, int matrixApproximationRank, long startPowerSgdIter,
                         double minCompressionRate, boolean useErrorFeedback, boolean warmStart,
                         double orthogonalizationEpsilon, long randomSeed) {
        this.group = Objects.requireNonNull(group, "group");
        if (matrixApproximationRank < 1) {
            throw new IllegalArgumentException("PowerSGD: matrix approximation rank must be >= 1, got " + matrixApproximationRank);
        }
        if (startPowerSgdIter < 0 || minCompressionRate < 0 || orthogonalizationEpsilon < 0) {
            throw new IllegalArgumentException("PowerSGD: start iteration, compression rate and epsilon must be >= 0");
        }
        this.matrixApproximationRank = matrixApproximationRank;
        this.startPowerSgdIter = startPowerSgdIter;
        this.minCompressionRate = minCompressionRate;
        this.useErrorFeedback = useErrorFeedback;
        this.warmStart = warmStart;
        this.orthogonalizationEpsilon = orthogonalizationEpsilon;
        this.rng = new Random(randomSeed);
    }

    /**
     * PyTorch's defaults for the given rank and start iteration: compression rate 2, error feedback, warm start, seed 0.
     *
     * @param group                   the group the hook reduces over
     * @param matrixApproximationRank r, the rank of the approximation
     * @param startPowerSgdIter       iterations of plain all-reduce before compression starts
     * @return the state
     */
    public static PowerSgdState of(ProcessGroup group, int matrixApproximationRank, long startPowerSgdIter) {
        return new PowerSgdState(group, matrixApproximationRank, startPowerSgdIter, 2.0, true, true, 0.0, 0);
    }

    /** {@return the group the hook reduces over} */
    public ProcessGroup group() {
        return group;
    }

    /** {@return r, the rank of the approximation} */
    public int matrixApproximationRank() {
        return matrixApproximationRank;
    }

    /** {@return the iterations of plain all-reduce before compression starts} */
    public long startPowerSgdIter() {
        return startPowerSgdIter;
    }

    /** {@return the compression rate below which a matrix is sent uncompressed} */
    public double minCompressionRate() {
        return minCompressionRate;
    }

    /** {@return whether each rank's compression error is added to its next gradient} */
    public boolean useErrorFeedback() {
        return useErrorFeedback;
    }

    /** {@return whether each power step starts from the previous Q} */
    public boolean warmStart() {
        return warmStart;
    }

    /** {@return the epsilon added to column norms when orthogonalizing} */
    public double orthogonalizationEpsilon() {
        return orthogonalizationEpsilon;
    }

    /**
     * Iterations completed so far (counted at each iteration's last bucket).
     *
     * @return the number of iterations
     */
    public long iteration() {
        return iter;
    }

    /**
     * A copy of this rank's remembered compression error for bucket {@code index}, or {@code null}.
     *
     * @param bucketIndex the bucket's index
     * @return the error, or null
     */
    public float[] error(int bucketIndex) {
        float[] e = errors.get(bucketIndex);
        return e == null ? null : e.clone();
    }

    void maybeIncreaseIter(GradBucket bucket) {
        if (bucket.isLast()) {
            iter++;
        }
    }
}
