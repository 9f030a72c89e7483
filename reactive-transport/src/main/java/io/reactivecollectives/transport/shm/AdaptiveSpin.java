package io.reactivecollectives.transport.shm;

/**
 * How long the reading thread polls after its last traffic before it sleeps, adapted to whether
 * polling pays off: traffic seen within half the maximum while polling doubles the budget (up to the
 * maximum); polling that ran out, or saw traffic only later than that, halves it; traffic that wakes
 * the sleeping thread within {@link #WAKE_SLACK} maxima doubles it again. Chains of small
 * collectives keep the full budget; a rank that computes between collectives soon polls only
 * briefly and leaves the processor to the computation. Used by one thread.
 *
 * <p>The budget never falls below what sleeping costs here (ski rental: poll for as long as a
 * sleep and its wake-up would take, then sleep), and may exceed the maximum up to that cost (at most
 * {@link #WAKE_SLACK} maxima). That cost is learnt from the sleeps that traffic
 * ended soon (the time from the last traffic until the thread ran again, a wake-up's latency
 * included), with 1/32 of the maximum as the least floor. Without it, exchanges a few microseconds
 * apart settle into a state where both ranks sleep on every exchange: each wake-up (tens of
 * microseconds on a virtual machine) delays the peer past its budget, the peer's misses halve it, and
 * the doubling on each timely wake-up only undoes the halving on each miss.
 */
final class AdaptiveSpin {

    private static final int FLOOR_DIVISOR = 32;

    private final long max;
    private final long min;
    private final long worth;
    private final boolean adaptive;
    private long budget;
    private long sleepCost;   // what a sleep ended by traffic soon after cost lately (a moving average), 0 before any

    /**
     * @param maxNanos the longest polling; 0 never polls
     * @param adaptive false keeps the budget at the maximum
     */
    AdaptiveSpin(long maxNanos, boolean adaptive) {
        this.max = maxNanos;
        this.adaptive = adaptive;
        this.min = adaptive ? Math.max(1, maxNanos / FLOOR_DIVISOR) : maxNanos;
        this.worth = adaptive ? maxNanos / 2 : maxNanos;
        this.budget = maxNanos;
    }

    /** The current budget in nanoseconds. */
    long budget() {
        return budget;
    }

    /** The least budget now: what sleeping costs (as learnt), at least 1/32 of the maximum, at most {@link #ceiling()}. */
    long floor() {
        return Math.min(ceiling(), Math.max(min, sleepCost));
    }

    /**
     * The most budget now: the maximum, or what sleeping costs where that is more (up to
     * {@link #WAKE_SLACK} maxima): polling for less than a sleep costs saves nothing.
     */
    long ceiling() {
        return Math.max(max, Math.min(sleepCost, WAKE_SLACK * max));
    }

    /** Polling saw traffic {@code waitedNanos} after the last. */
    void hit(long waitedNanos) {
        budget = waitedNanos <= worth ? Math.min(ceiling(), budget << 1) : Math.max(floor(), budget >> 1);
    }

    /**
     * The thread slept ({@code sleptNanos} of it blocked) and traffic woke it {@code waitedNanos} after its last: within
     * {@link #WAKE_SLACK} times the maximum, the budget was too short for this traffic (polling
     * stopped before it came): it doubles, and the sleep's cost raises the floor. Later, sleeping
     * was right: the budget halves and the learnt cost decays. The slack is the wake-up's own
     * latency, which the thread measures as waiting: on a virtual machine a futex wake-up alone can
     * take longer than the maximum.
     *
     * @param waitedNanos from the last traffic until the traffic that ended the sleep was seen
     * @param sleptNanos  how long the sleep blocked
     */
    void wokenBy(long waitedNanos, long sleptNanos) {
        if (!adaptive) {
            return;
        }
        if (waitedNanos <= WAKE_SLACK * max) {
            if (sleptNanos >= BLOCKED_NANOS) {  // it really blocked: a wake-up's cost is in waitedNanos
                sleepCost = sleepCost == 0 ? waitedNanos : (3 * sleepCost + waitedNanos) >> 2;
            }
            budget = Math.min(ceiling(), Math.max(floor(), budget << 1));
        } else {
            sleepCost >>= 1;
            budget = Math.max(floor(), budget >> 1);
        }
    }

    /** How many maxima a wake-up may come after the last traffic and still count as soon. */
    static final long WAKE_SLACK = 4;

    /**
     * A sleep shorter than this did not block (the word changed before the thread slept, or the
     * wake came at once): it says nothing about what a wake-up costs.
     */
    static final long BLOCKED_NANOS = 5_000;

    /** Polling ran out: the thread sleeps. */
    void miss() {
        budget = Math.max(floor(), budget >> 1);
    }
}
