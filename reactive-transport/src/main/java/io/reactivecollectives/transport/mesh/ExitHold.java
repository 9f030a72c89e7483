package io.reactivecollectives.transport.mesh;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the JVM from exiting while a mesh closed in order still has its last words to write.
 * {@link Mesh#closeGracefully} never blocks: it returns while its GOODBYE frames wait on the event
 * loops. A program whose last lines are {@code group.close(); System.exit(0);} (or whose
 * {@code main} returns there) would otherwise often end the process before they went out; its
 * peers would then see a plain end of the connection and fail the collectives they still run,
 * even those this rank had finished. A shutdown hook, registered on first use, waits for every
 * pending close, at most the longest grace one was given. {@code Runtime.halt} and signals that
 * kill the process skip it.
 */
final class ExitHold {

    private static final Set<CountDownLatch> PENDING = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();
    private static volatile long longestGraceNanos;

    private ExitHold() {
    }

    /**
     * Holds the JVM's exit, for at most {@code grace}, until the returned {@code Runnable} runs (once
     * the close is over; idempotent, any thread).
     *
     * @param grace the longest an exiting JVM waits for this close
     * @return what ends the hold
     */
    static Runnable hold(Duration grace) {
        CountDownLatch latch = new CountDownLatch(1);
        PENDING.add(latch);
        if (grace.toNanos() > longestGraceNanos) {
            longestGraceNanos = grace.toNanos();
        }
        if (HOOKED.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(ExitHold::awaitPending, "rc-mesh-exit-hold"));
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting already (a close from another shutdown hook): nothing can hold it
            }
        }
        return () -> {
            PENDING.remove(latch);
            latch.countDown();
        };
    }

    private static void awaitPending() {
        long deadline = System.nanoTime() + longestGraceNanos;
        for (CountDownLatch l : PENDING) {
            try {
                if (!l.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
