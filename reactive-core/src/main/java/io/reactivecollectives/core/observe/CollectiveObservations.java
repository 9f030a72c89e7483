package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reactivecollectives.core.DType;
import reactor.util.context.ContextView;

import java.util.concurrent.CancellationException;

/**
 * Starts and stops the {@code Observation} of one collective for {@link CollectiveObserver}; used
 * only when the group's {@code ObservationRegistry} is not the no-op one.
 */
final class CollectiveObservations {

    /**
     * Where Reactor's context holds the current observation: the value of Micrometer's
     * {@code ObservationThreadLocalAccessor.KEY} (copied, so that context-propagation need not be on
     * the class path).
     */
    static final String CONTEXT_KEY = "micrometer.observation";

    private CollectiveObservations() {
    }

    /**
     * Starts the observation of {@code entry}, the child of the observation in {@code context} (under
     * {@link #CONTEXT_KEY}) if there is one.
     */
    static Observation start(ObservationRegistry registry, FlightRecorder recorder, FlightRecorder.Entry entry,
                             DType dtype, long[][] inputShapes, ContextView context) {
        long bytes = inputShapes == null ? 0 : FlightRecorderDumps.bytes(inputShapes, dtype);
        CollectiveObservationContext ctx = new CollectiveObservationContext(recorder.groupId(), recorder.rank(), entry,
                dtype, bytes);
        Observation observation = Observation.createNotStarted(null, DefaultCollectiveObservationConvention.INSTANCE,
                () -> ctx, registry);
        Object parent = context.getOrDefault(CONTEXT_KEY, null);
        if (parent instanceof Observation p && !p.isNoop()) {
            observation.parentObservation(p);
        }
        return observation.start();
    }

    /**
     * Stops {@code observation} with the outcome of {@code error} (null: success); an error other
     * than a cancellation is recorded on it.
     */
    static void stop(Observation observation, Throwable error) {
        if (observation.getContext() instanceof CollectiveObservationContext ctx) {
            ctx.outcome(CollectiveMetrics.outcomeOf(error));
        }
        if (error != null && !(error instanceof CancellationException)) {
            observation.error(error);
        }
        observation.stop();
    }
}
