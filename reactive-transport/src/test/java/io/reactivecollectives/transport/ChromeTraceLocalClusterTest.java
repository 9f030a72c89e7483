package io.reactivecollectives.transport;

import com.fasterxml.jackson.databind.JsonNode;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.ChromeTrace;
import io.reactivecollectives.core.observe.ChromeTraceFormat;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link ChromeTrace} on the dumps of real ranks: four ranks of a {@link LocalCluster} run
 * all-reduces and broadcasts, each rank dumps its flight recorder to a file, and the trace of the
 * files read back is valid, with one slice per rank per collective and one flow per collective
 * through all four ranks.
 */
class ChromeTraceLocalClusterTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final int WORLD = 4;

    @TempDir
    Path dir;

    @Test
    void aFourRankRunGivesOneSlicePerRankPerCollectiveAndOneFlowPerCollective() throws Exception {
        GroupOptions options = GroupOptions.defaults().withGroupId("traced").withTimeout(T)
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(dir));
        List<Tensor> ts = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            ts.add(Tensor.zeros(DType.FLOAT32, 4096).fill(r + 1));
        }
        List<FlightRecorderDump> dumps = new ArrayList<>();
        LocalCluster c = LocalCluster.start(WORLD, options).block(T);
        try {
            for (int i = 0; i < 3; i++) {
                c.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)).block(T);    // seq 0, 2, 4
                c.run(g -> g.broadcast(ts.get(g.rank()), 1)).block(T);               // seq 1, 3, 5
            }
            for (int r = 0; r < WORLD; r++) {
                Path file = c.group(r).flightRecorder().dump().block(T);
                dumps.add(FlightRecorder.read(file));
            }
        } finally {
            c.close();
            ts.forEach(Tensor::release);
        }

        String json = ChromeTrace.toJson(dumps);
        JsonNode trace = ChromeTraceFormat.check(json);

        Map<Long, Integer> slicesPerSeq = new TreeMap<>();
        Map<Integer, Integer> slicesPerPid = new TreeMap<>();
        Map<Integer, List<String>> flows = new TreeMap<>();
        Map<Integer, String> processes = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            String ph = e.get("ph").asText();
            int pid = e.get("pid").asInt();
            if (ph.equals("X")) {
                assertEquals("COMPLETED", e.get("args").get("state").asText(), e.toString());
                slicesPerSeq.merge(e.get("args").get("seq").asLong(), 1, Integer::sum);
                slicesPerPid.merge(pid, 1, Integer::sum);
            } else if ("stf".contains(ph)) {
                flows.computeIfAbsent(e.get("id").asInt(), k -> new ArrayList<>()).add(ph + pid);
            } else if (e.get("name").asText().equals("process_name")) {
                processes.put(pid, e.get("args").get("name").asText());
            }
        }
        assertEquals(Map.of(1, "rank 0", 2, "rank 1", 3, "rank 2", 4, "rank 3"), processes);
        assertEquals(Map.of(0L, 4, 1L, 4, 2L, 4, 3L, 4, 4L, 4, 5L, 4), slicesPerSeq, "one slice per rank per collective");
        assertEquals(Map.of(1, 6, 2, 6, 3, 6, 4, 6), slicesPerPid);
        assertEquals(6, flows.size(), "one flow per collective: " + flows);
        for (List<String> points : flows.values()) {
            assertEquals(4, points.size(), "each through every rank: " + points);
            // in file order, by rank; the validator checked that they run s, t, t, f in time
            assertEquals(List.of("f", "s", "t", "t"), points.stream().map(p -> p.substring(0, 1)).sorted().toList(),
                    points.toString());
            assertEquals(4, points.stream().map(p -> p.substring(1)).distinct().count(), "on four ranks: " + points);
        }
        List<String> names = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> {
            if (e.get("ph").asText().equals("X") && e.get("pid").asInt() == 1) {
                names.add(e.get("name").asText());
            }
        });
        assertEquals(List.of("allReduce seq 0", "broadcast seq 1", "allReduce seq 2", "broadcast seq 3",
                "allReduce seq 4", "broadcast seq 5"), names);
        assertEquals(new ChromeTrace.Counts(WORLD, 24, 6, 6), ChromeTrace.write(dumps, new java.io.StringWriter()));
    }
}
