package io.reactivecollectives.perf;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.MeteredStore;
import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * How a group scales with its world size (issue 44): for each N of {@code --worlds}, starts a
 * {@link LocalCluster} of N ranks in this JVM (real sockets between them, as separate processes on
 * one host would use: Unix domain sockets, then shared memory unless switched off) through a
 * {@link MeteredStore} over a {@link HashStore}, and prints one row: the start-up time, the open file
 * descriptors of the process per rank ({@code /proc/self/fd}), heap and direct memory per rank, the
 * store operations of the start-up, whether a SUM all-reduce of rank-dependent values is right
 * element by element (4 B and 1 MiB), and the median time of {@code --iters} all-reduces of 4 B and
 * of 1 MiB; then closes the cluster and checks that the descriptors return to where they were. A
 * world that cannot start is a row with the error, and the next world is tried. A cluster of 2 ranks
 * started and closed first brings the process-wide parts (event loops, pools, classes) that stay.
 */
@Command(name = "scale-harness", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Start-up time, fds, memory and store operations of LocalClusters of growing size.")
public final class ScaleHarness implements Callable<Integer> {

    @Option(names = "--worlds", split = ",", defaultValue = "8,16,32,64",
            description = "world sizes, in order (default ${DEFAULT-VALUE})")
    int[] worlds;

    @Option(names = "--iters", defaultValue = "20", description = "timed all-reduces per size (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = "--warmup", defaultValue = "3", description = "untimed all-reduces first (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--connect-timeout", defaultValue = "120", description = "start-up timeout, s (default ${DEFAULT-VALUE})")
    int connectTimeoutS;

    @Option(names = "--every-op", description = "also check every other collective element by element (ScaleChecks) "
            + "and count the descriptors after them")
    boolean everyOp;

    @Option(names = "--all-to-all", description = "with --every-op: all-to-all too (it connects every pair)")
    boolean allToAll;

    @Option(names = "--grid", description = "also split each world into a 2-D grid of row and column groups "
            + "(ScaleGrid): split time, descriptors and store operations added, every collective checked in both")
    boolean grid;

    @Option(names = "--all-pairs", description = "also send every other rank a message from every rank (ScalePairs): "
            + "descriptors per rank right after and once idle (rc.mesh.onDemandLimit), then again")
    boolean allPairs;

    private static final int LARGE = 1 << 20;
    private static final long MIB = 1L << 20;

    @Override
    public Integer call() {
        System.out.printf(Locale.ROOT, "# ScaleHarness: LocalCluster of N ranks in ONE JVM (pid %d), real sockets between "
                        + "the ranks (Unix domain sockets, then shared memory where its segment fits: see the transport "
                        + "column); %d cores, max heap %d MiB%n", ProcessHandle.current().pid(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() / MIB);
        System.out.println("# fds/rank, heap and direct MiB/rank: growth over the process before the start, divided by N;"
                + " store ops: every operation of the start-up (MeteredStore); ok: SUM all-reduce right element by element"
                + " (4 B and 1 MiB); times: median of " + iters + " all-reduces on all ranks at once, ms; shm_MiB: what /dev/shm"
                + " lost while the cluster was up (its shared-memory segment)");
        System.out.printf(Locale.ROOT, "# %5s %10s %8s %9s %9s %11s %9s %4s %9s %10s %9s %-9s %7s%n", "N", "start_ms", "fds",
                "fds/rank", "heap/rank", "direct/rank", "store_ops", "ok", "4B_ms", "1MiB_ms", "fds_back", "transport",
                "shm_MiB");
        // the process-wide parts (event loops, buffer pools, classes) come with the first cluster and stay
        LocalCluster.start(2).block(Duration.ofSeconds(connectTimeoutS)).close();
        System.out.println("# warm-up: a cluster of 2 ranks started and closed first (process-wide event loops, pools, classes)");
        if (everyOp) {
            System.out.println("# --every-op: " + ScaleChecks.names(allToAll) + " checked after the timings (ops column);"
                    + " fds/rank_after: descriptors per rank once they ran (connections made on demand included)");
        }
        boolean allOk = true;
        for (int n : worlds) {
            allOk &= row(n);
        }
        return allOk ? 0 : 1;
    }

    private boolean row(int n) {
        int fdsBefore = ScaleChecks.openFds();
        long heapBefore = heapUsed();
        long directBefore = directUsed();
        long shmBefore = settledShmFree();
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        Duration timeout = Duration.ofSeconds(connectTimeoutS);
        GroupOptions options = GroupOptions.defaults().withConnectTimeout(timeout).withTimeout(timeout);
        long t0 = System.nanoTime();
        LocalCluster cluster;
        try {
            cluster = LocalCluster.start(n, options, o -> new MeteredStore(new HashStore(o.connectTimeout()), reg))
                    .block(timeout.plusSeconds(10));
        } catch (RuntimeException e) {
            System.out.printf(Locale.ROOT, "  %5d failed to start after %d ms: %s%n", n,
                    (System.nanoTime() - t0) / 1_000_000, e);
            System.out.printf(Locale.ROOT, "  %5s fds back to %d of %d before: %s%n", "", settledFds(fdsBefore),
                    fdsBefore, settledFds(fdsBefore) <= fdsBefore);
            return false;
        }
        long startMs = (System.nanoTime() - t0) / 1_000_000;
        long ops = ScaleChecks.storeOps(reg);
        int fds = ScaleChecks.openFds();
        long heap = heapUsed() - heapBefore;
        long direct = directUsed() - directBefore;
        String transport = n > 1 ? cluster.group(0).transportTo(1) : "none";
        boolean ok;
        double small;
        double large;
        long shmTaken;
        try {
            List<ProcessGroup> groups = new ArrayList<>(cluster.groups());
            ok = ScaleChecks.sumIsRight(groups, n, 1) && ScaleChecks.sumIsRight(groups, n, LARGE / 4);
            small = ScaleChecks.medianMs(groups, 1, warmup, iters);
            large = ScaleChecks.medianMs(groups, LARGE / 4, warmup, iters);
            shmTaken = shmBefore - shmFree();
            if (everyOp) {
                String bad = ScaleChecks.check(cluster, allToAll);
                int fdsAfterOps = ScaleChecks.openFds();
                System.out.printf(Locale.ROOT, "  %5d ops %s, fds/rank_after %.1f%n", n, bad == null ? "yes" : "NO: " + bad,
                        (fdsAfterOps - fdsBefore) / (double) n);
                ok &= bad == null;
            }
            if (grid) {
                ok &= ScaleGrid.row(cluster, reg, iters);
            }
            if (allPairs) {
                ok &= ScalePairs.row(cluster, fdsBefore);
            }
        } finally {
            cluster.close();
        }
        int after = settledFds(fdsBefore);
        System.out.printf(Locale.ROOT, "  %5d %10d %8d %9.1f %9.2f %11.2f %9d %4s %9.3f %10.3f %9s %-9s %7.1f%n", n, startMs,
                fds - fdsBefore, (fds - fdsBefore) / (double) n, heap / (double) MIB / n, direct / (double) MIB / n, ops,
                ok ? "yes" : "NO", small, large, after <= fdsBefore ? "yes" : "NO(+" + (after - fdsBefore) + ")", transport,
                shmTaken / (double) MIB);
        return ok && after <= fdsBefore;
    }

    /** The open file descriptors of this process, once they stop falling towards {@code target} (at most 5 s). */
    private static int settledFds(int target) {
        int fds = ScaleChecks.openFds();
        for (int i = 0; i < 50 && fds > target; i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            fds = ScaleChecks.openFds();
        }
        return fds;
    }

    private static long heapUsed() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** Direct buffers the JDK counts plus those Netty allocates without a cleaner (its pools). */
    /**
     * {@link #shmFree()} once the last cluster's segment is gone: its mappings are let go after the
     * close returns, so the free space is read until it stops growing (at most 5 s).
     */
    private static long settledShmFree() {
        long last = shmFree();
        for (int i = 0; i < 50; i++) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            long now = shmFree();
            if (now <= last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** Free bytes of {@code /dev/shm} (where the ranks' segment goes), 0 when it cannot be read. */
    private static long shmFree() {
        try {
            return java.nio.file.Files.getFileStore(java.nio.file.Path.of("/dev/shm")).getUsableSpace();
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long directUsed() {
        long jdk = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(b.getName())) {
                jdk += b.getMemoryUsed();
            }
        }
        return jdk + Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new ScaleHarness(), args));
    }
}
