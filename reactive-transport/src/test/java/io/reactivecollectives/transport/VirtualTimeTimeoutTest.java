package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collective and point-to-point timeouts honour Reactor's virtual time: under
 * {@code StepVerifier.withVirtualTime}, a 30-minute timeout on a rank whose peer never takes part
 * fires when the test advances the clock past it, in a moment of real time, and not before; the
 * error arrives once the flight recorder's automatic dump is on disk.
 */
class VirtualTimeTimeoutTest {

    private static final Duration T = Duration.ofSeconds(30);
    /** Real time a virtual 30 minutes may take (network, error mapping, the peers told); not minutes. */
    private static final Duration REAL = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private Tensor tensor;

    @BeforeEach
    void start() {
        cluster = LocalCluster.start(2, GroupOptions.defaults().withGroupId("virtual-time")
                .withTimeout(Duration.ofHours(1))
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(dir))).block(T);
        tensor = ClusterTesting.heap(DType.FLOAT32, 8);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void anAllReduceWhosePeerNeverComesTimesOutInVirtualTime() {
        MeshProcessGroup g0 = cluster.group(0);
        CollectiveOptions halfHour = CollectiveOptions.timeout(Duration.ofMinutes(30));
        // seq 0 on rank 0 only: rank 1 never calls it
        Duration took = StepVerifier.withVirtualTime(() -> g0.allReduce(tensor, ReduceOp.SUM, halfHour))
                .expectSubscription()
                .expectNoEvent(Duration.ofMinutes(29))
                .thenAwait(Duration.ofMinutes(2))
                .expectErrorSatisfies(e -> {
                    CollectiveTimeoutException te = assertInstanceOf(CollectiveTimeoutException.class, e);
                    assertEquals("allReduce", te.op());
                    assertEquals(0, te.rank());
                    assertEquals(0, te.sequence());
                    assertEquals(Duration.ofMinutes(30), te.elapsed());
                    assertTrue(te.getMessage().startsWith("allReduce[seq=0] rank 0: timed out after 1800000 ms"),
                            te.getMessage());
                    // the automatic dump the timeout triggers is written before the error arrives
                    assertTrue(Files.exists(g0.flightRecorder().dumpFile()), "no dump yet");
                })
                .verify(REAL);
        assertTrue(took.compareTo(REAL) < 0, "took " + took);
    }

    @Test
    void aBarrierAndAReceiveTimeOutInVirtualTime() {
        MeshProcessGroup g0 = cluster.group(0);
        StepVerifier.withVirtualTime(() -> g0.barrier(CollectiveOptions.timeout(Duration.ofMinutes(10))))
                .expectSubscription()
                .expectNoEvent(Duration.ofMinutes(9))
                .thenAwait(Duration.ofMinutes(2))
                .expectErrorSatisfies(e -> {
                    CollectiveTimeoutException te = assertInstanceOf(CollectiveTimeoutException.class, e);
                    assertEquals("barrier", te.op());
                    assertEquals(0, te.sequence());
                })
                .verify(REAL);
        StepVerifier.withVirtualTime(() -> g0.recv(tensor, 1, 7, CollectiveOptions.timeout(Duration.ofMinutes(10))))
                .expectSubscription()
                .expectNoEvent(Duration.ofMinutes(9))
                .thenAwait(Duration.ofMinutes(2))
                .expectErrorSatisfies(e -> {
                    CollectiveTimeoutException te = assertInstanceOf(CollectiveTimeoutException.class, e);
                    assertEquals("recv", te.op());
                    assertEquals(1, te.peer());
                })
                .verify(REAL);
    }
}
