package io.reactivecollectives.transport.shm;

/**
 * How long the reading thread polls after its last traffic before it sleeps, adapted to whether
 * polling pays off, as the event loops' select strategy does: traffic seen within half the
 * maximum while polling doubles the budget (up to the maximum); polling that ran out, or saw
 * traffic only later than that, halves it (down to 1/32 of the maximum); traffic that wakes the
 * sleeping thread within the maximum doubles it again. Chains of small
 * collectives keep the full budget; a rank that computes between collectives soon polls only
 * briefly and leaves the processor to the computation. Used by one thread.
 */
final class AdaptiveSpin {

    private static final int FLOOR_DIVISOR = 32;

    private final long max;
    private final long min;
    private final long worth;
    private long budget;

    /**
     * @param maxNanos the longest polling; 0 never polls
     * @param adaptive false keeps the budget at the maximum
     */
    AdaptiveSpin(long maxNanos, boolean adaptive) {
        this.max = maxNanos;
        this.min = adaptive ? Math.max(1, maxNanos / FLOOR_DIVISOR) : maxNanos;
        this.worth = adaptive ? maxNanos / 2 : maxNanos;
        this.budget = maxNanos;
    }

    /** The current budget in nanoseconds. */
    long budget() {
        return budget;
    }

    /** Polling saw traffic {@code waitedNanos} after the last. */
    void hit(long waitedNanos) {
        budget = waitedNanos <= worth ? Math.min(max, budget << 1) : Math.max(min, budget >> 1);
    }

    /**
     * The thread slept and traffic woke it {@code waitedNanos} after its last: within
     * {@link #WAKE_SLACK} times the maximum, the budget was too short for this traffic (polling
     * stopped before it came) and doubles; later, sleeping was right and it halves. The slack is the
     * wake-up's own latency, which the thread measures as waiting: on a virtual machine a futex
     * wake-up alone can take longer than the maximum, and without the slack a budget at its floor
     * would stay there for microsecond ping-pong (each exchange sleeping, each wake-up measured as
     * late). Without this at all a budget once at its floor would stay there for traffic with gaps
     * between the floor and the maximum.
     */
    void wokenBy(long waitedNanos) {
        budget = waitedNanos <= WAKE_SLACK * max ? Math.min(max, Math.max(min, budget) << 1)
                : Math.max(min, budget >> 1);
    }

    /** How many maxima a wake-up may come after the last traffic and still count as soon. */
    static final long WAKE_SLACK = 4;

    /** Polling ran out: the thread sleeps. */
    void miss() {
        budget = Math.max(min, budget >> 1);
    }
}
