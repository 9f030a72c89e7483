package io.reactivecollectives.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-call options of a collective.
 *
 * @param timeout   how long the collective may run on this rank; {@code null} means the group's default.
 *                  Timed by Reactor's parallel scheduler ({@code Schedulers.parallel()}), so it honours
 *                  virtual time: under {@code StepVerifier.withVirtualTime}, {@code thenAwait} past it
 *                  fails the collective with its {@link CollectiveTimeoutException}
 * @param algorithm the algorithm to run; {@link Algorithm#AUTO} lets the group choose
 */
public record CollectiveOptions(Duration timeout, Algorithm algorithm) {

    /** The group's default timeout, algorithm chosen by the group. */
    public static final CollectiveOptions DEFAULT = new CollectiveOptions(null, Algorithm.AUTO);

    /**
     * Checks the options.
     *
     * @param timeout   how long the collective may run on this rank, positive; null for the group's default
     * @param algorithm the algorithm to run, not null
     * @throws IllegalArgumentException for a zero or negative timeout
     */
    public CollectiveOptions {
        Objects.requireNonNull(algorithm, "algorithm");
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
    }

    /**
     * The group's algorithm choice with {@code timeout} (timed by Reactor's parallel scheduler; see above).
     *
     * @param timeout the timeout, positive
     * @return the options
     */
    public static CollectiveOptions timeout(Duration timeout) {
        return new CollectiveOptions(timeout, Algorithm.AUTO);
    }

    /**
     * The group's default timeout with a forced algorithm.
     *
     * @param algorithm the algorithm to run
     * @return the options
     */
    public static CollectiveOptions algorithm(Algorithm algorithm) {
        return new CollectiveOptions(null, algorithm);
    }

    /**
     * These options with another timeout.
     *
     * @param t the timeout, positive; null for the group's default
     * @return the new options
     */
    public CollectiveOptions withTimeout(Duration t) {
        return new CollectiveOptions(t, algorithm);
    }

    /**
     * These options with another algorithm.
     *
     * @param a the algorithm to run ({@link Algorithm#AUTO}: the group chooses)
     * @return the new options
     */
    public CollectiveOptions withAlgorithm(Algorithm a) {
        return new CollectiveOptions(timeout, a);
    }
}
