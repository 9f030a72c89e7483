package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link CollectiveObserver} with an {@code ObservationRegistry}, without a group. */
class CollectiveObserverObservationTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final long[][] SHAPES = {{2, 3}};

    private static CollectiveObserver observer(ObservationRegistry registry) {
        return new CollectiveObserver(new FlightRecorder("g", 1, 2,
                FlightRecorder.Config.defaults().withDumpOnFailure(false)), null, registry);
    }

    @Test
    void theKeyOfTheParentIsMicrometersOwn() {
        assertEquals(ObservationThreadLocalAccessor.KEY, CollectiveObservations.CONTEXT_KEY);
    }

    @Test
    void theBodySeesItsCollectivesObservationInItsContext() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Object seen = observer(registry).observe(7, OpType.BROADCAST, DType.FLOAT64, SHAPES, SHAPES, null,
                        entry -> Mono.deferContextual(c -> Mono.just(c.get(ObservationThreadLocalAccessor.KEY))))
                .block(T);
        Observation observation = assertInstanceOf(Observation.class, seen);
        CollectiveObservationContext ctx = assertInstanceOf(CollectiveObservationContext.class, observation.getContext());
        assertEquals(7, ctx.sequence());
        assertEquals(48, ctx.bytes());
        TestObservationRegistryAssert.assertThat(registry).hasSingleObservationThat()
                .hasNameEqualTo(MetricNames.OBSERVATION)
                .hasContextualNameEqualTo("broadcast")
                .hasLowCardinalityKeyValue(MetricNames.TAG_GROUP, "g")
                .hasLowCardinalityKeyValue(MetricNames.TAG_RANK, "1")
                .hasLowCardinalityKeyValue(MetricNames.TAG_DTYPE, "float64")
                .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_SUCCESS)
                .hasHighCardinalityKeyValue(MetricNames.KEY_SEQUENCE, "7")
                .hasHighCardinalityKeyValue(MetricNames.KEY_BYTES, "48")
                .hasBeenStarted()
                .hasBeenStopped();
    }

    @Test
    void theAlgorithmChosenWhileItRunsIsAKeyValue() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        observer(registry).observe(0, OpType.ALLREDUCE, DType.FLOAT32, SHAPES, SHAPES, null,
                entry -> Mono.fromRunnable(() -> entry.algorithm("RING"))).block(T);
        TestObservationRegistryAssert.assertThat(registry).hasSingleObservationThat()
                .hasLowCardinalityKeyValue(MetricNames.TAG_ALGORITHM, "ring")
                .hasBeenStopped();
    }

    @Test
    void aStreamIsObservedUntilItCompletesOrFails() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        CollectiveObserver observer = observer(registry);
        StepVerifier.create(observer.observeMany(0, OpType.ALLREDUCE, null, null, null, null,
                entry -> Flux.just(1, 2, 3))).expectNextCount(3).expectComplete().verify(T);
        IllegalStateException boom = new IllegalStateException("boom");
        StepVerifier.create(observer.observeMany(1, OpType.ALLREDUCE, null, null, null, null,
                entry -> Flux.<Integer>error(boom))).expectErrorMatches(e -> e == boom).verify(T);
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(MetricNames.OBSERVATION, 2)
                .hasAnObservation(o -> o.hasHighCardinalityKeyValue(MetricNames.KEY_SEQUENCE, "0")
                        .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_SUCCESS).doesNotHaveError())
                .hasAnObservation(o -> o.hasHighCardinalityKeyValue(MetricNames.KEY_SEQUENCE, "1")
                        .hasLowCardinalityKeyValue(MetricNames.TAG_OUTCOME, MetricNames.OUTCOME_ERROR).hasError(boom));
    }

    @Test
    void aConventionConfiguredOnTheRegistryReplacesTheDefault() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        registry.observationConfig().observationConvention(new DefaultCollectiveObservationConvention() {
            @Override
            public String getName() {
                return "training.collective";
            }
        });
        observer(registry).observe(0, OpType.ALLREDUCE, DType.FLOAT32, SHAPES, SHAPES, null, entry -> Mono.empty())
                .block(T);
        TestObservationRegistryAssert.assertThat(registry).hasSingleObservationThat()
                .hasNameEqualTo("training.collective")
                .hasLowCardinalityKeyValue(MetricNames.TAG_OP, "allReduce");
    }

    @Test
    void withTheNoopRegistryNothingIsPutInTheContext() {
        CollectiveObserver observer = observer(null);
        assertSame(ObservationRegistry.NOOP, observer.observations());
        Boolean has = observer.observe(0, OpType.BARRIER, null, new long[0][], new long[0][], null,
                entry -> Mono.deferContextual(c -> Mono.just(c.hasKey(ObservationThreadLocalAccessor.KEY)))).block(T);
        assertNotNull(has);
        assertFalse(has);
    }
}
