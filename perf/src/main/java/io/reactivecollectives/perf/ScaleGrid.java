package io.reactivecollectives.perf;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.LocalCluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The scale harness's 2-D grid (DeviceMesh-style, issue 44): splits a {@link LocalCluster} of N
 * ranks into rows of R consecutive ranks, then into columns (rank r in column r mod R), and prints
 * the time of the two splits, the descriptors and store operations they added per rank, whether a
 * SUM all-reduce and every other collective ({@link ScaleChecks}) are right in all rows and in all
 * columns at once, and the median 4 B all-reduce of the rows and of the columns. Whether subgroups
 * ride on their parent's connections or connect their own is {@code rc.subgroups.shareConnections}.
 */
final class ScaleGrid {

    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private ScaleGrid() {
    }

    /** R: the largest divisor of {@code n} not above its square root (a square grid where there is one). */
    static int rowLength(int n) {
        int r = (int) Math.floor(Math.sqrt(n));
        while (r > 1 && n % r != 0) {
            r--;
        }
        return Math.max(1, r);
    }

    /** Splits, checks and times the grid of {@code cluster}; prints one line; true when everything was right. */
    static boolean row(LocalCluster cluster, SimpleMeterRegistry store, int iters) {
        int n = cluster.size();
        int len = rowLength(n);
        List<List<Integer>> rows = new ArrayList<>();
        List<List<Integer>> cols = new ArrayList<>();
        for (int i = 0; i < n / len; i++) {
            rows.add(new ArrayList<>());
        }
        for (int j = 0; j < len; j++) {
            cols.add(new ArrayList<>());
        }
        for (int r = 0; r < n; r++) {
            rows.get(r / len).add(r);
            cols.get(r % len).add(r);
        }
        int fds = ScaleChecks.openFds();
        long ops = ScaleChecks.storeOps(store);
        long t0 = System.nanoTime();
        List<ProcessGroup> rowGroups = split(cluster, rows);
        List<ProcessGroup> colGroups = split(cluster, cols);
        long splitMs = (System.nanoTime() - t0) / 1_000_000;
        int fdsAdded = ScaleChecks.openFds() - fds;
        long opsAdded = ScaleChecks.storeOps(store) - ops;
        try {
            String rowsBad = ScaleChecks.sumIsRight(rowGroups, len, 1 << 18) ? ScaleChecks.check(rowGroups, len, true)
                    : "SUM all-reduce";
            String colsBad = ScaleChecks.sumIsRight(colGroups, n / len, 1 << 18)
                    ? ScaleChecks.check(colGroups, n / len, true) : "SUM all-reduce";
            double rowMs = ScaleChecks.medianMs(rowGroups, 1, 3, iters);
            double colMs = ScaleChecks.medianMs(colGroups, 1, 3, iters);
            System.out.printf(Locale.ROOT, "  %5d grid %dx%d (rows of %d, columns of %d): split_ms %d, fds/rank +%.1f, "
                            + "store_ops %d, rows %s, columns %s, 4B_ms rows %.3f columns %.3f%n", n, n / len, len, len,
                    n / len, splitMs, fdsAdded / (double) n, opsAdded, rowsBad == null ? "ok" : "NO: " + rowsBad,
                    colsBad == null ? "ok" : "NO: " + colsBad, rowMs, colMs);
            return rowsBad == null && colsBad == null;
        } finally {
            rowGroups.forEach(ProcessGroup::close);
            colGroups.forEach(ProcessGroup::close);
        }
    }

    /** Every rank's subgroup of {@code partition}, in rank order. */
    private static List<ProcessGroup> split(LocalCluster cluster, List<List<Integer>> partition) {
        List<Optional<ProcessGroup>> subs = cluster.run(g -> g.split(partition).map(Optional::of)
                .defaultIfEmpty(Optional.empty())).block(TIMEOUT);
        List<ProcessGroup> mine = new ArrayList<>();
        for (Optional<ProcessGroup> s : subs) {
            mine.add(s.orElseThrow());
        }
        return mine;
    }
}
