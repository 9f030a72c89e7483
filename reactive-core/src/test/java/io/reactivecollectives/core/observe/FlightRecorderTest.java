package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlightRecorderTest {

    @TempDir
    Path dir;

    private FlightRecorder recorder(int capacity) {
        return new FlightRecorder("g0", 1, 4, FlightRecorder.Config.defaults().withCapacity(capacity).withDumpDirectory(dir));
    }

    @Test
    void ringKeepsTheLastEntriesOldestFirst() {
        FlightRecorder r = recorder(3);
        for (int i = 0; i < 5; i++) {
            r.record(i, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{4}}, new long[][] {{4}}, "ring");
        }
        assertEquals(5, r.recorded());
        List<FlightRecorderDump.Entry> es = r.entries();
        assertEquals(List.of(2L, 3L, 4L), es.stream().map(FlightRecorderDump.Entry::seq).collect(Collectors.toList()));
        assertEquals(List.of(2L, 3L, 4L), es.stream().map(FlightRecorderDump.Entry::id).collect(Collectors.toList()));
        assertNull(r.find(1));
        assertNotNull(r.find(4));
    }

    @Test
    void defaultCapacityIsTwoThousand() {
        FlightRecorder r = new FlightRecorder("g", 0, 1);
        assertEquals(2000, r.config().capacity());
        for (int i = 0; i < 2500; i++) {
            r.record(i, OpType.BARRIER, null, null, null, null);
        }
        assertEquals(2000, r.entries().size());
        assertEquals(500, r.entries().get(0).seq());
        assertThrows(IllegalArgumentException.class, () -> FlightRecorder.Config.defaults().withCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder("g", 4, 4));
    }

    @Test
    void entryMovesThroughItsStatesWithTimestamps() {
        FlightRecorder r = recorder(10);
        FlightRecorder.Entry e = r.record(7, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{2, 3}}, new long[][] {{2, 3}}, null);
        FlightRecorderDump.Entry s = r.entries().get(0);
        assertEquals("SCHEDULED", s.state());
        assertEquals("allReduce", s.op());
        assertEquals("float32", s.dtype());
        assertEquals(List.of(List.of(2L, 3L)), s.inputShapes());
        assertEquals(24, s.inputBytes());
        assertNotNull(s.scheduledAtUs());
        assertNull(s.startedAtUs());

        e.algorithm("ring").started().waitingFor(3, "recv step 1");
        s = r.entries().get(0);
        assertEquals("STARTED", s.state());
        assertEquals("ring", s.algorithm());
        assertEquals(3, s.waitingFor());
        assertEquals("recv step 1", s.waitingWhat());
        assertTrue(s.startedAtUs() >= s.scheduledAtUs());
        assertTrue(r.describe(7).contains("allReduce seq 7 STARTED"), r.describe(7));
        assertTrue(r.describe(7).contains("waiting for rank 3 (recv step 1)"), r.describe(7));

        e.failed(new IllegalStateException("peer 3 went away"));
        e.completed(); // too late: the first terminal state wins
        s = r.entries().get(0);
        assertEquals("FAILED", s.state());
        assertEquals("peer 3 went away", s.error());
        assertEquals(3, s.waitingFor(), "a failed entry keeps the peer it waited on");
        assertNotNull(s.failedAtUs());
        assertNull(s.completedAtUs());

        FlightRecorder.Entry ok = r.record(8, OpType.BARRIER, null, null, null, "direct").started().waitingFor(0);
        ok.completed();
        ok.failed("late");
        FlightRecorderDump.Entry c = r.entries().get(1);
        assertEquals("COMPLETED", c.state());
        assertNull(c.waitingFor());
        assertNull(c.error());
        assertNotNull(c.completedAtUs());
        assertTrue(r.describe(9).contains("seq 9 not in the buffer; last completed seq 8"), r.describe(9));
    }

    @Test
    void dumpWritesJsonPerRankOffTheCallingThread() throws Exception {
        FlightRecorder r = recorder(10);
        r.record(0, OpType.ALLREDUCE, DType.INT64, new long[][] {{8}}, new long[][] {{8}}, "ring").started().completed();
        r.record(1, OpType.BROADCAST, DType.FLOAT16, new long[][] {{3}}, new long[][] {{3}}, "binomial_tree").started()
                .waitingFor(2, "recv");
        // subscribed from a non-blocking thread: BlockHound fails the test if the file I/O runs there
        StepVerifier.create(r.dump().subscribeOn(Schedulers.parallel()))
                .assertNext(p -> assertEquals(dir.resolve("flight-recorder-g0-rank1.json"), p))
                .verifyComplete();
        Path file = dir.resolve("flight-recorder-g0-rank1.json");
        FlightRecorderDump d = FlightRecorder.read(file);
        assertEquals("g0", d.groupId());
        assertEquals(1, d.rank());
        assertEquals(4, d.worldSize());
        assertEquals(10, d.capacity());
        assertEquals(2, d.recorded());
        assertEquals("on request", d.reason());
        assertEquals(r.entries(), d.entries());
        String json = Files.readString(file);
        assertTrue(json.contains("\"op\" : \"broadcast\""), json);
        assertTrue(json.contains("\"waitingFor\" : 2"), json);
        try (var s = Files.list(dir)) {
            assertEquals(1, s.count(), "no temporary file is left behind");
        }
    }

    @Test
    void theDumpsOfTwoJobsWithTheSameGroupLandApartInTheirJobDirectories() throws Exception {
        String jobA = FlightRecorder.newJobId();
        String jobB = FlightRecorder.newJobId();
        assertTrue(jobA.matches("\\d{8}-\\d{6}-[0-9a-f]{6}") && !jobA.equals(jobB), jobA + " " + jobB);
        FlightRecorder a = recorder(10).job(jobA);
        FlightRecorder b = recorder(10).job(jobB);
        a.record(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{4}}, new long[][] {{4}}, "ring");
        b.record(0, OpType.BARRIER, null, null, null, null);
        b.record(1, OpType.BARRIER, null, null, null, null);
        Path fa = a.dump().block(Duration.ofSeconds(10));
        Path fb = b.dump().block(Duration.ofSeconds(10));
        assertEquals(dir.resolve("flight-recorder-" + jobA).resolve("flight-recorder-g0-rank1.json"), fa);
        assertEquals(dir.resolve("flight-recorder-" + jobB).resolve("flight-recorder-g0-rank1.json"), fb);
        assertEquals(fa.getParent(), a.dumpDirectory());
        assertEquals(1, FlightRecorder.read(fa).entries().size());
        assertEquals(2, FlightRecorder.read(fb).entries().size());
        // the dump directory stands for its newest job (the one written last)
        Files.setLastModifiedTime(fa, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        List<String> notes = new java.util.ArrayList<>();
        List<FlightRecorderDump> read = FlightRecorderAnalyzer.readAll(List.of(dir), notes::add);
        assertEquals(List.of("reading job flight-recorder-" + jobB + " (newest of 2 in " + dir
                + "; pass its directory to pick another)"), notes);
        assertEquals(1, read.size());
        assertEquals(2, read.get(0).entries().size());
        // a job's directory gives that job
        assertEquals(1, FlightRecorderAnalyzer.readAll(List.of(fa.getParent())).get(0).entries().size());
    }

    @Test
    void anAutomaticDumpSaysWhereItWent() throws Exception {
        FlightRecorder r = recorder(10).job("20250101-000000-abcdef");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        Path written;
        try {
            written = r.dumpOnFailure("allReduce[seq=0] rank 1: timed out").block(Duration.ofSeconds(10));
            r.awaitDumps().block(Duration.ofSeconds(10));
        } finally {
            System.setErr(saved);
        }
        String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        Path jobDir = dir.resolve("flight-recorder-20250101-000000-abcdef");
        assertEquals(jobDir.resolve("flight-recorder-g0-rank1.json"), written);
        // slf4j-simple (the tests' binding) writes the WARN line to System.err
        assertTrue(text.contains("group 'g0' rank 1: flight recorder dump written to " + written
                + "; every rank's dumps of this job: collectives-analyze " + jobDir), text);
    }

    @Test
    void fileNameIsSafeForAnyGroupId() {
        assertEquals("flight-recorder-a_b_c-rank2.json", FlightRecorder.fileName("a/b c", 2));
    }

    @Test
    void dumpToAnUnwritablePlaceIsAnError() throws Exception {
        Path notADir = Files.writeString(dir.resolve("plain-file"), "x");
        FlightRecorder r = new FlightRecorder("g", 0, 1, FlightRecorder.Config.defaults().withDumpDirectory(notADir));
        StepVerifier.create(r.dump()).expectError(java.io.IOException.class).verify(Duration.ofSeconds(10));
    }

    @Test
    void dumpOnFailureStartsWithoutSubscriberAndCoalesces() throws Exception {
        FlightRecorder r = recorder(100);
        r.record(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{4}}, new long[][] {{4}}, "ring").started()
                .failed("allReduce[seq=0] rank 1: timed out");
        Path file = dir.resolve("flight-recorder-g0-rank1.json");
        Mono<Path> first = r.dumpOnFailure("allReduce[seq=0] rank 1: timed out");
        Set<Mono<Path>> distinct = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        distinct.add(first);
        for (int i = 0; i < 200; i++) {
            distinct.add(r.dumpOnFailure(new IllegalStateException("failure " + i)));
        }
        assertTrue(distinct.size() <= 20, "200 failures coalesced into " + distinct.size() + " dumps");
        // nobody subscribed to most of them: the file still appears
        CountDownLatch done = new CountDownLatch(distinct.size());
        for (Mono<Path> m : distinct) {
            m.subscribe(p -> done.countDown(), e -> { });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertTrue(Files.exists(file));
        FlightRecorderDump d = FlightRecorder.read(file);
        assertEquals("FAILED", d.entries().get(0).state());
        assertTrue(d.reason().contains("timed out") || d.reason().startsWith("failure"), d.reason());
    }

    @Test
    void dumpOnFailureCanBeTurnedOff() {
        FlightRecorder r = new FlightRecorder("g0", 0, 2,
                FlightRecorder.Config.defaults().withDumpDirectory(dir).withDumpOnFailure(false));
        StepVerifier.create(r.dumpOnFailure("x")).verifyComplete();
        assertFalse(Files.exists(dir.resolve(FlightRecorder.fileName("g0", 0))));
    }

    @Test
    void concurrentRecordingLosesNothingButTheOldest() throws Exception {
        FlightRecorder r = recorder(2000);
        int threads = 4;
        int per = 1000;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < per; i++) {
                    r.record(i, OpType.ALLREDUCE, DType.FLOAT32, null, null, null).started().completed();
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        assertEquals(threads * per, r.recorded());
        List<FlightRecorderDump.Entry> es = r.entries();
        assertEquals(2000, es.size());
        assertEquals(2000, es.stream().map(FlightRecorderDump.Entry::id).distinct().count());
        assertTrue(es.stream().allMatch(FlightRecorderDump.Entry::completed));
    }

    @Test
    void jsonRoundTripIgnoresUnknownFields() throws Exception {
        FlightRecorder r = recorder(4);
        r.record(3, OpType.ALLGATHER, DType.BOOL, new long[][] {{5}}, new long[][] {{5}, {5}}, "ring");
        FlightRecorderDump d = r.snapshot("test");
        String json = FlightRecorder.toJson(d).replaceFirst("\\{", "{\"futureField\": [1,2],");
        FlightRecorderDump back = FlightRecorder.fromJson(json);
        assertEquals(d, back);
        Map<String, Object> raw = FlightRecorderJson.MAPPER.readValue(FlightRecorder.toJson(d), Map.class);
        assertEquals(1, raw.get("version"));
    }

    /**
     * The streaming writer (used so that a failure's dump does not wait for data binding to load)
     * writes exactly what the data-binding mapper writes, null fields left out, for a dump holding
     * every state an entry can be in.
     */
    @Test
    void theStreamingWriterWritesWhatTheMapperWrites() throws Exception {
        FlightRecorder r = recorder(8);
        r.record(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{2, 3}}, new long[][] {{2, 3}}, "ring").completed();
        FlightRecorder.Entry failed = r.record(1, OpType.ALLGATHER, DType.BOOL, new long[][] {{5}},
                new long[][] {{5}, {5}}, null);
        failed.failed(new IllegalStateException("peer 1 \"gone\"\n\u00e9"));
        r.record(2, OpType.BARRIER, null, new long[0][], new long[0][], "dissemination").waitingFor(1, "step 0");
        FlightRecorderDump d = r.snapshot("why: \"quoted\"");
        String mapper = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT).writeValueAsString(d);
        assertEquals(mapper, FlightRecorder.toJson(d));
        assertEquals(d, FlightRecorder.fromJson(FlightRecorder.toJson(d)));
    }

    @Test
    void jsonThatIsNotADumpIsRefusedNotReadAsAnEmptyOne() {
        for (String json : new String[] {"{}", "{\"version\": 1, \"groupId\": \"g\", \"rank\": 3, \"worldSize\": 2}", "{\"name\": \"x\"}"}) {
            java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                    () -> FlightRecorder.fromJson(json), json);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("not a flight-recorder dump"), e.getMessage());
        }
    }
}
