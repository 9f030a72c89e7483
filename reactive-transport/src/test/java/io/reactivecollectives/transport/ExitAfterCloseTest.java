package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that closes its group and exits at once ({@code close(); System.exit(0);}) still leaves
 * in order: its peers hear its GOODBYE, so collectives it had finished are not failed by its
 * leaving, even when the event loop that writes the GOODBYE is busy as the process exits (once
 * seen in {@link ProcessesTest} on JDK 25: {@code barrier[seq=6] rank 1: peer 0 closed the
 * connection} after rank 0 had printed OK). Separate JVM processes: process exit is the point.
 */
class ExitAfterCloseTest {

    @Test
    void peersHearTheGoodbyeOfARankThatExitsRightAfterClose() throws Exception {
        try (RankProcesses ranks = RankProcesses.start("exit", 2, ExitAfterCloseMain.class, r -> List.of())) {
            String all = ranks.assertAllSucceed(Duration.ofSeconds(60));
            // in flight when the GOODBYE came ("barrier[seq=N]"), or refused at once when it came first
            // (shared memory delivers it within microseconds: "barrier rank 1: peer 0 left ...")
            assertTrue(ranks.log(1).contains("RANK 1 SAW barrier"), all);
            assertTrue(ranks.log(1).contains("rank 1: peer 0 left the group (it closed it after finishing"),
                    "rank 1 should have heard rank 0's GOODBYE, not just the end of the connection:\n" + all);
        }
    }
}
