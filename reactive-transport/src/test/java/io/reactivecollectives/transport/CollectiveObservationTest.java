package io.reactivecollectives.transport;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.ObservationContextAssert;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveObservationContext;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.MetricNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each collective as a Micrometer {@code Observation} ({@link GroupOptions#withObservationRegistry}),
 * on the two ranks of a {@link LocalCluster} over loopback: key values, error, cancel, parent.
 */
class CollectiveObservationTest {

    private static final Duration T = Duration.ofSeconds(20);

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** The contexts of the observations that stopped, in order. */
    private final Queue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private LocalCluster cluster;

    @BeforeEach
    void start() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        GroupOptions options = GroupOptions.defaults().withTimeout(T).withObservationRegistry(registry)
                .withMeterRegistry(meters)
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpOnFailure(false));
        cluster = LocalCluster.start(2, options).block(T);
        for (int r = 0; r < 2; r++) {
            tensors.add(Tensor.zeros(DType.FLOAT32, 16).fill(r + 1));
        }
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        tensors.forEach(t -> {
            if (t.refCnt() > 0) {
                t.release();
            }
        });
    }

    private Mono<Tensor> allReduce(int rank) {
        return cluster.group(rank).allReduce(tensors.get(rank), ReduceOp.SUM);
    }

    private CollectiveObservationContext observationOf(int rank) {
        return stopped.stream().map(CollectiveObservationContext.class::cast).filter(c -> c.rank() == rank)
                .findFirst().orElseThrow(() -> new AssertionError("no stopped observation of rank " + rank + ": " + stopped));
    }

    @Test
    void anAllReduceIsOneObservationPerRankWithItsKeyValues() {
        Mono.when(allReduce(0), allReduce(1)).block(T);
        assertEquals(3.0, tensors.get(0).getDouble(0));

        String group = cluster.group(0).groupId();
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(MetricNames.OBSERVATION, 2);
        assertEquals(2, stopped.size(), "both stopped: " + stopped);
        for (int r = 0; r < 2; r++) {
            CollectiveObservationContext ctx = observationOf(r);
            String algorithm = ctx.getLowCardinalityKeyValue(MetricNames.TAG_ALGORITHM).getValue();
            assertNotEquals(MetricNames.NONE, algorithm, "the algorithm the group chose");
            ObservationContextAssert.assertThat(ctx)
                    .hasNameEqualTo(MetricNames.OBSERVATION)
                    .hasContextualNameEqualTo("allReduce")
                    .hasLowCardinalityKeyValue(MetricNames.TAG_OP, "allReduce")
                    .hasLowCardinalityKeyValue(MetricNames.TAG_DTYPE, "float32")
                    .hasLowCardinalityKeyValue(MetricNames.TAG_GROUP, group)
                    .hasLowCardinalityKeyValue(MetricNames.TAG_RANK, Integer.toString(r))
                    .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_SUCCESS)
                    .hasHighCardinalityKeyValue(MetricNames.KEY_SEQUENCE, "0")
                    .hasHighCardinalityKeyValue(MetricNames.KEY_BYTES, "64")
                    .doesNotHaveError()
                    .doesNotHaveParentObservation();
            // the same tags as the rc.collective timer of that rank
            Timer timer = meters.find(MetricNames.COLLECTIVE).tag(MetricNames.TAG_RANK, Integer.toString(r))
                    .tag(MetricNames.TAG_ALGORITHM, algorithm).tag(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_SUCCESS)
                    .timer();
            assertNotNull(timer, "timer of rank " + r + " with algorithm " + algorithm);
            assertEquals(1, timer.count());
        }
        // the next collective is the next sequence number
        Mono.when(allReduce(0), allReduce(1)).block(T);
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(MetricNames.OBSERVATION, 4)
                .hasAnObservation(o -> o.hasLowCardinalityKeyValue(MetricNames.TAG_RANK, "1")
                        .hasHighCardinalityKeyValue(MetricNames.KEY_SEQUENCE, "1"));
    }

    @Test
    void aCollectiveThatTimesOutRecordsTheError() {
        // rank 1 never calls it
        CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class, () -> cluster.group(0)
                .allReduce(tensors.get(0), ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofMillis(300))).block(T));

        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(MetricNames.OBSERVATION, 1);
        CollectiveObservationContext ctx = observationOf(0);
        ObservationContextAssert.assertThat(ctx)
                .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_TIMEOUT)
                .hasLowCardinalityKeyValue(MetricNames.TAG_RANK, "0")
                .hasError(e);
    }

    @Test
    void aCancelledCollectiveIsStoppedWithoutAnError() {
        // rank 1 never calls it; the subscriber gives up long before the group's timeout
        Throwable e = assertThrows(RuntimeException.class, () -> allReduce(0).timeout(Duration.ofMillis(300)).block(T));
        assertInstanceOf(TimeoutException.class, e.getCause(), e.toString());

        CollectiveObservationContext ctx = observationOf(0);
        ObservationContextAssert.assertThat(ctx)
                .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_CANCELLED)
                .doesNotHaveError();
        assertEquals(1, stopped.size(), "stopped once: " + stopped);
    }

    @Test
    void anObservationInTheReactorContextBecomesTheParent() {
        Observation parent = Observation.start("training.step", registry);
        try {
            Mono.when(allReduce(0).contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, parent)), allReduce(1))
                    .block(T);
        } finally {
            parent.stop();
        }
        ObservationContextAssert.assertThat(observationOf(0)).hasParentObservationEqualTo(parent);
        ObservationContextAssert.assertThat(observationOf(1)).doesNotHaveParentObservation();
        assertTrue(stopped.stream().anyMatch(c -> "training.step".equals(c.getName())));
    }

    @Test
    void anObjectCallsRoundsHaveTheCallersObservationAsTheirParent() {
        // an object call runs past a cancel on its own subscription: the caller's context must go along
        Observation parent = Observation.start("training.step", registry);
        io.reactivecollectives.core.Codec<String> json = io.reactivecollectives.core.Codec.json(String.class);
        try {
            Mono.when(cluster.group(0).allGatherObject("a", json).contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, parent)),
                    cluster.group(1).allGatherObject("b", json)).block(T);
        } finally {
            parent.stop();
        }
        ObservationContextAssert.assertThat(observationOf(0)).hasParentObservationEqualTo(parent);
        ObservationContextAssert.assertThat(observationOf(1)).doesNotHaveParentObservation();
    }
}
