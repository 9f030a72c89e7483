package io.reactivecollectives.transport.shm;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.scheduler.NonBlocking;
import reactor.util.concurrent.Queues;

import java.util.Queue;
import java.util.concurrent.TimeUnit;

/**
 * The thread that reads a rank's inbound rings ({@link ShmInbound}) and resumes its stalled
 * writers ({@link ShmOutbound}): it polls while traffic flows and for a short budget after the
 * last of it ({@link AdaptiveSpin}: never less than a sleep has lately cost; {@code
 * -Drc.transport.shmSpinAdaptive=false} keeps it fixed), then marks itself asleep in the segment,
 * checks once more and sleeps on its futex
 * word until a peer that wrote to it, or freed space it waits for, wakes it (or a timeout passes),
 * so an idle group costs no CPU and a busy one no system calls. It runs on a processor of its own
 * where the host has one per local rank ({@link PollerPlacement}).
 *
 * <p>Frames are delivered on this thread, which Reactor treats as non-blocking ({@link NonBlocking}),
 * as it does the event loops: code chained after a collective that blocks fails at once.
 */
final class ShmPoller implements Runnable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShmPoller.class);
    private static final int BUDGET_BYTES = 1 << 20;
    private static final long SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ShmSegment segment;
    private final int self;
    private final ShmInbound[] inbounds;
    private final ShmOutbound[] outbounds;
    private final AdaptiveSpin spin;
    private final Queue<Runnable> tasks = Queues.<Runnable>unboundedMultiproducer().get();
    private final Thread thread;
    private final int cpu;   // the processor this thread binds itself to (PollerPlacement), or NONE
    private volatile boolean paused;
    private volatile boolean stopping;
    private volatile boolean finished;

    ShmPoller(ShmSegment segment, int self, ShmInbound[] inbounds, ShmOutbound[] outbounds, long spinNanos,
              String name) {
        this.segment = segment;
        this.self = self;
        this.inbounds = inbounds;
        this.outbounds = outbounds;
        this.spin = new AdaptiveSpin(spinNanos, TransportSettings.SHM_SPIN_ADAPTIVE.get());
        this.thread = new PollerThread(this, name);
        this.cpu = PollerPlacement.cpuFor(self);
    }

    void start() {
        thread.start();
    }

    /** Runs {@code task} on the poller thread, after the frames it has already seen. */
    void execute(Runnable task) {
        tasks.offer(task);
        if (finished) {
            runTasks();  // the thread has ended: whoever comes now runs them
        } else {
            wake();
        }
    }

    private void runTasks() {
        Runnable t;
        while ((t = tasks.poll()) != null) {
            try {
                t.run();
            } catch (RuntimeException | Error e) {
                // a failing task must not end the thread that reads every local peer
                LOG.warn("{}: a task failed", thread.getName(), e);
            }
        }
    }

    /** Stops reading the rings (back-pressure); writes go on. */
    void pause() {
        paused = true;
    }

    /** Reads the rings again. */
    void resume() {
        paused = false;
        wake();
    }

    /** Stops the thread; it lets go of the segment when it ends. */
    void stop() {
        stopping = true;
        wake();
    }

    private void wake() {
        if (Thread.currentThread() != thread && segment.retain()) {
            try {
                segment.wake(self);
            } finally {
                segment.release();
            }
        }
    }

    /** Reads everything {@code inbound} holds now, whether paused or not (a peer's connection closed). */
    void drainFully(ShmInbound inbound) {
        if (!segment.retain()) {
            return;
        }
        try {
            while (inbound.poll(BUDGET_BYTES) > 0) {
                // keep reading
            }
        } finally {
            segment.release();
        }
    }

    @Override
    public void run() {
        if (cpu != PollerPlacement.NONE) {
            boolean bound = PollerPlacement.bind(cpu);
            LOG.debug("{}: {} processor {}", thread.getName(), bound ? "bound to" : "could not be bound to", cpu);
        }
        long lastWork = System.nanoTime();
        boolean polling = false;
        boolean woken = false;
        long slept = 0;   // how long the last sleep blocked
        try {
            while (!stopping) {
                if (pass()) {
                    long now = System.nanoTime();
                    if (polling) {
                        spin.hit(now - lastWork);
                    } else if (woken) {
                        spin.wokenBy(now - lastWork, slept);  // traffic soon after the budget ran out: it was too short
                    }
                    polling = false;
                    woken = false;
                    lastWork = now;
                    continue;
                }
                if (woken) {
                    woken = false;  // woken for nothing (the timeout): idle from here
                    lastWork = System.nanoTime();
                }
                if (System.nanoTime() - lastWork < spin.budget()) {
                    polling = true;
                    continue;
                }
                if (polling) {
                    spin.miss();
                    polling = false;
                }
                segment.markSleeping(self);
                if (stopping || pending()) {
                    segment.markAwake(self);
                    continue;
                }
                long asleep = System.nanoTime();
                segment.sleep(self, SLEEP_NANOS);
                segment.markAwake(self);
                woken = true;
                slept = System.nanoTime() - asleep;
            }
        } finally {
            runTasks();
            for (ShmInbound in : inbounds) {
                if (in != null) {
                    in.close();
                }
            }
            finished = true;
            runTasks();
            segment.release();
        }
    }

    /** One round over tasks, rings and stalled writers; true when anything was done. */
    private boolean pass() {
        boolean work = false;
        if (!tasks.isEmpty()) {
            runTasks();
            work = true;
        }
        if (!paused) {
            for (ShmInbound in : inbounds) {
                try {
                    if (in != null && in.poll(BUDGET_BYTES) > 0) {
                        work = true;
                    }
                } catch (RuntimeException | Error e) {
                    // thrown by the receiver of a whole frame: the ring's state is consistent, read on
                    LOG.warn("{}: delivering a frame failed", thread.getName(), e);
                    work = true;
                }
            }
        }
        for (ShmOutbound out : outbounds) {
            if (out != null && out.stalled()) {
                out.drain();
                work |= !out.stalled();
            }
        }
        return work;
    }

    /** Whether anything waits (checked after marking asleep, before sleeping). */
    private boolean pending() {
        if (!tasks.isEmpty()) {
            return true;
        }
        for (ShmOutbound out : outbounds) {
            if (out != null && out.resumable()) {
                return true;
            }
        }
        if (!paused) {
            for (ShmInbound in : inbounds) {
                if (in != null && in.hasData()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A Netty thread: Netty's pooled allocator gives a thread cache only to its own threads, and the
     * poller allocates (and, when a collective ends here, frees) the buffer of every frame it copies out;
     * without the cache each of those takes the arena's lock.
     */
    private static final class PollerThread extends FastThreadLocalThread implements NonBlocking {
        PollerThread(Runnable r, String name) {
            super(r, name);
            setDaemon(true);
        }
    }
}
