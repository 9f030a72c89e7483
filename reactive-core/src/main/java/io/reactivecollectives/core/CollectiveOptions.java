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

    public CollectiveOptions {
        Objects.requireNonNull(algorithm, "algorithm");
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
    }

    /** The group's algorithm choice with {@code timeout} (timed by Reactor's parallel scheduler; see above). */
    public static CollectiveOptions timeout(Duration timeout) {
        return new CollectiveOptions(timeout, Algorithm.AUTO);
    }

    public static CollectiveOptions algorithm(Algorithm algorithm) {
        return new CollectiveOptions(null, algorithm);
    }

    public CollectiveOptions withTimeout(Duration t) {
        return new CollectiveOptions(t, algorithm);
    }

    public CollectiveOptions withAlgorithm(Algorithm a) {
        return new CollectiveOptions(timeout, a);
    }
}
