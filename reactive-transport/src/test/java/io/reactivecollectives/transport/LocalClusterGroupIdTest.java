package io.reactivecollectives.transport;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two LocalClusters in one JVM started without a group id of their own get different ones
 * ({@code local-<n>}), so their meters in a shared registry stay apart; an explicit id is kept.
 */
class LocalClusterGroupIdTest {

    private static final Duration T = Duration.ofSeconds(20);

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void clustersWithoutAGroupIdGetUniqueOnesAndKeepTheirMetersApart() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        GroupOptions shared = GroupOptions.defaults().withMeterRegistry(reg);
        try (LocalCluster a = LocalCluster.start(2, shared).block(T);
             LocalCluster b = LocalCluster.start(2, shared).block(T);
             LocalCluster c = LocalCluster.start(2).block(T)) {
            String ia = a.group(0).groupId();
            String ib = b.group(0).groupId();
            assertTrue(ia.matches("local-\\d+"), ia);
            assertTrue(ib.matches("local-\\d+"), ib);
            assertNotEquals(ia, ib);
            assertNotEquals(ia, c.group(0).groupId());
            assertEquals(ia, a.group(1).groupId(), "every rank of one cluster shares its id");
            allReduce(a);
            allReduce(b);
            Set<String> groups = new TreeSet<>();
            for (Meter m : reg.getMeters()) {
                m.getId().getTags().stream().filter(t -> t.getValue().equals(ia) || t.getValue().equals(ib))
                        .forEach(t -> groups.add(t.getValue()));
            }
            assertEquals(new TreeSet<>(Set.of(ia, ib)), groups, "meters tagged with each cluster's own group id");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anExplicitGroupIdIsKept() {
        try (LocalCluster a = LocalCluster.start(2, GroupOptions.defaults().withGroupId("mine")).block(T)) {
            assertEquals("mine", a.group(0).groupId());
        }
    }

    private static void allReduce(LocalCluster c) {
        Tensor[] t = {Tensor.fromFloats(new float[] {1, 2}), Tensor.fromFloats(new float[] {3, 4})};
        try {
            c.run(g -> g.allReduce(t[g.rank()], ReduceOp.SUM)).block(T);
            assertEquals(4.0, t[0].getDouble(0));
        } finally {
            t[0].release();
            t[1].release();
        }
    }
}
