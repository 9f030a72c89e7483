package io.reactivecollectives.spark;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver-side checks and the rendezvous' bound; no Spark context. */
class BarrierStagesTest {

    @Test
    void dynamicAllocationIsRefusedWithTheSettingNamed() {
        SparkConf conf = new SparkConf(false).setMaster("yarn").set("spark.dynamicAllocation.enabled", "true");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BarrierStages.requireRunnable(conf, 4));
        assertTrue(e.getMessage().contains("spark.dynamicAllocation.enabled=true") && e.getMessage().contains("barrier"),
                e.getMessage());
        // Spark ignores dynamic allocation on a local master (its tests opt in with spark.dynamicAllocation.testing)
        assertDoesNotThrow(() -> BarrierStages.requireRunnable(
                new SparkConf(false).setMaster("local[4]").set("spark.dynamicAllocation.enabled", "true"), 4));
        assertThrows(IllegalStateException.class, () -> BarrierStages.requireRunnable(
                conf.clone().setMaster("local-cluster[2,1,1024]"), 2));
    }

    @Test
    void tooFewLocalSlotsAreRefusedWithTheCounts() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BarrierStages.requireRunnable(new SparkConf(false).setMaster("local[2]"), 3));
        assertTrue(e.getMessage().contains("3 tasks") && e.getMessage().contains("2 task slot(s)"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> BarrierStages.requireRunnable(new SparkConf(false).setMaster("local"), 2));
        assertThrows(IllegalStateException.class, () -> BarrierStages.requireRunnable(
                new SparkConf(false).setMaster("local[4]").set("spark.task.cpus", "2"), 3));
        assertDoesNotThrow(() -> BarrierStages.requireRunnable(new SparkConf(false).setMaster("local-cluster[2,1,1024]"), 2));
        assertThrows(IllegalArgumentException.class, () -> BarrierStages.requireRunnable(new SparkConf(false).setMaster("local[2]"), 0));
    }

    @Test
    void localSlotsOfEachLocalMaster() {
        assertEquals(OptionalInt.of(1), BarrierStages.localSlots("local", 1));
        assertEquals(OptionalInt.of(3), BarrierStages.localSlots("local[3]", 1));
        assertEquals(OptionalInt.of(3), BarrierStages.localSlots("local[3, 2]", 1));
        assertEquals(OptionalInt.of(Runtime.getRuntime().availableProcessors()), BarrierStages.localSlots("local[*]", 1));
        assertEquals(OptionalInt.of(6), BarrierStages.localSlots("local-cluster[3,2,1024]", 1));
        assertEquals(OptionalInt.empty(), BarrierStages.localSlots("spark://host:7077", 1));
    }

    @Test
    void barrierSyncTimeoutBoundsTheRendezvousWhenShorter() {
        Duration connect = Duration.ofSeconds(60);
        assertEquals(connect, BarrierProcessGroups.rendezvousTimeout(connect, new SparkConf(false)));
        assertEquals(connect, BarrierProcessGroups.rendezvousTimeout(connect, null));
        assertEquals(Duration.ofSeconds(20), BarrierProcessGroups.rendezvousTimeout(connect,
                new SparkConf(false).set(BarrierProcessGroups.BARRIER_SYNC_TIMEOUT, "20s")));
        assertEquals(connect, BarrierProcessGroups.rendezvousTimeout(connect,
                new SparkConf(false).set(BarrierProcessGroups.BARRIER_SYNC_TIMEOUT, "365d")));
    }

    @Test
    void hostOfAnExecutorAddress() {
        assertEquals("10.0.0.7", BarrierProcessGroups.hostOf("10.0.0.7:41234"));
        assertEquals("node-1.example", BarrierProcessGroups.hostOf("node-1.example:41234"));
        assertEquals("fe80::1", BarrierProcessGroups.hostOf("[fe80::1]:41234"));
        assertEquals("localhost", BarrierProcessGroups.hostOf("localhost"));
    }
}
