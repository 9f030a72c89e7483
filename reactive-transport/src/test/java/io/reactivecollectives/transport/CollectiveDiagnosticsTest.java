package io.reactivecollectives.transport;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Finding;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Report;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.core.observe.MetricNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flight recorder, automatic dumps, the analyser, the collective (mismatch) check and the meters,
 * on real ranks of a {@link LocalCluster} over loopback.
 */
class CollectiveDiagnosticsTest {

    private static final Duration T = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final List<LocalCluster> clusters = new ArrayList<>();

    private LocalCluster track(LocalCluster c) {
        clusters.add(c);
        return c;
    }

    /** Automatic dumps are written asynchronously: let them land before the temporary directory goes. */
    @AfterEach
    void awaitDumps() {
        for (LocalCluster c : clusters) {
            for (MeshProcessGroup g : c.groups()) {
                g.flightRecorder().awaitDumps().block(T);
            }
        }
    }

    private GroupOptions options(String group) {
        return GroupOptions.defaults().withGroupId(group).withTimeout(Duration.ofSeconds(20))
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(dir));
    }

    private static List<Tensor> tensors(int world, long... sizeOfRank) {
        List<Tensor> ts = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            ts.add(Tensor.zeros(DType.FLOAT32, sizeOfRank.length == 1 ? sizeOfRank[0] : sizeOfRank[r]).fill(r + 1));
        }
        return ts;
    }

    private static void release(List<Tensor> ts) {
        ts.forEach(t -> {
            if (t.refCnt() > 0) {
                t.release();
            }
        });
    }

    /** Each rank's terminal signal, in rank order (all subscribed at once, none cancels another). */
    private static <T> List<Signal<T>> signals(LocalCluster c, Function<MeshProcessGroup, Mono<T>> body) {
        return Flux.fromIterable(c.groups())
                .flatMapSequential(g -> body.apply(g).materialize(), c.size())
                .collectList().block(T);
    }

    private static Path awaitFile(Path f) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(f) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(f), "no dump at " + f);
        return f;
    }

    @Test
    void aRankThatNeverCallsTheCollectiveTimesOutTheOthersWhoseDumpsNameIt() throws Exception {
        List<Tensor> ts = tensors(3, 16);
        LocalCluster c = track(LocalCluster.start(3, options("missing")).block(T));
        try {
            c.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)).block(T);   // seq 0
            c.run(g -> g.barrier().thenReturn(g.rank())).block(T);              // seq 1
            // seq 2: rank 2 never calls it
            CollectiveOptions shortWait = CollectiveOptions.timeout(Duration.ofMillis(1500));
            List<Signal<Tensor>> sig = Flux.mergeSequential(
                            c.group(0).allReduce(ts.get(0), ReduceOp.SUM, shortWait).materialize(),
                            c.group(1).allReduce(ts.get(1), ReduceOp.SUM, shortWait).materialize())
                    .collectList().block(T);
            // each rank times out by itself, or (when the other's timer fired first and its ABORT came
            // before this rank's own timer) with the relayed timeout, which names who gave up on whom
            boolean ownTimeout = false;
            for (int r = 0; r < 2; r++) {
                CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, sig.get(r).getThrowable());
                String m = e.getMessage();
                // (the peer a rank waits on is its partner in the algorithm: rank 0 may wait on rank 1,
                // which waits on rank 2; the analyser below names the rank that never started)
                boolean own = m.startsWith("allReduce[seq=2] rank " + r + ": timed out after 1500 ms waiting for rank ");
                boolean relayed = m.startsWith("allReduce[seq=2] rank " + r + ": timed out group-wide: rank " + (1 - r)
                        + " timed out after 1500 ms waiting for rank ");
                assertTrue(own || relayed, m);
                // what this rank knows of the others: rank 2 sent data up to the barrier (seq 1) only
                assertTrue(m.contains("; last data from rank "), m);
                assertTrue(m.contains("rank 2: seq 1"), m);
                assertTrue(e.peer() >= 0 && e.peer() != r, m);
                if (own) {   // the error names the file its automatic dump goes to
                    assertTrue(m.endsWith("; flight recorder dump: " + c.group(r).flightRecorder().dumpFile()), m);
                }
                ownTimeout |= own;
            }
            assertTrue(ownTimeout, "at least one rank's own timer fired: " + sig);
            // ranks 0 and 1 dumped by themselves; rank 2 is dumped on request (as an operator would)
            // the ranks agreed on one job: its directory, under the dump directory, holds every rank's dump
            Path job = c.group(0).flightRecorder().dumpDirectory();
            assertEquals(dir, job.getParent());
            assertTrue(job.getFileName().toString().matches("flight-recorder-\\d{8}-\\d{6}-[0-9a-f]{6}"), job.toString());
            for (int r = 0; r < 3; r++) {
                assertEquals(job.resolve(FlightRecorder.fileName("missing", r)), c.group(r).flightRecorder().dumpFile());
            }
            awaitFile(c.group(0).flightRecorder().dumpFile());
            awaitFile(c.group(1).flightRecorder().dumpFile());
            c.group(2).flightRecorder().dump().block(T);
            FlightRecorderDump d0 = FlightRecorder.read(c.group(0).flightRecorder().dumpFile());
            FlightRecorderDump.Entry last = d0.entries().get(d0.entries().size() - 1);
            assertEquals(2, last.seq());
            assertEquals("FAILED", last.state());
            assertEquals("allReduce", last.op());
            assertEquals(List.of(List.of(16L)), last.inputShapes());
            assertEquals("recursive_doubling", last.algorithm());
            assertEquals("COMPLETED", d0.entries().get(1).state());
            assertEquals("dissemination", d0.entries().get(1).algorithm());

            Report report = FlightRecorderAnalyzer.analyze(FlightRecorderAnalyzer.readAll(List.of(dir)));
            Finding f = report.of(Kind.BEHIND).get(0);
            assertEquals(List.of(2), f.ranks());
            assertEquals(2, f.seq());
            assertTrue(f.message().startsWith("rank 2 never started allReduce seq 2; ranks 0, 1 are waiting for it"),
                    report.text());
            assertTrue(f.message().contains("rank 2: last recorded barrier seq 1 COMPLETED"), report.text());
            assertTrue(report.of(Kind.MISMATCH).isEmpty(), report.text());
        } finally {
            c.close();
            release(ts);
        }
    }

    @Test
    void aRankThatCallsAfterThePeersGaveUpFailsAndDumpsItsOwnRecorderToo() throws Exception {
        List<Tensor> ts = tensors(3, 16);
        LocalCluster c = track(LocalCluster.start(3, options("late")).block(T));
        try {
            CollectiveOptions shortWait = CollectiveOptions.timeout(Duration.ofMillis(800));
            List<Signal<Tensor>> sig = Flux.mergeSequential(
                            c.group(0).allReduce(ts.get(0), ReduceOp.SUM, shortWait).materialize(),
                            c.group(1).allReduce(ts.get(1), ReduceOp.SUM, shortWait).materialize())
                    .collectList().block(T);
            assertTrue(sig.stream().allMatch(s -> s.getThrowable() instanceof CollectiveTimeoutException), sig.toString());
            awaitFile(c.group(0).flightRecorder().dumpFile());
            // the peers' abort reaches rank 2 on a transport thread, which then drops their early frames of seq 0:
            // a rank 2 that started before it could complete from those frames (CI, a loaded machine)
            long until = System.nanoTime() + T.toNanos();
            while (c.group(2).unclaimedBytes() > 0 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            // rank 2 comes late: the group gave up on seq 0 before it started here
            Signal<Tensor> late = c.group(2).allReduce(ts.get(2), ReduceOp.SUM, shortWait).materialize().block(T);
            CollectiveException e = assertInstanceOf(CollectiveException.class, late.getThrowable(), String.valueOf(late));
            assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank 2: timed out group-wide"), e.getMessage());
            FlightRecorderDump d2 = FlightRecorder.read(awaitFile(c.group(2).flightRecorder().dumpFile()));
            assertEquals(1, d2.entries().size(), "the late start is recorded");
            assertEquals(0, d2.entries().get(0).seq());
            assertEquals("FAILED", d2.entries().get(0).state());
        } finally {
            c.close();
            release(ts);
        }
    }

    @Test
    void aPeerThatGoesAwayFailsTheOthersAndDumpsTheirRecorders() throws Exception {
        List<Tensor> ts = tensors(3, 1024);
        LocalCluster c = track(LocalCluster.start(3, options("gone")).block(T));
        try {
            Mono<List<Signal<Tensor>>> waiting = Flux.mergeSequential(
                            c.group(0).allReduce(ts.get(0), ReduceOp.SUM).materialize(),
                            c.group(1).allReduce(ts.get(1), ReduceOp.SUM).materialize())
                    .collectList().cache();
            waiting.subscribe();
            Thread.sleep(200);
            c.group(2).close();
            List<Signal<Tensor>> sig = waiting.block(T);
            for (int r = 0; r < 2; r++) {
                CollectiveException e = assertInstanceOf(CollectiveException.class, sig.get(r).getThrowable());
                // close() is an orderly departure: the peers are told it left, and what it had not finished
                assertTrue(e.getMessage().contains("peer 2 left the group"), e.getMessage());
                FlightRecorderDump d = FlightRecorder.read(awaitFile(c.group(r).flightRecorder().dumpFile()));
                assertEquals(1, d.entries().size());
            }
        } finally {
            c.close();
            release(ts);
        }
    }

    @Test
    void mismatchedShapesFailEveryRankWithTheCheckOnAndTheGroupCarriesOn() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        List<Tensor> odd = tensors(3, 4, 8, 4);
        List<Tensor> even = tensors(3, 4);
        LocalCluster c = track(LocalCluster.start(3, options("shapes").withCollectiveChecks(true).withMeterRegistry(reg)).block(T));
        try {
            List<Signal<Tensor>> sig = signals(c, g -> g.allReduce(odd.get(g.rank()), ReduceOp.SUM));
            for (int r = 0; r < 3; r++) {
                CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, sig.get(r).getThrowable());
                assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank " + r + ": collective mismatch: "), e.getMessage());
                assertTrue(e.getMessage().contains("ranks 0, 2 have allReduce(seq=0, float32, [[4]], op=SUM) but rank 1 has"
                        + " allReduce(seq=0, float32, [[8]], op=SUM): shapes [[4]] vs [[8]]"), e.getMessage());
                assertEquals(1, reg.get(MetricNames.COLLECTIVE).tags("rank", String.valueOf(r), "outcome", "mismatch")
                        .timer().count());
            }
            // nothing was sent for the failed collective's data: the next one runs normally
            List<Tensor> out = c.run(g -> g.allReduce(even.get(g.rank()), ReduceOp.SUM)).block(T);
            for (Tensor t : out) {
                assertEquals(6.0, t.getDouble(0));
                assertEquals(6.0, t.getDouble(3));
            }
        } finally {
            c.close();
            release(odd);
            release(even);
        }
    }

    @Test
    void mismatchedShapesWithoutTheCheckStillFailEveryRankFromTheFrames() {
        List<Tensor> odd = tensors(3, 4, 8, 4);
        LocalCluster c = track(LocalCluster.start(3, options("frames").withTimeout(Duration.ofSeconds(10))).block(T));
        try {
            List<Signal<Tensor>> sig = signals(c, g -> g.allReduce(odd.get(g.rank()), ReduceOp.SUM));
            boolean sawSize = false;
            for (int r = 0; r < 3; r++) {
                CollectiveException e = assertInstanceOf(CollectiveException.class, sig.get(r).getThrowable());
                assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank " + r + ": "), e.getMessage());
                // the agreement every DATA frame carries names the element counts of both sides
                sawSize |= e instanceof CollectiveMismatchException && e.getMessage().contains("collective mismatch: element count ")
                        && e.getMessage().contains("8 on rank 1");
            }
            assertTrue(sawSize, "a rank names the size difference: " + sig);
        } finally {
            c.close();
            release(odd);
        }
    }

    @Test
    void mismatchedOpOrderFailsEveryRankWithTheCheckOn() {
        List<Tensor> ts = tensors(2, 16);
        LocalCluster c = track(LocalCluster.start(2, options("order").withCollectiveChecks(true)).block(T));
        try {
            List<List<Signal<Tensor>>> sig = signals(c, g -> {
                Tensor t = ts.get(g.rank());
                Mono<Tensor> ar = g.allReduce(t, ReduceOp.SUM);
                Mono<Tensor> bc = g.broadcast(t, 0);
                Mono<Tensor> first = g.rank() == 0 ? ar : bc;
                Mono<Tensor> second = g.rank() == 0 ? bc : ar;
                return first.materialize().flatMap(s1 -> second.materialize().map(s2 -> List.of(s1, s2)));
            }).stream().map(Signal::get).toList();
            for (int r = 0; r < 2; r++) {
                for (int seq = 0; seq < 2; seq++) {
                    CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class,
                            sig.get(r).get(seq).getThrowable());
                    assertEquals(seq, e.sequence());
                    assertEquals(1 - r, e.peer());
                    assertTrue(e.getMessage().contains("op allReduce vs broadcast")
                            || e.getMessage().contains("op broadcast vs allReduce"), e.getMessage());
                }
            }
            assertTrue(sig.get(0).get(0).getThrowable().getMessage().startsWith("allReduce[seq=0] rank 0: collective mismatch: "));
            assertTrue(sig.get(1).get(0).getThrowable().getMessage().startsWith("broadcast[seq=0] rank 1: collective mismatch: "));
        } finally {
            c.close();
            release(ts);
        }
    }

    @Test
    void metersCountCollectivesBytesAndAlgorithmsPerRank() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        List<Tensor> small = tensors(2, 1024);           // 4 KiB: recursive doubling
        List<Tensor> large = tensors(2, 64 * 1024);      // 256 KiB: pipelined chain broadcast
        LocalCluster c = track(LocalCluster.start(2, options("meters").withMeterRegistry(reg)).block(T));
        try {
            for (int i = 0; i < 3; i++) {
                c.run(g -> g.allReduce(small.get(g.rank()), ReduceOp.SUM)).block(T);
            }
            c.run(g -> g.broadcast(large.get(g.rank()), 0)).block(T);
            double sent = 0;
            double received = 0;
            for (int r = 0; r < 2; r++) {
                String rank = String.valueOf(r);
                Timer ar = reg.get(MetricNames.COLLECTIVE).tags("op", "allReduce", "dtype", "float32", "group", "meters",
                        "rank", rank, "algorithm", "recursive_doubling", "outcome", "success").timer();
                assertEquals(3, ar.count());
                assertEquals(1, reg.get(MetricNames.COLLECTIVE).tags("op", "broadcast", "rank", rank,
                        "algorithm", "pipelined_chain", "outcome", "success").timer().count());
                assertEquals(0.0, reg.get(MetricNames.INFLIGHT).tags("group", "meters", "rank", rank).gauge().value());
                assertNull(reg.find(MetricNames.ERRORS).tags("rank", rank).counter());
                sent += reg.get(MetricNames.BYTES_SENT).tags("rank", rank).counter().count();
                received += reg.get(MetricNames.BYTES_RECEIVED).tags("rank", rank).counter().count();
                List<FlightRecorderDump.Entry> es = c.group(r).flightRecorder().entries();
                assertEquals(4, es.size());
                assertTrue(es.stream().allMatch(FlightRecorderDump.Entry::completed));
            }
            assertTrue(reg.get(MetricNames.BYTES_SENT).tags("rank", "0").counter().count() >= 256 * 1024,
                    "the broadcast root sent the whole tensor");
            assertEquals(sent, received, "every byte sent was received");
        } finally {
            c.close();
            release(small);
            release(large);
        }
        assertTrue(reg.getMeters().stream().noneMatch(m -> m.getId().getName().startsWith("rc.")),
                "closing the groups removes their meters: " + reg.getMeters());
    }

    @Test
    void aStreamedAllReduceIsRecordedAsOneCollective() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        List<Tensor> ts = tensors(2, 3 * 256);
        LocalCluster c = track(LocalCluster.start(2, options("stream").withMeterRegistry(reg)).block(T));
        try {
            c.run(g -> g.allReduceStream(Flux.fromIterable(ts.get(g.rank()).chunks(3)), ReduceOp.SUM, 2)
                    .count()).block(T);
            for (int r = 0; r < 2; r++) {
                List<FlightRecorderDump.Entry> es = c.group(r).flightRecorder().entries();
                assertEquals(1, es.size());
                assertEquals("allReduce", es.get(0).op());
                assertEquals("COMPLETED", es.get(0).state());
                assertEquals(1, reg.get(MetricNames.COLLECTIVE).tags("rank", String.valueOf(r), "op", "allReduce",
                        "outcome", "success").timer().count());
            }
            assertEquals(3.0, ts.get(0).getDouble(0));
        } finally {
            c.close();
            release(ts);
        }
    }
}
