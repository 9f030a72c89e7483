package io.reactivecollectives.transport;

import io.reactivecollectives.transport.bench.ClusterCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starting and closing clusters leaves nothing behind: after a warm-up, 150 more LocalCluster(4)
 * start / all-reduce / close cycles (each waited for until its sockets are closed; every other one
 * under a new group id) keep the heap after GC within a bound that one retained mesh per cycle
 * would exceed many times over.
 */
class LocalClusterCyclesTest {

    private static final int WORLD = 4;
    private static final int WARM_UP = 30;
    private static final int MEASURED = 150;
    /** 20 KB per cycle: a closed cluster's four meshes and their channels, once retained, weigh far more. */
    private static final long BOUND_BYTES = MEASURED * 20L * 1024;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void heapStaysFlatOverStartCloseCycles() throws Exception {
        int fds = ClusterCycles.warmUp(WORLD);
        for (int i = 1; i < WARM_UP; i++) {
            ClusterCycles.cycle(WORLD, fds);
        }
        long before = ClusterCycles.heapAfterGc();
        for (int i = 0; i < MEASURED; i++) {
            // half of them under a group id of their own: per-group meters must go with their group
            ClusterCycles.cycle(WORLD, fds, i % 2 == 0 ? "default" : "cycles-" + i);
        }
        long after = ClusterCycles.heapAfterGc();
        long grown = after - before;
        System.out.println("heap after GC: " + before / 1024 + " KB -> " + after / 1024 + " KB over " + MEASURED
                + " cycles");
        assertTrue(grown < BOUND_BYTES, "heap after GC grew by " + grown / 1024 + " KB over " + MEASURED
                + " LocalCluster(" + WORLD + ") start/close cycles (" + before / 1024 + " KB -> " + after / 1024
                + " KB; bound " + BOUND_BYTES / 1024 + " KB): closed clusters are retained");
    }
}
