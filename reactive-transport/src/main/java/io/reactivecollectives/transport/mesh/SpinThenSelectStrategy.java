package io.reactivecollectives.transport.mesh;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * An event loop's select strategy that polls ({@code selectNow}) for a short while after its last
 * I/O or task before it blocks in {@code select}, as MPI's TCP transport polls instead of sleeping.
 *
 * <p>In a chain of collectives the next frame from a peer usually arrives within tens of
 * microseconds of the last; a loop blocked in {@code epoll_wait} then pays a wake-up (a
 * reschedule of its thread, costly on virtual machines) on every frame. Polling for
 * {@code spinNanos} after the last activity keeps the loop on its core while traffic flows and lets
 * it sleep as soon as the traffic stops, so an idle group costs no CPU.
 *
 * <p>One instance per event loop (it keeps that loop's last-activity time); used only by that
 * loop's thread.
 */
final class SpinThenSelectStrategy implements SelectStrategy {

    private final long spinNanos;
    private long lastActive = System.nanoTime();

    SpinThenSelectStrategy(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        long now = System.nanoTime();
        if (ready > 0 || hasTasks) {
            lastActive = now;
            return ready;
        }
        if (now - lastActive < spinNanos) {
            // no Thread.onSpinWait(): BlockHound counts it as blocking; the selectNow system call
            // above already paces the loop
            return SelectStrategy.CONTINUE;
        }
        return SelectStrategy.SELECT;
    }
}
