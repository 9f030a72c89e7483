package io.reactivecollectives.transport;

import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * What a {@link MeshProcessGroup} does when a collective fails asynchronously (timeout, peer failure,
 * remote or group abort, mismatch), in the manner of PyTorch's {@code TORCH_NCCL_ASYNC_ERROR_HANDLING}:
 * <ul>
 *   <li>{@link Mode#FAIL_OPERATIONS} (default): the collective's {@code Mono} signals {@code onError}
 *       and the application decides (it may {@link MeshProcessGroup#shrink()} and carry on);</li>
 *   <li>{@link Mode#TEAR_DOWN}: the error is also logged, the flight recorder dumped, and then the
 *       process exits with status {@link #EXIT_STATUS} through the exit hook (by default
 *       {@link Runtime#exit(int)}, called from a fresh thread, never from an event loop), so that a
 *       launcher (torchrun-style elastic agent) restarts the job.</li>
 * </ul>
 * Argument errors ({@link IllegalArgumentException}) never tear the process down.
 *
 * @param mode     the mode
 * @param exitHook called with the exit status in {@link Mode#TEAR_DOWN}; tests inject their own
 */
public record ErrorHandling(Mode mode, IntConsumer exitHook) {

    /** Status the process exits with in {@link Mode#TEAR_DOWN}. */
    public static final int EXIT_STATUS = 3;

    /** The modes. */
    public enum Mode {
        /** Fail the operations only (default). */
        FAIL_OPERATIONS,
        /** Log, dump, then exit the process. */
        TEAR_DOWN
    }

    /**
     * Checks the arguments.
     *
     * @param mode     the mode, not null
     * @param exitHook called with the exit status in {@link Mode#TEAR_DOWN}, not null
     * @throws NullPointerException when either is null
     */
    public ErrorHandling {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(exitHook, "exitHook");
    }

    /** {@return fail the operations only (the default)} */
    public static ErrorHandling failOperations() {
        return new ErrorHandling(Mode.FAIL_OPERATIONS, ErrorHandling::exit);
    }

    /** {@return log, dump the flight recorder, then exit the process with {@link #EXIT_STATUS}} */
    public static ErrorHandling tearDown() {
        return new ErrorHandling(Mode.TEAR_DOWN, ErrorHandling::exit);
    }

    /**
     * {@link #tearDown()} with {@code exitHook} instead of {@link Runtime#exit(int)} (for tests).
     *
     * @param exitHook called with {@link #EXIT_STATUS} instead of exiting
     * @return tear-down handling with that hook
     */
    public static ErrorHandling tearDown(IntConsumer exitHook) {
        return new ErrorHandling(Mode.TEAR_DOWN, exitHook);
    }

    private static void exit(int status) {
        Runtime.getRuntime().exit(status);
    }
}
