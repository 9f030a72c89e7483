package io.reactivecollectives.transport;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.MeteredStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-up of a group costs O(N) store operations in all, not O(N^2): each rank publishes its
 * address once, rank 0 gathers them into one key, and every other rank reads that key (issue 44).
 * Counted with a {@link MeteredStore} under {@link LocalCluster}s of 4, 8 and 16 ranks.
 */
class StartupStoreOpsTest {

    private static final Duration T = Duration.ofSeconds(30);

    /** The store operations of starting {@code world} ranks (data and liveness meshes, shared memory, job). */
    static long startUpOps(int world) {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        // no wait reports: a slow start-up on a busy machine would add their store lookups
        GroupOptions o = GroupOptions.defaults().withConnectTimeout(T);
        o = o.withDiagnostics(o.diagnostics().withWaitReportInterval(Duration.ZERO));
        try (LocalCluster c = LocalCluster.start(world, o, g -> new MeteredStore(new HashStore(g.connectTimeout()), reg))
                .block(T)) {
            assertTrue(c != null && c.size() == world);
            return reg.find(MeteredStore.TIMER).timers().stream().mapToLong(Timer::count).sum();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void storeOperationsGrowLinearlyWithTheWorldSize() {
        startUpOps(2);  // class loading and the first sockets do not count against the measured ones
        Map<Integer, Long> ops = new LinkedHashMap<>();
        for (int n : new int[] {4, 8, 16}) {
            ops.put(n, startUpOps(n));
        }
        System.out.println("start-up store operations by world size: " + ops);
        // before the address book (every rank read every lower rank's key, in both meshes): {4=39, 8=111, 16=351}
        assertTrue(ops.get(16) <= 4.5 * ops.get(4), "ops(16) > 4.5 x ops(4): " + ops);
        ops.forEach((n, k) -> assertTrue(k <= 12L * n + 8, "ops(" + n + ") = " + k + " > 12 N + 8: " + ops));
    }
}
