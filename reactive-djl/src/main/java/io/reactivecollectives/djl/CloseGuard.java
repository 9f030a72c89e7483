package io.reactivecollectives.djl;

import java.util.function.Consumer;

/**
 * What a {@link DistributedTrainer} makes on its compute thread (parameter views, a reducer) is
 * handed to it through here, so that a close racing that work leaks nothing: a cancelled
 * {@code initialize} (another rank failed first, {@code Mono.using} closed the trainer) may still be
 * running, and whatever it makes after the close is released at once instead of kept.
 */
final class CloseGuard {

    private boolean closed;

    /**
     * Hands {@code made} to {@code field}, or, once closed, releases it and fails naming
     * {@code operation}.
     */
    synchronized <T extends AutoCloseable> void keep(T made, String operation, Consumer<T> field) {
        if (!closed) {
            field.accept(made);
            return;
        }
        try {
            made.close();
        } catch (Exception e) {
            throw new IllegalStateException(operation + ": releasing what was made after the close failed", e);
        }
        throw new IllegalStateException(operation + ": the trainer was closed");
    }

    /** Runs {@code release} while no hand-over runs (and, for {@link #close}, none will follow). */
    synchronized void release(Runnable release) {
        release.run();
    }

    /** Closes: {@code release} runs once no hand-over runs, and later hand-overs are released at once. */
    synchronized void close(Runnable release) {
        closed = true;
        release.run();
    }
}
