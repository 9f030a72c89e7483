package io.reactivecollectives.dashboard;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class StragglersTest {

    /** When the ranks were read: now, as for a rank that did not answer. */
    private static final long NOW_US = java.util.concurrent.TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());

    private static RankState rank(int r, long lastSeq, RankState.Running... running) {
        return new RankState(r, true, null, "g", "j", 4, 0, "h", 1L, NOW_US, lastSeq, List.of(running), List.of(), 0.0,
                0.0, 0.0, 0.0, List.of());
    }

    private static RankState.Running allReduce(long seq, double ageMs, Integer... waitingFor) {
        return new RankState.Running("allReduce", seq, 4, "ring", "STARTED", ageMs, 0, List.of(waitingFor));
    }

    @Test
    void namesTheRankThatHasNotStartedTheCollectiveTheOthersWaitIn() {
        List<RankState> ranks = List.of(rank(0, 4812, allReduce(4812, 1800, 3)), rank(1, 4812, allReduce(4812, 1750, 0)),
                rank(2, 4812, allReduce(4812, 1700, 1)), rank(3, 4811));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("rank 3 has not started allReduce seq 4,812; the others waited 1.8 s", s.banner());
        assertEquals(List.of(3), s.stragglers());
    }

    @Test
    void namesNobodyBeforeTheOthersHaveWaitedLongEnough() {
        List<RankState> ranks = List.of(rank(0, 7, allReduce(7, 120, 3)), rank(1, 7, allReduce(7, 110, 0)),
                rank(2, 6), rank(3, 6));
        Stragglers s = Stragglers.of(ranks, 500);
        assertNull(s.banner());
        assertEquals(List.of(), s.stragglers());
    }

    @Test
    void namesEveryRankThatHasNotStarted() {
        List<RankState> ranks = List.of(rank(0, 9, allReduce(9, 2500, 2)), rank(1, 9, allReduce(9, 2400, 0)),
                rank(2, 8), rank(3, 7));
        assertEquals("ranks 2, 3 have not started allReduce seq 9; the others waited 2.5 s",
                Stragglers.of(ranks, 500).banner());
    }

    @Test
    void followsARingsWaitsToTheRankTheyEndAt() {
        // all started seq 5; 0 waits for 3, 1 for 0, 2 for 1; 3 waits for nobody (slow to send)
        List<RankState> ranks = List.of(rank(0, 5, allReduce(5, 900, 3)), rank(1, 5, allReduce(5, 950, 0)),
                rank(2, 5, allReduce(5, 990, 1)), rank(3, 5, allReduce(5, 990)));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("ranks 0, 1, 2 wait for rank 3 in allReduce seq 5 for 1.0 s", s.banner());
        assertEquals(List.of(3), s.stragglers());
    }

    @Test
    void aCycleOfWaitsNamesNobody() {
        List<RankState> ranks = List.of(rank(0, 5, allReduce(5, 900, 1)), rank(1, 5, allReduce(5, 950, 0)));
        assertNull(Stragglers.of(ranks, 500).banner());
    }

    @Test
    void anUnreachableRankIsNamedWhenNothingElseIs() {
        List<RankState> ranks = new ArrayList<>(List.of(rank(0, 3), rank(1, 3)));
        ranks.add(RankState.unreachable(2, "connection refused", NOW_US));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("rank 2 does not answer the dashboard (connection refused)", s.banner());
        assertEquals(List.of(2), s.stragglers());
    }

    @Test
    void aSilentRankIsNamedWhenTheOthersWaitAndAllThatAnswerStarted() {
        List<RankState> ranks = new ArrayList<>(List.of(rank(0, 12, allReduce(12, 3000, 2)), rank(1, 12, allReduce(12, 2900, 0)),
                rank(2, 12, allReduce(12, 2950, 1))));
        ranks.add(RankState.unreachable(3, "no answer within 1500 ms", NOW_US));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("rank 3 does not answer the dashboard (no answer within 1500 ms); the others wait in allReduce seq 12 for 3.0 s",
                s.banner());
        assertEquals(List.of(3), s.stragglers());
    }

    @Test
    void aRankReadEarlierHasWaitedLongerByTheDifference() {
        // rank 0 was read 1.2 s before rank 2 answered: its 100 ms wait is 1.3 s by then
        RankState r0 = new RankState(0, true, null, "g", "j", 3, 0, "h", 1L, 1_000_000L, 7L, List.of(allReduce(7, 100, 2)),
                List.of(), 0.0, 0.0, 0.0, 0.0, List.of());
        RankState r1 = new RankState(1, true, null, "g", "j", 3, 0, "h", 1L, 2_200_000L, 6L, List.of(), List.of(), 0.0, 0.0,
                0.0, 0.0, List.of());
        assertEquals("rank 1 has not started allReduce seq 7; the others waited 1.3 s",
                Stragglers.of(List.of(r0, r1), 500).banner());
    }
    private static RankState reportingDead(int r, long lastSeq, int dead, String death) {
        return new RankState(r, true, null, "g", "j", 3, 0, "h", 1L, NOW_US, lastSeq, List.of(), List.of(), 0.0, 0.0, 0.0,
                0.0, List.of(new RankState.PeerState(dead, "tcp", false, death, lastSeq, 0, 0, 0, 0)));
    }

    @Test
    void anUnreachableRankItsPeersReportDeadIsGone() {
        List<RankState> ranks = new ArrayList<>(List.of(reportingDead(0, 3, 2, "peer 2 closed the connection"),
                reportingDead(1, 3, 2, "peer 2 closed the connection")));
        ranks.add(RankState.unreachable(2, "connection refused", NOW_US));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("rank 2 is gone (peer 2 closed the connection, as rank 0 reports)", s.banner());
        assertEquals(List.of(2), s.stragglers());
    }

    @Test
    void goneAndSilentRanksAreNamedApart() {
        List<RankState> ranks = new ArrayList<>(List.of(reportingDead(0, 3, 3, "no heartbeat for 2500 ms")));
        ranks.add(RankState.unreachable(1, "no answer within 1500 ms", NOW_US));
        ranks.add(RankState.unreachable(3, "connection refused", NOW_US));
        Stragglers s = Stragglers.of(ranks, 500);
        assertEquals("rank 3 is gone (no heartbeat for 2500 ms, as rank 0 reports); rank 1 does not answer the dashboard "
                + "(no answer within 1500 ms)", s.banner());
        assertEquals(List.of(1, 3), s.stragglers());
    }

    @Test
    void whyARankDidNotAnswerIsSaidWithoutNettysWording() {
        Exception refused = new java.net.ConnectException(
                "finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:33977");
        assertEquals("connection refused", JobStates.reason(refused));
        assertEquals("connection refused", JobStates.reason(new RuntimeException("wrapped", refused)));
        assertEquals("connection reset", JobStates.reason(new java.io.IOException("Connection reset by peer")));
        assertEquals("no answer within 1500 ms", JobStates.reason(new IllegalStateException("no answer within 1500 ms")));
    }
}
