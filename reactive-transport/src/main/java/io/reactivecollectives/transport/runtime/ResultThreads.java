package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.transport.settings.TransportSettings;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The library's result threads ({@code rc-results-N}, daemon, blocking allowed): results of
 * collectives are handed to them so that user code chained after a collective never runs on a
 * network event loop.
 *
 * <p>A hand-off to a parked thread costs a wake-up (more than a small all-reduce takes: see
 * {@code perf/RESULTS.md}). A thread may spin for {@link #SPIN_MICROS} after its last task before
 * it parks, as the event loops do; off by default, because on a 2-core host spinning result
 * threads fight the event loops and cost more than the wake-up. Tasks go to the threads
 * round-robin; each thread runs its tasks in order.
 */
public final class ResultThreads {

    /** How long an idle result thread polls before it parks ({@code rc.results.spinMicros}, default 0). */
    public static final long SPIN_MICROS = Math.max(0, TransportSettings.RESULT_SPIN_MICROS.get());

    /** Result threads ({@code rc.results.threads}, default half the processors, at least 2). */
    public static final int THREADS = Math.max(1, TransportSettings.RESULT_THREADS.get());

    private ResultThreads() {
    }

    private static final class Holder {
        static final Scheduler INSTANCE = Schedulers.fromExecutor(new SpinningExecutor(THREADS));
    }

    /** The shared scheduler (its threads live as long as the JVM). */
    public static Scheduler get() {
        return Holder.INSTANCE;
    }

    /** Round-robin over spin-then-park worker threads. */
    private static final class SpinningExecutor implements Executor {
        private final Worker[] workers;
        private final AtomicInteger next = new AtomicInteger();

        SpinningExecutor(int n) {
            workers = new Worker[n];
            for (int i = 0; i < n; i++) {
                workers[i] = new Worker("rc-results-" + i);
                workers[i].start();
            }
        }

        @Override
        public void execute(Runnable task) {
            workers[Math.floorMod(next.getAndIncrement(), workers.length)].submit(task);
        }
    }

    private static final class Worker extends Thread {
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private volatile boolean parked;

        Worker(String name) {
            super(name);
            setDaemon(true);
        }

        void submit(Runnable task) {
            tasks.offer(task);
            if (parked) {
                LockSupport.unpark(this);
            }
        }

        @Override
        public void run() {
            long spinNanos = TimeUnit.MICROSECONDS.toNanos(SPIN_MICROS);
            while (true) {
                Runnable t = tasks.poll();
                if (t != null) {
                    runSafely(t);
                    continue;
                }
                long until = System.nanoTime() + spinNanos;
                while (t == null && System.nanoTime() < until) {
                    Thread.onSpinWait();
                    t = tasks.poll();
                }
                if (t != null) {
                    runSafely(t);
                    continue;
                }
                parked = true;
                if (tasks.isEmpty()) {
                    LockSupport.park(this);
                }
                parked = false;
            }
        }

        private static void runSafely(Runnable t) {
            try {
                t.run();
            } catch (Throwable e) {
                Thread th = Thread.currentThread();
                th.getUncaughtExceptionHandler().uncaughtException(th, e);
            }
        }
    }
}
