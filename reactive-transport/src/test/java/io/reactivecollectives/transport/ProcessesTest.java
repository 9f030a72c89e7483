package io.reactivecollectives.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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
        run(r -> List.of("-Drc.transport.unixSockets=" + unixSockets), unixSockets ? local : "tcp");
    }

    /** Ranks that disagree on using shared memory all keep their Unix sockets (no hang, no half-shared group). */
    @org.junit.jupiter.api.Test
    void oneRankWithoutSharedMemoryKeepsEveryRankOnUnixSockets() throws Exception {
        run(r -> List.of("-Drc.transport.sharedMemory=" + (r != 1)), "unix");
    }

    /**
     * The sockets are native epoll ones by default on Linux x86-64 and NIO ones with
     * {@code rc.transport.native=nio} (every rank says which), and the collectives are right on both,
     * over loopback TCP and over Unix sockets (shared memory off).
     */
    @ParameterizedTest(name = "native={0}, unixSockets={1}")
    @CsvSource({"auto, false", "nio, false", "auto, true", "nio, true"})
    void socketsAreEpollByDefaultAndNioWhenSetSo(String nativeSetting, boolean unixSockets) throws Exception {
        String sockets = nativeSetting.equals("nio") ? "nio" : SocketTransportTest.expectedSockets();
        run(r -> List.of("-Drc.transport.native=" + nativeSetting, "-Drc.transport.unixSockets=" + unixSockets,
                "-Drc.transport.sharedMemory=false"), (unixSockets ? "unix/" : "tcp/") + sockets);
    }

    private void run(java.util.function.IntFunction<List<String>> options, String via) throws Exception {
        int world = 3;
        try (RankProcesses ranks = RankProcesses.start("processes", world, RankMain.class,
                options, String.valueOf(world))) {
            String all = ranks.assertAllSucceed(Duration.ofSeconds(120));
            for (int r = 0; r < world; r++) {
                assertTrue(ranks.log(r).contains("RANK " + r + " OK via " + via), all);
            }
        }
    }
}
