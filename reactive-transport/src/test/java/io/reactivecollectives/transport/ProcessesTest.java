package io.reactivecollectives.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * all-reduce and broadcast between separate JVM processes, one per rank, meeting through a file
 * store (the processes share this machine's file system).
 */
class ProcessesTest {

    /** Once through Unix domain sockets (ranks on one host, the default), once through TCP. */
    @ParameterizedTest(name = "unixSockets={0}")
    @ValueSource(booleans = {true, false})
    void allReduceAndBroadcastAcrossThreeProcesses(boolean unixSockets) throws Exception {
        String local = io.reactivecollectives.transport.shm.ShmSettings.fromSystemProperties().unavailableReason(3) == null
                ? "shm" : "unix";
        run(r -> "-Drc.transport.unixSockets=" + unixSockets, unixSockets ? local : "tcp");
    }

    /** Ranks that disagree on using shared memory all keep their Unix sockets (no hang, no half-shared group). */
    @org.junit.jupiter.api.Test
    void oneRankWithoutSharedMemoryKeepsEveryRankOnUnixSockets() throws Exception {
        run(r -> "-Drc.transport.sharedMemory=" + (r != 1), "unix");
    }

    private void run(java.util.function.IntFunction<String> option, String via) throws Exception {
        int world = 3;
        try (RankProcesses ranks = RankProcesses.start("processes", world, RankMain.class,
                r -> List.of(option.apply(r)), String.valueOf(world))) {
            String all = ranks.assertAllSucceed(Duration.ofSeconds(120));
            for (int r = 0; r < world; r++) {
                assertTrue(ranks.log(r).contains("RANK " + r + " OK via " + via), all);
            }
        }
    }
}
