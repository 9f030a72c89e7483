package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Finding;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Synthetic dumps made by real recorders (one per rank), then analysed. */
class FlightRecorderAnalyzerTest {

    @TempDir
    Path dir;

    private static final long[][] V4 = {{4}};

    private List<FlightRecorder> ranks(String group, int world, int capacity) {
        List<FlightRecorder> rs = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            rs.add(new FlightRecorder(group, r, world,
                    FlightRecorder.Config.defaults().withCapacity(capacity).withDumpDirectory(dir)));
        }
        return rs;
    }

    private static void completeAll(List<FlightRecorder> rs, int fromSeq, int toSeqExclusive) {
        for (int s = fromSeq; s < toSeqExclusive; s++) {
            for (FlightRecorder r : rs) {
                r.record(s, s % 2 == 0 ? OpType.ALLREDUCE : OpType.BROADCAST, DType.FLOAT32, V4, V4, "ring")
                        .started().completed();
            }
        }
    }

    private static List<FlightRecorderDump> dumps(List<FlightRecorder> rs) {
        List<FlightRecorderDump> ds = new ArrayList<>();
        for (FlightRecorder r : rs) {
            ds.add(r.snapshot("test"));
        }
        return ds;
    }

    private static Finding only(Report report, Kind kind) {
        List<Finding> fs = report.of(kind);
        assertEquals(1, fs.size(), report.text());
        return fs.get(0);
    }

    @Test
    void namesTheRankThatNeverStartedAndTheRanksWaitingForIt() {
        List<FlightRecorder> rs = ranks("g", 4, 2000);
        completeAll(rs, 0, 42);
        for (int r = 0; r < 3; r++) {
            rs.get(r).record(42, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started()
                    .waitingFor(r == 2 ? 3 : r + 1, "recv step 0");
        }
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs));
        Finding f = only(report, Kind.BEHIND);
        assertEquals(42, f.seq());
        assertEquals(List.of(3), f.ranks());
        assertTrue(f.message().startsWith("rank 3 never started allReduce seq 42; ranks 0-2 are waiting for it"),
                f.message());
        assertTrue(f.message().contains("rank 3: last recorded broadcast seq 41 COMPLETED"), f.message());
        assertTrue(f.message().contains("rank 2: started"), f.message());
        assertTrue(f.message().contains("waiting for rank 3 (recv step 0)"), f.message());
        assertTrue(report.of(Kind.MISMATCH).isEmpty(), report.text());
        assertTrue(report.text().startsWith("[g] rank 3 never started"), report.text());
    }

    @Test
    void severalLaggardsAndAFailedWaiter() {
        List<FlightRecorder> rs = ranks("g", 6, 100);
        completeAll(rs, 0, 3);
        rs.get(0).record(3, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(1)
                .failed("allReduce[seq=3] rank 0: timed out after 5000 ms");
        rs.get(1).record(3, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(2);
        rs.get(4).record(3, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring"); // scheduled only
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs));
        Finding f = only(report, Kind.BEHIND);
        assertEquals(List.of(2, 3, 4, 5), f.ranks());
        assertTrue(f.message().startsWith("ranks 2, 3, 5 never started allReduce seq 3; rank 4 has scheduled"
                + " allReduce seq 3 but not started it; ranks 0, 1 are waiting for them"), f.message());
        assertTrue(f.message().contains("rank 0: failed while waiting for rank 1: allReduce[seq=3] rank 0: timed out"),
                f.message());
        Finding failed = only(report, Kind.FAILED);
        assertEquals(List.of(0), failed.ranks());
        assertTrue(failed.message().contains("timed out after 5000 ms"), failed.message());
    }

    @Test
    void reportsOpAndShapeMismatchesBlamingTheMinority() {
        List<FlightRecorder> rs = ranks("g", 4, 100);
        completeAll(rs, 0, 5);
        for (int r = 0; r < 4; r++) {
            OpType op = r == 1 ? OpType.BROADCAST : OpType.ALLREDUCE;
            rs.get(r).record(5, op, DType.FLOAT32, V4, V4, "ring").started();
        }
        for (int r = 0; r < 4; r++) {
            long[][] shape = r == 3 ? new long[][] {{8}} : V4;
            rs.get(r).record(6, OpType.ALLGATHER, DType.FLOAT32, shape, shape, "ring");
        }
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs));
        List<Finding> ms = report.of(Kind.MISMATCH);
        assertEquals(2, ms.size(), report.text());
        assertEquals(5, ms.get(0).seq());
        assertEquals(List.of(1), ms.get(0).ranks());
        assertEquals("mismatch at seq 5 (op differ): ranks 0, 2, 3 ran allReduce float32 [[4]]; "
                + "rank 1 ran broadcast float32 [[4]]", ms.get(0).message());
        assertEquals(List.of(3), ms.get(1).ranks());
        assertTrue(ms.get(1).message().contains("(input shapes differ)"), ms.get(1).message());
        assertTrue(ms.get(1).message().contains("rank 3 ran allGather float32 [[8]]"), ms.get(1).message());
        Finding stuck = only(report, Kind.STUCK);
        assertEquals(5, stuck.seq());
        assertEquals(List.of(0, 1, 2, 3), stuck.ranks());
    }

    @Test
    void dtypeMismatchAndAllToAllSizesMayDiffer() {
        List<FlightRecorder> rs = ranks("g", 2, 100);
        rs.get(0).record(0, OpType.ALLTOALL_BASE, DType.FLOAT32, new long[][] {{3}}, new long[][] {{5}}, "pairwise")
                .started().completed();
        rs.get(1).record(0, OpType.ALLTOALL_BASE, DType.FLOAT32, new long[][] {{5}}, new long[][] {{3}}, "pairwise")
                .started().completed();
        rs.get(0).record(1, OpType.REDUCE, DType.FLOAT32, V4, V4, "binomial_tree").started().completed();
        rs.get(1).record(1, OpType.REDUCE, DType.INT32, V4, V4, "binomial_tree").started().completed();
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs));
        Finding m = only(report, Kind.MISMATCH);
        assertEquals(1, m.seq());
        assertTrue(m.message().contains("(dtype differ)"), m.message());
        only(report, Kind.ALL_COMPLETED);
    }

    @Test
    void allCompletedAndPointToPointIgnored() {
        List<FlightRecorder> rs = ranks("g", 2, 100);
        completeAll(rs, 0, 10);
        rs.get(0).record(10, OpType.SEND, DType.FLOAT32, V4, V4, "direct").started(); // p2p: not matched
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs));
        Finding f = only(report, Kind.ALL_COMPLETED);
        assertEquals("every rank with a dump completed every recorded collective (up to seq 9)", f.message());
        assertEquals(1, report.findings().size(), report.text());
    }

    @Test
    void everyRankStartedNoneFinished() {
        List<FlightRecorder> rs = ranks("g", 3, 100);
        completeAll(rs, 0, 2);
        rs.get(0).record(2, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(1, "recv step 3");
        rs.get(1).record(2, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(2);
        rs.get(2).record(2, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().completed();
        Finding f = only(FlightRecorderAnalyzer.analyze(dumps(rs)), Kind.STUCK);
        assertTrue(f.message().startsWith("every rank started allReduce seq 2; ranks 0, 1 have not completed it"
                + " (rank 2 has)"), f.message());
        assertTrue(f.message().contains("rank 0: started") && f.message().contains("waiting for rank 1 (recv step 3)"),
                f.message());
    }

    @Test
    void missingDumpsAndEmptyRanks() {
        List<FlightRecorder> rs = ranks("g", 4, 100);
        completeAll(rs.subList(0, 2), 0, 1);
        List<FlightRecorderDump> ds = dumps(rs.subList(0, 3)); // rank 3 wrote nothing, rank 2 recorded nothing
        Report report = FlightRecorderAnalyzer.analyze(ds);
        Finding missing = only(report, Kind.MISSING_DUMP);
        assertEquals(List.of(3), missing.ranks());
        assertTrue(missing.message().startsWith("no dump from rank 3 (dumps from ranks 0-2 of 4)"), missing.message());
        Finding behind = only(report, Kind.BEHIND);
        assertEquals(List.of(2), behind.ranks());
        assertTrue(behind.message().contains("rank 2 never started allReduce seq 0; ranks 0, 1 have completed it"),
                behind.message());
        assertTrue(behind.message().contains("rank 2: recorded no collective"), behind.message());
    }

    /**
     * Rank 2 of 3 never called allReduce seq 0 and so wrote no dump; ranks 0 and 1 timed out in it
     * (rank 0 waiting for rank 2, rank 1 for rank 0): rank 2 is behind, not "nothing known".
     */
    @Test
    void aRankWithNoDumpThatOthersWaitedForIsBehind() {
        List<FlightRecorder> rs = ranks("g", 3, 100);
        rs.get(0).record(0, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(2, "recv step 0")
                .failed("allReduce[seq=0] rank 0: timed out after 1000 ms waiting for rank 2");
        rs.get(1).record(0, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(0, "recv step 0")
                .failed("allReduce[seq=0] rank 1: timed out group-wide");
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs.subList(0, 2)));
        assertEquals(List.of(2), only(report, Kind.MISSING_DUMP).ranks());
        assertTrue(report.of(Kind.STUCK).isEmpty(), report.text());
        Finding behind = only(report, Kind.BEHIND);
        assertEquals(List.of(2), behind.ranks());
        assertTrue(behind.message().startsWith("rank 2 (no dump) never started allReduce seq 0 as far as rank 0 knows;"
                + " ranks 0, 1 are waiting for it\n"), behind.message());
        assertTrue(behind.message().contains("rank 2: no dump"), behind.message());
        assertTrue(behind.message().contains("rank 0: failed while waiting for rank 2"), behind.message());
        assertEquals(List.of(0, 1), only(report, Kind.FAILED).ranks());
    }

    /**
     * Rank 2 of 3 was killed (kill -9) in allReduce seq 8181: both waiting ranks' errors say it
     * closed the connection, though only rank 1 was waiting on it. It left or died; it did not
     * "never start" it.
     */
    @Test
    void aRankWithNoDumpThatTheOthersSayClosedTheConnectionLeftOrDied() {
        List<FlightRecorder> rs = ranks("g", 3, 100);
        completeAll(rs.subList(0, 2), 8180, 8181);
        rs.get(0).record(8181, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(1, "recv step 1")
                .failed("allReduce[seq=8181] rank 0: peer 2 closed the connection (Connection reset)");
        rs.get(1).record(8181, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(2, "recv step 0")
                .failed("allReduce[seq=8181] rank 1: peer 2 closed the connection");
        Report report = FlightRecorderAnalyzer.analyze(dumps(rs.subList(0, 2)));
        Finding behind = only(report, Kind.BEHIND);
        assertEquals(List.of(2), behind.ranks());
        assertTrue(behind.message().startsWith("rank 2 (no dump) left or died during allReduce seq 8181"
                + " (ranks 0, 1: peer 2 closed the connection); ranks 0, 1 are waiting for it\n"), behind.message());
        assertFalse(behind.message().contains("never started"), behind.message());
        assertTrue(behind.message().contains("rank 2: no dump (a rank that died writes none)"), behind.message());
    }

    private static final long T0 = 1_760_000_000_000_000L;

    private static FlightRecorderDump.Entry entry(long id, long seq, Long started, Long completed, Long failed,
                                                  Integer waitingFor, String error) {
        String state = completed != null ? "COMPLETED" : failed != null ? "FAILED" : "STARTED";
        return new FlightRecorderDump.Entry(id, seq, "allReduce", "float32", List.of(List.of(4L)), List.of(List.of(4L)),
                16, 16, "ring", state, started, started, completed, failed, waitingFor, null, error);
    }

    private static FlightRecorderDump dump(int rank, int world, long at, FlightRecorderDump.Entry... entries) {
        return new FlightRecorderDump(FlightRecorderDump.FORMAT_VERSION, "g", rank, world, at, "test", 100,
                entries.length, List.of(entries));
    }

    /**
     * Rank 1 of 2 was paused (kill -STOP) for 5 s in allReduce seq 30397: rank 0 started seq 30398,
     * timed out in it and failed; rank 1, resumed, started seq 30398 5 s after rank 0 (2.4 s after
     * rank 0's failure), completed it from what rank 0 had sent, and failed seq 30399 when rank 0
     * closed the connection. Rank 1 is the late one, not rank 0.
     */
    @Test
    void aRankThatStartedLongAfterTheOthersFailedItIsTheLateOne() {
        FlightRecorderDump r0 = dump(0, 2, T0 + 2_700_000,
                entry(0, 30397, T0 - 10_000, T0, null, null, null),
                entry(1, 30398, T0 + 1_000, null, T0 + 2_601_000, 1,
                        "allReduce[seq=30398] rank 0: timed out after 2600 ms waiting for rank 1"));
        FlightRecorderDump r1 = dump(1, 2, T0 + 5_010_000,
                entry(0, 30397, T0 - 10_000, T0 + 4_990_000, null, null, null),
                entry(1, 30398, T0 + 5_001_000, T0 + 5_002_000, null, null, null),
                entry(2, 30399, T0 + 5_003_000, null, T0 + 5_004_000, 0,
                        "allReduce[seq=30399] rank 1: peer 0 closed the connection"));
        Report report = FlightRecorderAnalyzer.analyze(List.of(r0, r1));
        assertTrue(report.of(Kind.STUCK).isEmpty(), report.text());
        Finding behind = only(report, Kind.BEHIND);
        assertEquals(30398, behind.seq());
        assertEquals(List.of(1), behind.ranks());
        assertTrue(behind.message().startsWith("rank 1 started allReduce seq 30398 late: 5.000 s after rank 0,"
                + " 2.400 s after rank 0 had failed it; rank 0 has not completed it (rank 1 has)\n"), behind.message());
        assertTrue(behind.message().contains("\n  rank 1: its allReduce seq 30397 before it took 5.000 s"),
                behind.message());
        assertTrue(behind.message().contains("\n  rank 1: then failed allReduce seq 30399: allReduce[seq=30399] rank 1:"
                + " peer 0 closed the connection"), behind.message());
        assertEquals(List.of(0), only(report, Kind.FAILED).ranks());
    }

    /** Every rank started it, one 3 s after the others, and none finished: that one is late. */
    @Test
    void aRankThatStartedSecondsAfterTheOthersIsLateAndCloseStartsAreNot() {
        FlightRecorderDump r0 = dump(0, 3, T0 + 9_000_000, entry(0, 5, T0, null, null, 2, null));
        FlightRecorderDump r1 = dump(1, 3, T0 + 9_000_000, entry(0, 5, T0 + 200_000, null, null, 2, null));
        FlightRecorderDump r2 = dump(2, 3, T0 + 9_000_000, entry(0, 5, T0 + 3_000_000, null, null, 0, null));
        Finding behind = only(FlightRecorderAnalyzer.analyze(List.of(r0, r1, r2)), Kind.BEHIND);
        assertEquals(List.of(2), behind.ranks());
        assertTrue(behind.message().startsWith("rank 2 started allReduce seq 5 late: 3.000 s after rank 0;"
                + " ranks 0-2 have not completed it\n"), behind.message());
    }

    @Test
    void evictedEntriesAreNotMistakenForLaggards() {
        List<FlightRecorder> rs = ranks("g", 2, 5);
        completeAll(rs.subList(0, 1), 0, 20); // rank 0 holds seq 15-19
        completeAll(rs.subList(1, 2), 0, 18); // rank 1 holds seq 13-17, then starts 18
        rs.get(1).record(18, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(0);
        Finding f = only(FlightRecorderAnalyzer.analyze(dumps(rs)), Kind.STUCK);
        assertEquals(18, f.seq());
        assertEquals(List.of(1), f.ranks());
    }

    @Test
    void groupsAreAnalysedSeparatelyAndTheLatestDumpOfARankWins() {
        List<FlightRecorder> a = ranks("a", 2, 10);
        List<FlightRecorder> b = ranks("b", 2, 10);
        completeAll(a, 0, 1);
        List<FlightRecorderDump> ds = new ArrayList<>(dumps(a));
        completeAll(b, 0, 1);
        b.get(0).record(1, OpType.BARRIER, null, null, null, "direct").started();
        ds.addAll(dumps(b));
        FlightRecorderDump stale = a.get(1).snapshot("old");
        a.get(0).record(1, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started();
        a.get(1).record(1, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().completed();
        ds.add(stale);
        ds.addAll(dumps(a));
        Report report = FlightRecorderAnalyzer.analyze(ds);
        assertEquals("b", only(report, Kind.BEHIND).groupId());
        String msg = only(report, Kind.BEHIND).message();
        assertTrue(msg.startsWith("rank 1 never started barrier seq 1; rank 0 is waiting for it\n"
                + "  rank 1: last recorded allReduce seq 0 COMPLETED\n  rank 0: started "), msg);
        Finding aStuck = only(report, Kind.STUCK);
        assertEquals("a", aStuck.groupId());
        assertEquals(List.of(0), aStuck.ranks());
    }

    @Test
    void readsDumpFilesFromADirectory() throws Exception {
        List<FlightRecorder> rs = ranks("job/7", 3, 100);
        completeAll(rs, 0, 4);
        rs.get(0).record(4, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(1);
        rs.get(2).record(4, OpType.ALLREDUCE, DType.FLOAT32, V4, V4, "ring").started().waitingFor(1);
        Flux.fromIterable(rs).concatMap(FlightRecorder::dump).blockLast(Duration.ofSeconds(10));
        Files.writeString(dir.resolve("unrelated.json"), "{not json");
        List<FlightRecorderDump> ds = FlightRecorderAnalyzer.readAll(List.of(dir));
        assertEquals(3, ds.size());
        Finding f = only(FlightRecorderAnalyzer.analyze(ds), Kind.BEHIND);
        assertEquals("job/7", f.groupId());
        assertTrue(f.message().startsWith("rank 1 never started allReduce seq 4; ranks 0, 2 are waiting for it"),
                f.message());
        Path broken = Files.writeString(dir.resolve("flight-recorder-x-rank0.json"), "{\"rank\": ");
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> FlightRecorderAnalyzer.readAll(List.of(broken)));
        assertTrue(e.getMessage().contains("flight-recorder-x-rank0.json"), e.getMessage());
    }

    @Test
    void rankRangesReadNaturally() {
        assertEquals("rank 3", FlightRecorderAnalyzer.ranks(List.of(3)));
        assertEquals("ranks 0-2", FlightRecorderAnalyzer.ranks(List.of(2, 0, 1)));
        assertEquals("ranks 0, 1", FlightRecorderAnalyzer.ranks(List.of(0, 1)));
        assertEquals("ranks 0, 2, 4-7, 9", FlightRecorderAnalyzer.ranks(List.of(0, 2, 4, 5, 6, 7, 9)));
        assertEquals("no rank", FlightRecorderAnalyzer.ranks(List.of()));
    }
}
