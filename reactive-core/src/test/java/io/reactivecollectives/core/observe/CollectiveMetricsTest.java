package io.reactivecollectives.core.observe;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectiveMetricsTest {

    @TempDir
    Path dir;

    private static Timer timer(SimpleMeterRegistry reg, String op, String outcome) {
        return reg.find(MetricNames.COLLECTIVE).tag("op", op).tag("outcome", outcome).timer();
    }

    @Test
    void timerIsTaggedAndCountsFailuresAsErrors() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        try (CollectiveMetrics m = new CollectiveMetrics(reg, "g1", 2)) {
            m.collectiveStarted();
            m.collectiveStarted();
            assertEquals(2.0, reg.get(MetricNames.INFLIGHT).tag("group", "g1").gauge().value());
            m.collectiveFinished(OpType.ALLREDUCE, DType.FLOAT32, "RING", MetricNames.OUTCOME_SUCCESS, 5_000_000);
            m.collectiveFinished(OpType.BARRIER, null, (Algorithm) null, MetricNames.OUTCOME_TIMEOUT, 7_000_000);
            assertEquals(0.0, reg.get(MetricNames.INFLIGHT).tag("group", "g1").gauge().value());

            Timer ok = reg.get(MetricNames.COLLECTIVE).tags("op", "allReduce", "dtype", "float32", "group", "g1",
                    "rank", "2", "algorithm", "ring", "outcome", "success").timer();
            assertEquals(1, ok.count());
            assertEquals(5.0, ok.totalTime(TimeUnit.MILLISECONDS), 1e-9);
            Timer to = reg.get(MetricNames.COLLECTIVE).tags("op", "barrier", "dtype", "none", "algorithm", "none",
                    "outcome", "timeout").timer();
            assertEquals(1, to.count());
            assertEquals(1.0, reg.get(MetricNames.ERRORS).tags("group", "g1", "rank", "2", "kind", "timeout").counter().count());
            assertNull(reg.find(MetricNames.ERRORS).tag("kind", "success").counter());

            m.bytesSent(1024);
            m.bytesSent(1024);
            m.bytesReceived(100);
            assertEquals(2048.0, reg.get(MetricNames.BYTES_SENT).tag("group", "g1").counter().count());
            assertEquals(100.0, reg.get(MetricNames.BYTES_RECEIVED).tag("group", "g1").counter().count());
            m.error(MetricNames.KIND_BAD_FRAME);
            assertEquals(1.0, reg.get(MetricNames.ERRORS).tag("kind", "bad_frame").counter().count());
        }
        assertTrue(reg.getMeters().isEmpty(), "close() removes the group's meters: " + reg.getMeters());
    }

    @Test
    void perPeerBytesAreMetersOfTheRegistryAndReadableWithoutOne() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        try (CollectiveMetrics m = new CollectiveMetrics(reg, "peers", 1)) {
            assertNull(reg.find(MetricNames.PEER_BYTES_SENT).functionCounter(), "registered on a peer's first bytes only");
            m.bytesSent(0, 100);
            m.bytesSent(200, 7);     // past the first capacity: the counts grow
            m.bytesSent(0, 50);
            m.bytesReceived(2, 9);
            assertEquals(150.0, reg.get(MetricNames.PEER_BYTES_SENT).tags("group", "peers", "rank", "1", "peer", "0")
                    .functionCounter().count());
            assertEquals(7.0, reg.get(MetricNames.PEER_BYTES_SENT).tag("peer", "200").functionCounter().count());
            assertEquals(9.0, reg.get(MetricNames.PEER_BYTES_RECEIVED).tag("peer", "2").functionCounter().count());
            assertEquals(157.0, reg.get(MetricNames.BYTES_SENT).counter().count(), "the totals count them too");
            assertEquals(150.0, m.peerBytesSent(0));
            assertEquals(0.0, m.peerBytesSent(5));
            assertEquals(9.0, m.peerBytesReceived(2));
        }
        assertTrue(reg.getMeters().isEmpty(), "close() removes the per-peer meters too: " + reg.getMeters());
        // the global registry with no registry added counts nothing; the per-peer counts are still there to read
        try (CollectiveMetrics m = new CollectiveMetrics(new io.micrometer.core.instrument.composite.CompositeMeterRegistry(), "bare", 0)) {
            m.bytesSent(1, 64);
            assertEquals(64.0, m.peerBytesSent(1));
        }
    }

    @Test
    void ranksSharingARegistryKeepApart() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        try (CollectiveMetrics r0 = new CollectiveMetrics(reg, "g", 0); CollectiveMetrics r1 = new CollectiveMetrics(reg, "g", 1)) {
            r0.collectiveStarted();
            r1.collectiveStarted();
            r1.collectiveStarted();
            assertEquals(1.0, reg.get(MetricNames.INFLIGHT).tags("group", "g", "rank", "0").gauge().value());
            assertEquals(2.0, reg.get(MetricNames.INFLIGHT).tags("group", "g", "rank", "1").gauge().value());
            r0.close();
            assertNull(reg.find(MetricNames.INFLIGHT).tags("rank", "0").gauge());
            assertEquals(2.0, reg.get(MetricNames.INFLIGHT).tags("group", "g", "rank", "1").gauge().value());
        }
        assertThrows(IllegalArgumentException.class, () -> new CollectiveMetrics(reg, "g", -1));
    }

    @Test
    void defaultRegistryIsTheGlobalOne() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        Metrics.addRegistry(reg);
        try (CollectiveMetrics m = new CollectiveMetrics("global-test", 0)) {
            m.bytesSent(3);
            assertEquals(3.0, reg.get(MetricNames.BYTES_SENT).tag("group", "global-test").counter().count());
        } finally {
            Metrics.removeRegistry(reg);
        }
    }

    @Test
    void outcomeOfEachErrorKind() {
        assertEquals("success", CollectiveMetrics.outcomeOf(null));
        assertEquals("timeout", CollectiveMetrics.outcomeOf(
                new CollectiveTimeoutException("allReduce", 0, 1, 2, Duration.ofSeconds(1), "timed out")));
        assertEquals("timeout", CollectiveMetrics.outcomeOf(new TimeoutException()));
        assertEquals("peer_failure", CollectiveMetrics.outcomeOf(new PeerFailureException("allReduce", 0, 1, 2, "x", null)));
        assertEquals("mismatch", CollectiveMetrics.outcomeOf(new CollectiveMismatchException("allReduce", 0, 1, 2, "x")));
        assertEquals("aborted", CollectiveMetrics.outcomeOf(new GroupAbortedException("allReduce", 0, 1, -1, "x")));
        assertEquals("cancelled", CollectiveMetrics.outcomeOf(new CancellationException()));
        assertEquals("error", CollectiveMetrics.outcomeOf(new CollectiveException("allReduce", 0, 1, "x")));
        assertEquals("error", CollectiveMetrics.outcomeOf(new IllegalStateException()));
    }

    @Test
    void observerRecordsStatesTimesOutcomesAndDumpsOnTimeout() throws Exception {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        FlightRecorder rec = new FlightRecorder("obs", 0, 2, FlightRecorder.Config.defaults().withDumpDirectory(dir));
        CollectiveObserver obs = new CollectiveObserver(rec, new CollectiveMetrics(reg, "obs", 0));

        StepVerifier.create(obs.observe(0, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{4}}, new long[][] {{4}},
                        "ring", e -> {
                            assertEquals(FlightRecorder.State.SCHEDULED, e.state());
                            return Mono.fromCallable(() -> {
                                e.waitingFor(1, "recv");
                                assertEquals(FlightRecorder.State.STARTED, e.state());
                                return 42;
                            });
                        }))
                .expectNext(42).verifyComplete();
        assertEquals("COMPLETED", rec.entries().get(0).state());
        assertEquals(1, timer(reg, "allReduce", "success").count());

        Path dump = dir.resolve(FlightRecorder.fileName("obs", 0));
        StepVerifier.create(obs.observe(1, OpType.BROADCAST, DType.INT32, null, null, "binomial_tree",
                        e -> Mono.<Integer>error(new CollectiveTimeoutException("broadcast", 0, 1, 1,
                                Duration.ofMillis(50), "timed out after 50 ms"))))
                .expectError(CollectiveTimeoutException.class).verify(Duration.ofSeconds(5));
        assertEquals("FAILED", rec.entries().get(1).state());
        assertEquals("broadcast[seq=1] rank 0: timed out after 50 ms", rec.entries().get(1).error());
        assertEquals(1, timer(reg, "broadcast", "timeout").count());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(dump) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(Files.exists(dump), "a timeout dumps the recorder");
        assertEquals("FAILED", FlightRecorder.read(dump).entries().get(1).state());

        Sinks.Empty<Void> never = Sinks.empty();
        StepVerifier.create(obs.observe(2, OpType.BARRIER, null, null, null, "direct", e -> never.asMono()))
                .expectSubscription().thenCancel().verify();
        assertEquals("FAILED", rec.entries().get(2).state());
        assertEquals("cancelled", rec.entries().get(2).error());
        assertEquals(1, timer(reg, "barrier", "cancelled").count());

        StepVerifier.create(obs.observe(3, OpType.BARRIER, null, null, null, "direct", e -> {
            throw new IllegalArgumentException("barrier: bad");
        })).expectErrorMessage("barrier: bad").verify();
        assertEquals("FAILED", rec.entries().get(3).state());
        assertEquals(1, timer(reg, "barrier", "error").count());
        assertEquals(0, obs.metrics().inflight());
    }

    @Test
    void observeManyRecordsAStreamAsOneCollective() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        FlightRecorder rec = new FlightRecorder("s", 1, 2, FlightRecorder.Config.defaults().withDumpDirectory(dir));
        CollectiveObserver obs = new CollectiveObserver(rec, new CollectiveMetrics(reg, "s", 1));
        StepVerifier.create(obs.observeMany(0, OpType.ALLREDUCE, null, null, null, "stream",
                        e -> reactor.core.publisher.Flux.range(1, 3).doOnNext(i -> e.waitingFor(0))))
                .expectNext(1, 2, 3).verifyComplete();
        assertEquals("COMPLETED", rec.entries().get(0).state());
        StepVerifier.create(obs.observeMany(1, OpType.ALLREDUCE, null, null, null, "stream",
                        e -> reactor.core.publisher.Flux.<Integer>error(new IllegalStateException("boom"))))
                .expectErrorMessage("boom").verify();
        assertEquals("FAILED", rec.entries().get(1).state());
        assertEquals(1, timer(reg, "allReduce", "success").count());
        assertEquals(1, timer(reg, "allReduce", "error").count());
        assertEquals(0, obs.metrics().inflight());
    }

    @Test
    void whichFailuresDumpTheRecorder() {
        assertTrue(CollectiveObserver.dumpsOn(new CollectiveTimeoutException("allReduce", 0, 1, 2, Duration.ofSeconds(1), "x")));
        assertTrue(CollectiveObserver.dumpsOn(new TimeoutException()));
        assertTrue(CollectiveObserver.dumpsOn(new PeerFailureException("allReduce", 0, 1, 2, "x", null)));
        assertTrue(CollectiveObserver.dumpsOn(new CollectiveException("allReduce", 0, 1, "aborted by rank 2: timed out")));
        assertFalse(CollectiveObserver.dumpsOn(new CollectiveMismatchException("allReduce", 0, 1, 2, "x")));
        assertFalse(CollectiveObserver.dumpsOn(new GroupAbortedException("allReduce", 0, 1, -1, "closed")));
        assertFalse(CollectiveObserver.dumpsOn(new CancellationException()));
        assertFalse(CollectiveObserver.dumpsOn(new IllegalArgumentException("allReduce: bad")));
    }
}
