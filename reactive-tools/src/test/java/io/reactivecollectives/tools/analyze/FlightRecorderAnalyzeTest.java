package io.reactivecollectives.tools.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.observe.ChromeTraceFormat;
import io.reactivecollectives.core.observe.FlightRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlightRecorderAnalyzeTest {

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = FlightRecorderAnalyze.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private void writeDumps(String group, int world, int missingRank, long stuckSeq) {
        for (int r = 0; r < world; r++) {
            FlightRecorder rec = new FlightRecorder(group, r, world,
                    FlightRecorder.Config.defaults().withDumpDirectory(dir));
            for (long s = 0; s < stuckSeq; s++) {
                rec.record(s, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{16}}, new long[][] {{16}}, "ring")
                        .started().completed();
            }
            if (r != missingRank) {
                rec.record(stuckSeq, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{16}}, new long[][] {{16}}, "ring")
                        .started().waitingFor(missingRank, "recv step 0");
            }
            rec.dump().block(Duration.ofSeconds(10));
        }
    }

    @Test
    void namesTheMissingRankAndExitsOne() {
        writeDumps("train", 4, 3, 42);
        Run r = run(dir.toString());
        assertEquals(1, r.code, r.out + r.err);
        assertTrue(r.out.startsWith("[train] rank 3 never started allReduce seq 42; ranks 0-2 are waiting for it"), r.out);
    }

    /** Ranks 0 and 2 of 3 dumped while stuck in seq 0 (rank 2 waiting for rank 1); rank 1 left no dump. */
    @Test
    void neverSpeaksOfEveryRankWhenSomeLeftNoDump() {
        for (int r : new int[] {0, 2}) {
            FlightRecorder rec = new FlightRecorder("job", r, 3, FlightRecorder.Config.defaults().withDumpDirectory(dir));
            var started = rec.record(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{16}}, new long[][] {{16}}, "ring")
                    .started();
            if (r == 2) {
                started.waitingFor(1, "recv step 0");
            }
            rec.dump().block(Duration.ofSeconds(10));
        }
        Run r = run(dir.toString());
        assertEquals(1, r.code, r.out + r.err);
        assertTrue(r.out.startsWith("[job] no dump from rank 1 (dumps from ranks 0, 2 of 3); all that is known of it"
                + " is what the others recorded\n"), r.out);
        // rank 2's dump says it waited for rank 1: rank 1 is behind, as far as rank 2 knows
        assertTrue(r.out.contains("[job] rank 1 (no dump) never started allReduce seq 0 as far as rank 2 knows;"
                + " ranks 0, 2 are waiting for it"), r.out);
        assertFalse(r.out.contains("every rank"), r.out);
    }

    /** Rank 2 of 3 never called allReduce: it wrote no dump; ranks 0 and 1 timed out waiting (0 for 2, 1 for 0). */
    @Test
    void aRankThatNeverCalledAndWroteNoDumpIsNamedBehind() {
        for (int r : new int[] {0, 1}) {
            FlightRecorder rec = new FlightRecorder("job", r, 3, FlightRecorder.Config.defaults().withDumpDirectory(dir));
            rec.record(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{16}}, new long[][] {{16}}, "ring")
                    .started().waitingFor(r == 0 ? 2 : 0, "recv step 0").failed("timed out");
            rec.dump().block(Duration.ofSeconds(10));
        }
        Run r = run(dir.toString());
        assertEquals(1, r.code, r.out + r.err);
        assertTrue(r.out.contains("[job] rank 2 (no dump) never started allReduce seq 0 as far as rank 0 knows;"
                + " ranks 0, 1 are waiting for it\n"), r.out);
        assertFalse(r.out.contains("nothing is known"), r.out);
    }

    @Test
    void cleanDumpsExitZeroAndGroupFilterApplies() throws Exception {
        writeDumps("train", 2, 1, 3);
        Path clean = Files.createDirectories(dir.resolve("clean"));
        FlightRecorder rec = new FlightRecorder("eval", 0, 1, FlightRecorder.Config.defaults().withDumpDirectory(clean));
        rec.record(0, OpType.BARRIER, null, null, null, "direct").started().completed();
        rec.dump().block(Duration.ofSeconds(10));
        Run ok = run(clean.resolve(FlightRecorder.fileName("eval", 0)).toString());
        assertEquals(0, ok.code, ok.out + ok.err);
        assertTrue(ok.out.contains("[eval] every rank with a dump completed every recorded collective (up to seq 0)"), ok.out);
        Run none = run("--group", "nope", dir.toString());
        assertEquals(2, none.code);
        assertTrue(none.err.contains("no flight-recorder dump found"), none.err);
    }

    @Test
    void unreadableDumpExitsTwo() throws Exception {
        Path bad = Files.writeString(dir.resolve("flight-recorder-x-rank0.json"), "[]");
        Run r = run(bad.toString());
        assertEquals(2, r.code);
        assertTrue(r.err.contains("flight-recorder-x-rank0.json"), r.err);
    }

    @Test
    void aDirectoryOfJobsSaysWhichJobItReadAndHowManyThereAre() throws Exception {
        String[] jobs = {"20261128-231634-9eee81", "20261128-231700-0a1b2c", "20261127-080000-ffffff"};
        long now = System.currentTimeMillis();
        for (int j = 0; j < jobs.length; j++) {
            FlightRecorder rec = new FlightRecorder("train", 0, 1, FlightRecorder.Config.defaults().withDumpDirectory(dir))
                    .job(jobs[j]);
            for (long s = 0; s <= j; s++) {   // job j completed seq 0..j
                rec.record(s, OpType.BARRIER, null, null, null, "direct").started().completed();
            }
            Path dump = rec.dump().block(Duration.ofSeconds(10));
            // the first job is the newest (written last), whatever its name says
            Files.setLastModifiedTime(dump, java.nio.file.attribute.FileTime.fromMillis(now - (j + 1) * 60_000L));
        }
        Run r = run(dir.toString());
        assertEquals(0, r.code, r.out + r.err);
        assertEquals("reading job flight-recorder-20261128-231634-9eee81 (newest of 3 in " + dir
                + "; pass its directory to pick another)" + System.lineSeparator(), r.err);
        assertTrue(r.out.contains("(up to seq 0)"), "the newest job's dump was read:\n" + r.out);
        Run picked = run(dir.resolve("flight-recorder-" + jobs[2]).toString());
        assertEquals("", picked.err, "a job's own directory needs no word");
        assertTrue(picked.out.contains("(up to seq 2)"), picked.out);
        Path alone = Files.createDirectories(dir.resolve("alone"));
        Files.move(dir.resolve("flight-recorder-" + jobs[1]), alone.resolve("flight-recorder-" + jobs[1]));
        Run only = run(alone.toString());
        assertEquals("reading job flight-recorder-" + jobs[1] + " (the only one in " + alone + ")"
                + System.lineSeparator(), only.err);
        assertTrue(only.out.contains("(up to seq 1)"), only.out);
    }

    @Test
    void traceWritesTheSelectedGroupsDumpsAsAValidTraceAndSaysWhereInOneLine() throws Exception {
        writeDumps("train", 4, 3, 2);   // seq 0, 1 on every rank; seq 2 on ranks 0-2, which wait for rank 3
        FlightRecorder other = new FlightRecorder("eval", 0, 1, FlightRecorder.Config.defaults().withDumpDirectory(dir));
        other.record(0, OpType.BARRIER, null, null, null, "direct").started().completed();
        other.dump().block(Duration.ofSeconds(10));
        Path out = dir.resolve("trace.json");

        Run r = run("--trace", out.toString(), "--group", "train", dir.toString());
        assertEquals(0, r.code, "a written trace exits 0 even though rank 3 is behind: " + r.out + r.err);
        assertEquals("trace of 4 ranks (3 collectives, 11 slices, 3 flows) written to " + out
                + "; open it in ui.perfetto.dev or chrome://tracing" + System.lineSeparator(), r.out, "one line, no report");
        assertEquals("", r.err);
        JsonNode trace = ChromeTraceFormat.check(Files.readString(out));
        assertEquals("train", trace.get("otherData").get("groups").asText(), "--group applies");
        int unfinished = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.get("name").asText().equals("allReduce seq 2 (unfinished)")) {
                unfinished++;
                assertEquals(3, e.get("args").get("waitingFor").asInt());
            }
        }
        assertEquals(3, unfinished);

        Run both = run("--trace", out.toString(), dir.toString());
        assertEquals(0, both.code, both.err);
        assertTrue(both.out.startsWith("trace of 5 ranks (4 collectives, 12 slices, 3 flows)"), both.out);
        assertEquals("eval, train", ChromeTraceFormat.check(Files.readString(out)).get("otherData").get("groups").asText());
    }

    /** Rank 2 of 3 (killed) wrote no dump: the trace's line says which rank it lacks. */
    @Test
    void traceSaysWhichRanksHaveNoDump() throws Exception {
        writeDumps("train", 3, 2, 2);
        Files.delete(dir.resolve(FlightRecorder.fileName("train", 2)));
        Path out = dir.resolve("trace.json");
        Run r = run("--trace", out.toString(), dir.toString());
        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.startsWith("trace of 2 ranks of 3 (no dump from rank 2) (3 collectives, "), r.out);

        FlightRecorder other = new FlightRecorder("eval", 0, 1, FlightRecorder.Config.defaults().withDumpDirectory(dir));
        other.record(0, OpType.BARRIER, null, null, null, "direct").started().completed();
        other.dump().block(Duration.ofSeconds(10));
        Run both = run("--trace", out.toString(), dir.toString());
        assertTrue(both.out.startsWith("trace of 3 ranks (no dump from rank 2 of 3 in group train) (4 collectives, "),
                both.out);
    }

    @Test
    void aTraceThatCannotBeWrittenOrHasNoDumpExitsTwoWithOneLine() throws Exception {
        writeDumps("train", 2, 1, 1);
        Run toDirectory = run("--trace", dir.toString(), dir.toString());
        assertEquals(2, toDirectory.code);
        assertEquals("", toDirectory.out);
        assertEquals("cannot write the trace to " + dir + ": Is a directory" + System.lineSeparator(), toDirectory.err);

        Path nowhere = dir.resolve("no/such/dir/trace.json");
        Run noDir = run("--trace", nowhere.toString(), dir.toString());
        assertEquals(2, noDir.code);
        assertEquals("cannot write the trace to " + nowhere + ": its directory does not exist" + System.lineSeparator(),
                noDir.err);

        Path out = dir.resolve("trace.json");
        Run none = run("--trace", out.toString(), "--group", "nope", dir.toString());
        assertEquals(2, none.code);
        assertTrue(none.err.startsWith("no flight-recorder dump found"), none.err);
        assertFalse(Files.exists(out), "no dump, no file");

        Run help = run("--help");
        assertEquals(0, help.code);
        assertTrue(help.out.contains("--trace=OUT.json"), help.out);
    }
}
