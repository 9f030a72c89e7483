package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.micrometer.observation.GlobalObservationConvention;

/**
 * Names and key values of the {@code Observation} of a collective. The group uses
 * {@link DefaultCollectiveObservationConvention} unless the {@code ObservationRegistry} is configured
 * with another convention for {@link CollectiveObservationContext}: register one (a subclass of the
 * default, say) with {@code registry.observationConfig().observationConvention(convention)}.
 */
public interface CollectiveObservationConvention extends GlobalObservationConvention<CollectiveObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof CollectiveObservationContext;
    }
}
