package io.reactivecollectives.core.observe;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The automatic dumps of every recorder of the JVM that are not written yet, and the shutdown hook
 * that writes them: a process that exits right after a collective's error (the exception leaves
 * {@code main}) still leaves each dump complete, and no temporary file. Each dump is written once,
 * by whichever comes first, its task on the blocking scheduler or the hook; the hook waits (up to
 * {@link #HOOK_WAIT_MILLIS}) for a dump a task is writing, and writes the queued ones itself, oldest
 * first, so the last file of a recorder shows its last failure.
 */
final class PendingDumps {

    /** How long the shutdown hook waits for the dumps in all. */
    static final long HOOK_WAIT_MILLIS = 10_000;

    private static final Set<Job> PENDING = ConcurrentHashMap.newKeySet();
    private static final AtomicLong ORDER = new AtomicLong();

    private static final int QUEUED = 0;
    private static final int WRITING = 1;
    private static final int DONE = 2;

    private PendingDumps() {
    }

    /** Installs the hook once, the first time a dump is queued. */
    private static final class Hook {
        static final boolean INSTALLED = install();

        static void ensureInstalled() {
            // loading this class installed it
        }

        private static boolean install() {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(PendingDumps::writeAll, "rc-flight-recorder-dumps"));
                return true;
            } catch (IllegalStateException shuttingDown) {
                return false;   // the JVM is already exiting: the dump's own task is all there is
            }
        }
    }

    /** One dump to write, registered until written. */
    static final class Job {
        private final long order = ORDER.incrementAndGet();
        private final Path target;
        private final Callable<Path> write;
        private final AtomicInteger state = new AtomicInteger(QUEUED);
        private final CountDownLatch done = new CountDownLatch(1);

        private Job(Path target, Callable<Path> write) {
            this.target = target;
            this.write = write;
        }

        /** Whether a writer has taken it (a failure after that needs a dump of its own). */
        boolean started() {
            return state.get() != QUEUED;
        }

        /** Writes the dump, unless the shutdown hook has taken it; the file's path either way. */
        Path run() throws Exception {
            if (!state.compareAndSet(QUEUED, WRITING)) {
                return target;
            }
            try {
                return write.call();
            } finally {
                finish();
            }
        }

        /** Drops it unwritten (it lost the race to be the recorder's next dump). */
        void discard() {
            if (state.compareAndSet(QUEUED, DONE)) {
                finish();
            }
        }

        private void finish() {
            state.set(DONE);
            PENDING.remove(this);
            done.countDown();
        }
    }

    /** Registers a dump of {@code target} that {@code write} writes (atomically). */
    static Job add(Path target, Callable<Path> write) {
        Hook.ensureInstalled();
        Job j = new Job(target, write);
        PENDING.add(j);
        return j;
    }

    /**
     * The shutdown hook: every pending dump written or waited for, oldest first, until none is left
     * (a failure on its way may register one more while the hook runs) or the wait is over.
     */
    static void writeAll() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOOK_WAIT_MILLIS);
        while (!PENDING.isEmpty() && System.nanoTime() - deadline < 0) {
            List<Job> jobs = new ArrayList<>(PENDING);
            jobs.sort(Comparator.comparingLong(j -> j.order));
            for (Job j : jobs) {
                if (!writeOrAwait(j, deadline)) {
                    return;
                }
            }
        }
    }

    /** False when the wait is over or the hook was interrupted. */
    private static boolean writeOrAwait(Job j, long deadline) {
        if (j.state.compareAndSet(QUEUED, WRITING)) {
            try {
                j.write.call();
            } catch (Exception e) {
                System.err.println("flight recorder: dump to " + j.target + " failed at exit: " + e);
            } finally {
                j.finish();
            }
            return true;
        }
        try {
            if (j.done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return true;
            }
            System.err.println("flight recorder: dump to " + j.target + " not finished at exit");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
