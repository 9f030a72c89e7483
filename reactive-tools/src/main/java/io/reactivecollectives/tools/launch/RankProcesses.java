package io.reactivecollectives.tools.launch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * This node's rank processes, every one the launcher started (restarted ones too), the daemon threads
 * that copy their output ({@link OutputPump}) and a queue of their exits. The launcher's main thread
 * starts them and takes their exits; it, the grace period's killer or the shutdown hook stops them,
 * after which nothing starts.
 */
final class RankProcesses {

    /** A process's exit: its local rank, its code, and which restart of that rank it was (0: the first process). */
    record Exit(int localRank, int code, int restart) {
    }

    private final BlockingQueue<Exit> exits = new LinkedBlockingQueue<>();
    private final List<Process> all = new ArrayList<>();
    private final java.util.Map<Integer, Process> current = new java.util.HashMap<>();   // by local rank
    private final List<Thread> pumps = new ArrayList<>();
    private final LineSink outLine;
    private final LineSink errLine;
    private final long graceMillis;
    private boolean closed;
    private volatile boolean signalled;

    /**
     * No process yet.
     *
     * @param outLine     where the processes' standard output goes, line by line
     * @param errLine     where their standard error goes
     * @param graceMillis how long {@link #terminate} gives them before SIGKILL
     */
    RankProcesses(LineSink outLine, LineSink errLine, long graceMillis) {
        this.outLine = outLine;
        this.errLine = errLine;
        this.graceMillis = graceMillis;
    }

    /**
     * Starts a process of local rank {@code local}, unless stopped already.
     *
     * @param pb         its command and environment
     * @param local      its local rank
     * @param restart    0 for the rank's first process, k for its k-th restart
     * @param prefix     what each of its output lines starts with ({@code [rank N] })
     * @param dropNotice whether to drop the compiler directives' notice from its output
     * @param drop       lines of its output to drop, or null
     * @param watch      sees every line of its output and error (it drops none), or null
     * @throws IOException when it cannot be started
     */
    synchronized void start(ProcessBuilder pb, int local, int restart, String prefix, boolean dropNotice,
                            Predicate<String> drop, java.util.function.Consumer<String> watch) throws IOException {
        if (closed) {
            return;
        }
        Process p = pb.start();
        all.add(p);
        current.put(local, p);
        String name = prefix.replaceAll("\\D", "") + (restart == 0 ? "" : "-restart-" + restart);
        Predicate<String> out = watch == null ? drop : line -> {
            watch.accept(line);
            return drop != null && drop.test(line);
        };
        Predicate<String> err = watch == null ? null : line -> {
            watch.accept(line);
            return false;
        };
        pumps.add(OutputPump.start(p.getInputStream(), outLine, prefix, "stdout-" + name, dropNotice, out));
        pumps.add(OutputPump.start(p.getErrorStream(), errLine, prefix, "stderr-" + name, false, err));
        Thread waiter = new Thread(() -> {
            try {
                exits.add(new Exit(local, p.waitFor(), restart));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "collectives-run-wait-" + name);
        waiter.setDaemon(true);
        waiter.start();
    }

    /** {@return the next exit of a process, waiting for one} */
    Exit take() throws InterruptedException {
        return exits.take();
    }

    /** Asks every process to stop (SIGTERM), and kills those left after the grace period. */
    synchronized void terminate() {
        for (Process p : all) {
            if (p.isAlive()) {
                p.destroy();
            }
        }
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(graceMillis);
            } catch (InterruptedException ie) {
                return;
            }
            close();
        }, "collectives-run-kill");
        killer.setDaemon(true);
        killer.start();
    }

    /**
     * Stops the current processes of some local ranks: SIGTERM after {@code delayMillis} (those
     * still running then), SIGKILL a grace period later.
     *
     * @param locals      the local ranks
     * @param delayMillis how long they have to exit on their own first
     */
    synchronized void terminate(java.util.Collection<Integer> locals, long delayMillis) {
        List<Process> ps = new ArrayList<>();
        locals.forEach(l -> {
            if (current.containsKey(l)) {
                ps.add(current.get(l));
            }
        });
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(delayMillis);
                ps.forEach(Process::destroy);
                Thread.sleep(graceMillis);
            } catch (InterruptedException ie) {
                return;
            }
            for (Process p : ps) {
                if (p.isAlive()) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            }
        }, "collectives-run-stop");
        stopper.setDaemon(true);
        stopper.start();
    }

    /**
     * The launcher's own SIGINT or SIGTERM (its shutdown hook): nothing starts after; every process is
     * asked to stop (SIGTERM), so that its shutdown hooks run, and those left after the grace period
     * are killed with their descendants. Returns once all have exited.
     *
     * @return how many processes were still running
     */
    int stopOnSignal() {
        List<Process> running;
        synchronized (this) {
            signalled = true;
            closed = true;
            running = all.stream().filter(Process::isAlive).toList();
        }
        running.forEach(Process::destroy);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        try {
            for (Process p : running) {
                p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
        return running.size();
    }

    /** {@return whether the launcher was stopped by a signal ({@link #stopOnSignal()}): its ranks' exits are not failures} */
    boolean signalled() {
        return signalled;
    }

    /** Kills every process still running, and their descendants; nothing starts after. */
    synchronized void close() {
        closed = true;
        for (Process p : all) {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

    /** Waits (up to 5 s each) for the processes' output to be copied. */
    void joinPumps() throws InterruptedException {
        List<Thread> copy;
        synchronized (this) {
            copy = new ArrayList<>(pumps);
        }
        for (Thread t : copy) {
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
    }
}
