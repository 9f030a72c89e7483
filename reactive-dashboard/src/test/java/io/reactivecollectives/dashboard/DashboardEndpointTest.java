package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoints of a real 4-rank job: what they serve, and the banner that names a rank held back. */
class DashboardEndpointTest {

    private static DashboardCluster job;

    @BeforeAll
    static void start() {
        job = DashboardCluster.start(4);
    }

    @AfterAll
    static void stop() {
        if (job != null) {
            job.close();
        }
    }

    @Test
    void aRankServesWhatItRanAndWhatItMovedToEachPeer() throws Exception {
        List<Double> out = job.allReduce(1 << 16, List.of(0, 1, 2, 3)).block(Duration.ofSeconds(30));
        assertEquals(List.of(10.0, 10.0, 10.0, 10.0), out);
        HttpResponse<String> res = job.get(job.base(1) + "/api/rank");
        assertEquals(200, res.statusCode());
        assertEquals("application/json", res.headers().firstValue("content-type").orElse(""));
        RankState s = Json.read(res.body(), RankState.class);
        assertEquals(1, s.rank());
        assertEquals(4, s.size());
        assertTrue(s.lastSeq() >= 0, res.body());
        RankState.Finished last = s.finished().get(s.finished().size() - 1);
        assertEquals("allReduce", last.op());
        assertEquals(4L << 16, last.bytes());
        assertEquals("COMPLETED", last.state());
        assertEquals(3, s.peers().size());
        double moved = s.peers().stream().mapToDouble(p -> p.bytesSent() + p.bytesReceived()).sum();
        assertTrue(moved > 0, res.body());
        assertTrue(s.peers().stream().allMatch(p -> p.alive() && List.of("shm", "unix", "tcp").contains(p.transport())), res.body());
        assertTrue(!res.body().contains("\"data\""), "no tensor contents");
    }

    @Test
    void theJobPageNamesTheRankHeldBackLongBeforeTheTimeoutAndClearsItAfter() throws Exception {
        long seq = job.cluster.group(0).nextSequence();
        // ranks 0-2 enter the all-reduce; rank 3 is held back for 4 s
        Mono<List<Double>> others = job.allReduce(4, List.of(0, 1, 2));
        Mono<List<Double>> held = Mono.delay(Duration.ofSeconds(4)).then(job.allReduce(4, List.of(3)));
        var done = Mono.zip(others, held).toFuture();
        long t0 = System.nanoTime();
        String banner = null;
        JobState state = null;
        while (System.nanoTime() - t0 < 3_500_000_000L) {
            state = Json.read(job.get(job.base(2) + "/api/job").body(), JobState.class);
            banner = state.banner();
            if (banner != null && banner.contains("has not started")) {
                break;
            }
            Thread.sleep(100);
        }
        double seenAfter = (System.nanoTime() - t0) / 1e9;
        assertNotNull(banner, "no banner within 3.5 s");
        assertTrue(state.ranks().stream().allMatch(RankState::reachable), String.valueOf(state));
        Matcher m = Pattern.compile("rank 3 has not started allReduce seq ([0-9,]+); the others waited ([0-9.]+) s").matcher(banner);
        assertTrue(m.matches(), banner);
        assertEquals(seq, Long.parseLong(m.group(1).replace(",", "")));
        assertTrue(Double.parseDouble(m.group(2)) >= 0.5, banner);
        assertTrue(seenAfter < 2.0, "banner after " + seenAfter + " s");
        assertEquals(List.of(3), state.stragglers());
        assertEquals(4, state.ranks().size());
        RankState r0 = state.ranks().get(0);
        assertTrue(r0.running().stream().anyMatch(f -> f.seq() == seq && f.op().equals("allReduce")), String.valueOf(r0));
        done.get();
        JobState after = null;
        for (int i = 0; i < 30 && (after == null || after.banner() != null); i++) {
            Thread.sleep(100);
            after = Json.read(job.get(job.base(0) + "/api/job").body(), JobState.class);
        }
        assertNull(after.banner(), "the banner stays after the collective finished");
    }

    @Test
    void theFlightRecorderAndTracesAreServed() throws Exception {
        job.allReduce(8, List.of(0, 1, 2, 3)).block(Duration.ofSeconds(30));
        HttpResponse<String> fr = job.get(job.base(3) + "/api/flight-recorder");
        assertEquals(200, fr.statusCode());
        FlightRecorderDump d = FlightRecorder.fromJson(fr.body());
        assertEquals(3, d.rank());
        assertTrue(d.entries().stream().anyMatch(e -> e.op().equals("allReduce") && e.completed()));
        HttpResponse<String> trace = job.get(job.base(0) + "/api/job/trace");
        assertEquals(200, trace.statusCode());
        assertTrue(trace.headers().firstValue("content-disposition").orElse("").contains("attachment"));
        var tree = Json.MAPPER.readTree(trace.body());
        assertTrue(tree.get("traceEvents").isArray());
        java.util.Set<Integer> pids = new java.util.TreeSet<>();
        tree.get("traceEvents").forEach(e -> pids.add(e.get("pid").asInt()));
        assertEquals(4, pids.size(), "one track per rank");
    }
}
