package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChromeTrace} on dumps written by hand, with known times. */
class ChromeTraceTest {

    private static final long T0 = 1_700_000_000_000_000L;

    private static FlightRecorderDump.Entry entry(long id, long seq, String op, String state, Long scheduled, Long started,
                                                  Long completed, Long failed, Integer waitingFor, String error) {
        return new FlightRecorderDump.Entry(id, seq, op, "float32", List.of(List.of(16L)), List.of(List.of(16L)), 64, 64,
                "ring", state, abs(scheduled), abs(started), abs(completed), abs(failed), waitingFor,
                waitingFor == null ? null : "recv step 0", error);
    }

    private static Long abs(Long relative) {
        return relative == null ? null : T0 + relative;
    }

    private static FlightRecorderDump dump(String group, int rank, int world, long dumpedAt, String reason,
                                           List<FlightRecorderDump.Entry> entries) {
        return new FlightRecorderDump(FlightRecorderDump.FORMAT_VERSION, group, rank, world, T0 + dumpedAt, reason, 2000,
                entries.size(), entries);
    }

    /**
     * Four ranks: seq 0 allReduce, rank r starting 10 r us late; seq 1 broadcast, rank 3 the straggler
     * (500 us against 200-220); seq 2 allReduce, rank 1 failed, ranks 0 and 2 still in it at their
     * dumps waiting for rank 1, rank 3 scheduled it but never started.
     */
    static List<FlightRecorderDump> fourRanks() {
        List<FlightRecorderDump> dumps = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            List<FlightRecorderDump.Entry> es = new ArrayList<>();
            es.add(entry(0, 0, "allReduce", "COMPLETED", (long) r, 10L * r, 100L, null, null, null));
            long bcStart = r == 3 ? 500 : 200 + 10L * r;
            es.add(entry(1, 1, "broadcast", "COMPLETED", bcStart - 5, bcStart, 520L, null, null, null));
            es.add(switch (r) {
                case 1 -> entry(2, 2, "allReduce", "FAILED", 600L, 605L, null, 700L, null, "connection reset by rank 3");
                case 3 -> entry(2, 2, "allReduce", "SCHEDULED", 650L, null, null, null, null, null);
                default -> entry(2, 2, "allReduce", "STARTED", 600L, 600L + 5 * r, null, null, 1, null);
            });
            dumps.add(dump("train", r, 4, r == 3 ? 1010 : 1000, r == 1 ? "allReduce seq 2 failed" : "on request", es));
        }
        return dumps;
    }

    private static List<JsonNode> events(JsonNode trace, Predicate<JsonNode> which) {
        List<JsonNode> out = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> {
            if (which.test(e)) {
                out.add(e);
            }
        });
        return out;
    }

    private static Predicate<JsonNode> ph(String ph) {
        return e -> e.get("ph").asText().equals(ph);
    }

    private static JsonNode slice(JsonNode trace, int pid, long seq) {
        List<JsonNode> xs = events(trace, ph("X").and(e -> e.get("pid").asInt() == pid && e.get("args").get("seq").asLong() == seq));
        assertEquals(1, xs.size(), "one slice of seq " + seq + " on pid " + pid);
        return xs.get(0);
    }

    /** Each flow id's points as "ph pid ts", in file order. */
    private static Map<Integer, List<String>> flows(JsonNode trace) {
        Map<Integer, List<String>> flows = new TreeMap<>();
        for (JsonNode e : events(trace, e -> "stf".contains(e.get("ph").asText()))) {
            flows.computeIfAbsent(e.get("id").asInt(), k -> new ArrayList<>())
                    .add(e.get("ph").asText() + " " + e.get("pid").asInt() + " " + e.get("ts").asDouble());
        }
        return flows;
    }

    @Test
    void fourRanksGiveOneTrackEachOneSlicePerCollectiveAndOneFlowPerCollective() throws IOException {
        StringBuilder json = new StringBuilder();
        ChromeTrace.Counts counts;
        try (var w = new java.io.StringWriter()) {
            counts = ChromeTrace.write(fourRanks(), w);
            json.append(w);
        }
        assertEquals(new ChromeTrace.Counts(4, 12, 3, 3), counts);
        JsonNode t = ChromeTraceFormat.check(json.toString());
        assertEquals("ms", t.get("displayTimeUnit").asText());
        assertEquals(T0, t.get("otherData").get("epochBaseUs").asLong());
        assertEquals("train", t.get("otherData").get("groups").asText());

        List<JsonNode> names = events(t, e -> e.get("name").asText().equals("process_name"));
        assertEquals(List.of("1 rank 0", "2 rank 1", "3 rank 2", "4 rank 3"),
                names.stream().map(e -> e.get("pid").asInt() + " " + e.get("args").get("name").asText()).toList());
        assertEquals(4, events(t, e -> e.get("name").asText().equals("thread_name")
                && e.get("args").get("name").asText().equals("collectives")).size());
        assertEquals(12, events(t, ph("X")).size());
        assertTrue(events(t, ph("X")).stream().allMatch(e -> e.get("tid").asInt() == e.get("pid").asInt()),
                "no rank's operations overlap: one thread each");

        JsonNode first = slice(t, 1, 0);
        assertEquals("allReduce seq 0", first.get("name").asText());
        assertEquals("collective", first.get("cat").asText());
        assertEquals(0, first.get("ts").asLong());
        assertEquals(100, first.get("dur").asLong());
        assertEquals("COMPLETED", first.get("args").get("state").asText());
        assertEquals("ring", first.get("args").get("algorithm").asText());
        assertEquals("float32", first.get("args").get("dtype").asText());
        assertEquals(64, first.get("args").get("inputBytes").asLong());
        assertEquals("[[16]]", first.get("args").get("inputShapes").asText());
        assertEquals("train", first.get("args").get("group").asText());

        JsonNode straggler = slice(t, 4, 1);
        assertEquals(500, straggler.get("ts").asLong());
        assertEquals(20, straggler.get("dur").asLong());
        assertEquals(5, straggler.get("args").get("queuedUs").asLong());

        JsonNode inFlight = slice(t, 1, 2);
        assertEquals("allReduce seq 2 (unfinished)", inFlight.get("name").asText());
        assertEquals(600, inFlight.get("ts").asLong());
        assertEquals(400, inFlight.get("dur").asLong(), "ends at its rank's dump");
        assertEquals("STARTED", inFlight.get("args").get("state").asText());
        assertEquals(1, inFlight.get("args").get("waitingFor").asInt());
        assertEquals("recv step 0", inFlight.get("args").get("waitingWhat").asText());
        assertTrue(inFlight.get("args").get("end").asText().contains("had not finished"));

        JsonNode failed = slice(t, 2, 2);
        assertEquals("allReduce seq 2 (FAILED)", failed.get("name").asText());
        assertEquals(605, failed.get("ts").asLong());
        assertEquals(95, failed.get("dur").asLong());
        assertEquals("connection reset by rank 3", failed.get("args").get("error").asText());
        assertFalse(failed.get("args").has("end"));

        JsonNode neverStarted = slice(t, 4, 2);
        assertEquals(650, neverStarted.get("ts").asLong(), "from its scheduling");
        assertEquals(360, neverStarted.get("dur").asLong(), "to its rank's later dump");
        assertEquals("SCHEDULED", neverStarted.get("args").get("state").asText());
        assertTrue(neverStarted.get("args").get("start").asText().contains("never started"));

        assertEquals(Map.of(
                1, List.of("s 1 0.5", "t 2 10.5", "t 3 20.5", "f 4 30.5"),
                2, List.of("s 1 200.5", "t 2 210.5", "t 3 220.5", "f 4 500.5"),
                3, List.of("s 1 600.5", "t 2 605.5", "t 3 610.5", "f 4 650.5")), flows(t),
                "each collective's arrow runs through the ranks in start order, ending at the last (the straggler)");
        List<JsonNode> ends = events(t, ph("f"));
        assertTrue(ends.stream().allMatch(e -> e.get("bp").asText().equals("e")));
        assertEquals("broadcast seq 1", ends.get(1).get("name").asText());

        List<JsonNode> dumps = events(t, ph("i"));
        assertEquals(4, dumps.size());
        assertEquals("dump: allReduce seq 2 failed", dumps.get(1).get("name").asText());
        assertEquals(1000, dumps.get(1).get("ts").asLong());
    }

    @Test
    void severalGroupsPointToPointAndOverlapsStayValid() {
        List<FlightRecorderDump> dumps = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            List<FlightRecorderDump.Entry> train = new ArrayList<>();
            // rank 0 sends seq 5 while its allReduce seq 0 runs (they overlap: two threads); rank 1 receives
            train.add(entry(0, 5, r == 0 ? "send" : "recv", "COMPLETED", 0L, 0L, 50L, null, null, null));
            train.add(entry(1, 0, "allReduce", "COMPLETED", 10L + r, 10L + r, 40L, null, null, null));
            dumps.add(dump("train", r, 2, 100, "on request", train));
            dumps.add(dump("eval", r, 2, 90, "on request",
                    List.of(entry(0, 0, "barrier", "COMPLETED", 20L, 20L, 20L, null, null, null))));
        }
        // an older dump of eval rank 0, which the newer one replaces
        dumps.add(dump("eval", 0, 2, 80, "older", List.of(entry(0, 7, "barrier", "STARTED", 5L, 5L, null, null, null, null))));

        String json = ChromeTrace.toJson(dumps);
        JsonNode t = ChromeTraceFormat.check(json);
        assertEquals("eval, train", t.get("otherData").get("groups").asText());
        assertEquals(List.of("1 eval rank 0", "2 eval rank 1", "3 train rank 0", "4 train rank 1"),
                events(t, e -> e.get("name").asText().equals("process_name")).stream()
                        .map(e -> e.get("pid").asInt() + " " + e.get("args").get("name").asText()).toList());
        assertEquals(6, events(t, ph("X")).size());
        assertTrue(events(t, ph("X")).stream().noneMatch(e -> e.get("args").get("seq").asLong() == 7),
                "the older dump is not drawn");
        JsonNode barrier = slice(t, 1, 0);
        assertEquals(1, barrier.get("dur").asLong(), "a slice of no length lasts a microsecond, so a flow can bind to it");

        JsonNode send = slice(t, 3, 5);
        JsonNode allReduce = slice(t, 3, 0);
        assertEquals(3, send.get("tid").asInt());
        assertNotEquals(3, allReduce.get("tid").asInt(), "it overlaps the send: another thread");
        assertEquals(List.of("collectives", "collectives 2"), events(t, e -> e.get("name").asText().equals("thread_name")
                && e.get("pid").asInt() == 3).stream().map(e -> e.get("args").get("name").asText()).toList());

        Map<Integer, List<String>> flows = flows(t);
        assertEquals(2, flows.size(), "eval's barrier and train's allReduce; not the send/recv pair: " + flows);
        assertEquals(List.of("s 1 20.5", "f 2 20.5"), flows.get(1));
        assertEquals(List.of("s 3 10.5", "f 4 11.5"), flows.get(2));
        assertTrue(json.startsWith("{\"traceEvents\":[\n{\"name\":\"process_name\""), json);
        assertEquals(events(t, e -> true).size() + 2, json.split("\n").length, "one event a line");
    }

    @Test
    void writesUtf8ToAStreamItLeavesOpenAndAnEmptyTraceForNoDumps() throws IOException {
        boolean[] closed = {false};
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        List<FlightRecorderDump> dumps = fourRanks();
        assertEquals(new ChromeTrace.Counts(4, 12, 3, 3), ChromeTrace.write(dumps, out));
        assertFalse(closed[0], "the caller's stream stays open");
        assertEquals(ChromeTrace.toJson(dumps), out.toString(StandardCharsets.UTF_8));

        JsonNode empty = ChromeTraceFormat.check(ChromeTrace.toJson(List.of()));
        assertEquals(0, empty.get("traceEvents").size());
    }
}
