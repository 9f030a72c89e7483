package io.reactivecollectives.transport.mesh;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * An event loop's select strategy that polls ({@code selectNow}) for a short while after its last
 * I/O or task before it blocks in {@code select}, as MPI's TCP transport polls instead of sleeping,
 * and adapts how long it polls to whether polling has been paying off.
 *
 * <p>In a chain of small collectives the next frame from a peer usually arrives within tens of
 * microseconds of the last; a loop blocked in {@code epoll_wait} then pays a wake-up (a
 * reschedule of its thread, costly on virtual machines) on every frame. Polling keeps the loop on
 * its core while traffic flows and lets it sleep as soon as the traffic stops, so an idle group
 * costs no CPU.
 *
 * <p>Polling that ends in a sleep anyway is CPU spent for nothing, and on a machine with fewer
 * cores than busy threads it is CPU taken from a peer process or from the reduction. So the budget
 * adapts, as adaptive spinning of locks does: a poll that sees the next I/O within half the maximum
 * doubles it (up to {@code maxSpinNanos}); a poll that runs out, or sees I/O only later than that
 * (polling then cost more CPU than the wake-up it saved), halves it (down to a floor of
 * 1/{@value #FLOOR_DIVISOR} of the maximum, so that a return of quick traffic is still noticed).
 * Chains of small collectives keep the full budget; large transfers with gaps longer than the
 * budget (a peer reducing a megabyte) soon poll only briefly.
 *
 * <p>A loop woken from {@code select} counts what woke it as activity, so it polls after it as after
 * any other I/O. {@code adaptive = false} keeps the budget fixed and polls only after I/O or tasks
 * seen while polling (the behaviour before the budget adapted; {@code -Drc.transport.spinAdaptive=false}).
 *
 * <p>One instance per event loop (it keeps that loop's state); used only by that loop's thread.
 */
final class SpinThenSelectStrategy implements SelectStrategy {

    /** The least budget is the maximum divided by this. */
    static final int FLOOR_DIVISOR = 32;

    private final long maxSpinNanos;
    private final long minSpinNanos;
    private final boolean adaptive;
    private long spinNanos;
    private final long worthNanos;
    private long lastActive = System.nanoTime();
    private boolean polling;
    private boolean slept;

    SpinThenSelectStrategy(long maxSpinNanos, boolean adaptive) {
        this.maxSpinNanos = maxSpinNanos;
        this.minSpinNanos = adaptive ? Math.max(1, maxSpinNanos / FLOOR_DIVISOR) : maxSpinNanos;
        this.spinNanos = maxSpinNanos;
        this.adaptive = adaptive;
        this.worthNanos = adaptive ? maxSpinNanos / 2 : maxSpinNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        long now = System.nanoTime();
        if (slept && adaptive) {
            // back from a blocking select: the loop has just handled what woke it
            slept = false;
            lastActive = now;
        }
        if (ready > 0 || hasTasks) {
            if (polling) {
                polling = false;
                // I/O soon after the last: polling saved a wake-up. I/O that took longer than half the
                // maximum cost more polling than the wake-up it saved (gaps of a paced, link-bound stream)
                spinNanos = now - lastActive <= worthNanos ? Math.min(maxSpinNanos, spinNanos << 1)
                        : Math.max(minSpinNanos, spinNanos >> 1);
            }
            lastActive = now;
            return ready;
        }
        if (now - lastActive < spinNanos) {
            // no Thread.onSpinWait(): BlockHound counts it as blocking; the selectNow system call
            // above already paces the loop
            polling = true;
            return SelectStrategy.CONTINUE;
        }
        if (polling) {
            polling = false;
            spinNanos = Math.max(minSpinNanos, spinNanos >> 1);
        }
        slept = true;
        return SelectStrategy.SELECT;
    }

    /** The current polling budget in nanoseconds (for tests). */
    long spinNanos() {
        return spinNanos;
    }
}
