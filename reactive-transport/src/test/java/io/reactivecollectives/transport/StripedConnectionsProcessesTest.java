package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several connections per peer over plain TCP, between two JVM processes (a JVM's Unix domain
 * sockets are switched off with a system property read once, so the ranks need JVMs of their own
 * to meet over TCP without TLS): the stripes come up, an all-reduce and a broadcast are right, and
 * a rank that closes right after its broadcast loses nothing of the segments still on their way
 * over the other stripes when its GOODBYE arrives ({@link StripesMain}).
 */
class StripedConnectionsProcessesTest {

    @Test
    void anOrderlyCloseOverThreeStripesLosesNoSegment() throws Exception {
        try (RankProcesses ranks = RankProcesses.start("stripes", 2, StripesMain.class,
                r -> List.of("-XX:MaxDirectMemorySize=256m", "-Drc.transport.unixSockets=false"), "3", "8")) {
            String all = ranks.assertAllSucceed(Duration.ofSeconds(25));
            for (int r = 0; r < 2; r++) {
                assertTrue(ranks.log(r).contains("RANK " + r + " OK via tcp x3"), all);
            }
        }
    }
}
