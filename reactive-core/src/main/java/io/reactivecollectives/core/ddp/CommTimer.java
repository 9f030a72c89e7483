package io.reactivecollectives.core.ddp;

/**
 * Wall time during which at least one bucket's hook was running (overlapping hooks count once):
 * what {@link GradientReducer#communicationNanos()} reports.
 */
final class CommTimer {

    private int inFlight;
    private long startNanos;
    private long nanos;

    synchronized void started() {
        if (inFlight++ == 0) {
            startNanos = System.nanoTime();
        }
    }

    synchronized void ended() {
        if (--inFlight == 0) {
            nanos += System.nanoTime() - startNanos;
        }
    }

    synchronized long nanos() {
        return nanos;
    }
}
