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
