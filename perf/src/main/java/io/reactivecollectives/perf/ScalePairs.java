package io.reactivecollectives.perf;

import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The scale harness's every-pair exchange (issue 44): each rank of a {@link LocalCluster} sends
 * every other rank a message naming both (N (N - 1) messages, so every pair is connected, on demand
 * above {@code rc.mesh.fullUpTo}), checked on arrival; prints the descriptors per rank right after,
 * and again once the connections had {@code rc.mesh.idleAfter} and a second more to sit idle (with
 * {@code rc.mesh.onDemandLimit} set, the idle ones over the limit are closed by then); then a second
 * exchange, checked, over connections made again where they were closed.
 */
final class ScalePairs {

    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private ScalePairs() {
    }

    /** Prints one line for {@code cluster}; true when every message arrived right both times. */
    static boolean row(LocalCluster cluster, int fdsBefore) {
        int n = cluster.size();
        long t0 = System.nanoTime();
        boolean ok = exchange(cluster, 1);
        long firstMs = (System.nanoTime() - t0) / 1_000_000;
        double after = (ScaleChecks.openFds() - fdsBefore) / (double) n;
        long settle = TransportSettings.MESH_IDLE_AFTER.get().toMillis() + 1000;
        java.util.concurrent.locks.LockSupport.parkNanos(settle * 1_000_000L);
        double settled = (ScaleChecks.openFds() - fdsBefore) / (double) n;
        t0 = System.nanoTime();
        ok &= exchange(cluster, 2);
        long secondMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf(Locale.ROOT, "  %5d every pair (%d messages): %s; fds/rank after %.1f, %d ms later %.1f "
                        + "(rc.mesh.onDemandLimit %d); exchange ms %d, again %d%n", n, n * (n - 1), ok ? "right" : "NOT RIGHT",
                after, settle, settled, TransportSettings.MESH_ON_DEMAND_LIMIT.get(), firstMs, secondMs);
        return ok;
    }

    private static boolean exchange(LocalCluster c, int round) {
        int n = c.size();
        List<Tensor> held = new ArrayList<>();
        try {
            List<Mono<?>> all = new ArrayList<>();
            Tensor[] got = new Tensor[n * n];
            for (int r = 0; r < n; r++) {
                for (int p = 0; p < n; p++) {
                    if (p != r) {
                        Tensor out = Tensor.fromLongs(new long[] {round, r, p}, 3);
                        Tensor in = Tensor.fromLongs(new long[3], 3);
                        held.add(out);
                        held.add(in);
                        got[p * n + r] = in;
                        all.add(c.group(r).send(out, p, round));
                        all.add(c.group(p).recv(in, r, round));
                    }
                }
            }
            Mono.when(all).block(TIMEOUT);
            for (int p = 0; p < n; p++) {
                for (int r = 0; r < n; r++) {
                    Tensor in = got[p * n + r];
                    if (p != r && (in.getLong(0) != round || in.getLong(1) != r || in.getLong(2) != p)) {
                        return false;
                    }
                }
            }
            return true;
        } finally {
            held.forEach(Tensor::release);
        }
    }
}
