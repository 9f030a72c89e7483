package io.reactivecollectives.transport.bench;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A soak harness (not a test): {@code cycles} LocalCluster(world) start / all-reduce / close
 * cycles in one JVM, printing the heap after GC, the resident set and the open descriptors every
 * {@code every} cycles. Each close is waited for until the JVM's descriptors are back to what they
 * were before the cycle.
 *
 * <pre>java -cp ... ClusterCycles [cycles] [every] [world]</pre>
 * (system property {@code rc.cycles.uniqueGroups=true}: a new group id every cycle)
 */
public final class ClusterCycles {

    private static final AtomicInteger CYCLES = new AtomicInteger();

    private ClusterCycles() {
    }

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int every = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int world = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        int fds = warmUp(world);
        System.out.printf("cycle %4d heapAfterGc %8d KB  rss %8d KB  fds %d%n", 0, heapAfterGc() / 1024,
                rssKb(), openFds());
        long start = System.nanoTime();
        for (int i = 1; i <= cycles; i++) {
            cycle(world, fds);
            if (i % every == 0) {
                System.out.printf("cycle %4d heapAfterGc %8d KB  rss %8d KB  fds %d  (%.1f s)  %s%n", i,
                        heapAfterGc() / 1024, rssKb(), openFds(), (System.nanoTime() - start) / 1e9, committed());
            }
        }
        Thread.sleep(Long.getLong("rc.cycles.holdMillis", 0));  // time for jcmd GC.class_histogram
        System.exit(0);
    }

    /**
     * One cycle that loads the classes and creates the event loops, then up to 5 s for its sockets
     * to close: the descriptors open after it, the baseline of {@link #cycle}.
     */
    public static int warmUp(int world) throws InterruptedException {
        int before = openFds();
        cycle(world, Integer.MAX_VALUE);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        int last = openFds();
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            int now = openFds();
            if (now == last && now < before + 4 * world * world) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /**
     * Starts a cluster, runs one small all-reduce, closes it and waits until at most {@code fds}
     * descriptors are open again (its sockets are closed).
     */
    public static void cycle(int world, int fds) throws InterruptedException {
        // with rc.cycles.uniqueGroups, meters tagged with a new group id every cycle
        cycle(world, fds, Boolean.getBoolean("rc.cycles.uniqueGroups") ? "cycle-" + CYCLES.incrementAndGet() : "default");
    }

    /** {@link #cycle(int, int)} for a group named {@code groupId}. */
    public static void cycle(int world, int fds, String groupId) throws InterruptedException {
        LocalCluster c = LocalCluster.start(world, GroupOptions.defaults().withGroupId(groupId))
                .block(Duration.ofSeconds(30));
        try {
            List<Tensor> out = c.run(g -> g.allReduce(Tensor.fromFloats(new float[] {g.rank(), 1}, 2), ReduceOp.SUM))
                    .block(Duration.ofSeconds(30));
            if (out == null || out.get(0).getDouble(1) != world) {
                throw new IllegalStateException("wrong all-reduce result " + out);
            }
            out.forEach(Tensor::release);
        } finally {
            c.close();
        }
        awaitFds(fds, Duration.ofSeconds(10));
    }

    /** Waits until at most {@code limit} descriptors are open (the sockets of a closed cluster are gone). */
    public static void awaitFds(int limit, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (openFds() > limit) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("descriptors still open " + max + " after close: " + openFds()
                        + " > " + limit);
            }
            Thread.sleep(5);
        }
    }

    /** Used heap after a few full collections. */
    public static long heapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(20);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** Committed heap and non-heap memory, for telling a growing heap from other growth. */
    private static String committed() {
        var m = ManagementFactory.getMemoryMXBean();
        return "heapCommitted " + m.getHeapMemoryUsage().getCommitted() / 1024 + " KB  nonHeapUsed "
                + m.getNonHeapMemoryUsage().getUsed() / 1024 + " KB";
    }

    /** VmRSS of this process in KB (-1 where /proc is absent). */
    public static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /** Open file descriptors of this process (-1 where /proc is absent). */
    public static int openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }
}
