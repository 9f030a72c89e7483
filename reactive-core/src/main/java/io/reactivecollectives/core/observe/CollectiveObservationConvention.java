package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the {@code Observation} of a collective. The group uses
 * {@link DefaultCollectiveObservationConvention} unless the {@code ObservationRegistry} is configured
 * with another convention for {@link CollectiveObservationContext}
 * ({@code registry.observationConfig().observationConvention(...)}).
 */
public interface CollectiveObservationConvention extends ObservationConvention<CollectiveObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof CollectiveObservationContext;
    }
}
