package io.reactivecollectives.core.observe;

import io.micrometer.common.KeyValues;

import java.util.Locale;

/**
 * The default names and key values of a collective's {@code Observation}: named
 * {@value MetricNames#OBSERVATION}, with the op's display name ({@code allReduce}) as the contextual
 * (span) name; low-cardinality keys {@value MetricNames#TAG_OP}, {@value MetricNames#TAG_DTYPE},
 * {@value MetricNames#TAG_GROUP}, {@value MetricNames#TAG_RANK}, {@value MetricNames#TAG_ALGORITHM}
 * and {@value MetricNames#TAG_OUTCOME}, with the values of the {@value MetricNames#COLLECTIVE} timer;
 * high-cardinality keys {@value MetricNames#KEY_SEQUENCE} (the sequence number) and
 * {@value MetricNames#KEY_BYTES} (the input payload bytes on this rank).
 *
 * <p>The name differs from the timer's so that a meter handler on the observation registry that
 * writes to the group's meter registry does not register a second {@value MetricNames#COLLECTIVE}
 * with other tag keys.
 */
public class DefaultCollectiveObservationConvention implements CollectiveObservationConvention {

    /** The instance groups use. */
    public static final DefaultCollectiveObservationConvention INSTANCE = new DefaultCollectiveObservationConvention();

    /** A convention with the default names; subclass it to change some of them. */
    public DefaultCollectiveObservationConvention() {
    }

    @Override
    public String getName() {
        return MetricNames.OBSERVATION;
    }

    @Override
    public String getContextualName(CollectiveObservationContext context) {
        return context.op().displayName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(CollectiveObservationContext context) {
        String alg = context.algorithm();
        String outcome = context.outcome();
        return KeyValues.of(
                MetricNames.TAG_OP, context.op().displayName(),
                MetricNames.TAG_DTYPE, context.dtype() == null ? MetricNames.NONE : context.dtype().torchName(),
                MetricNames.TAG_GROUP, context.groupId(),
                MetricNames.TAG_RANK, Integer.toString(context.rank()),
                MetricNames.TAG_ALGORITHM, alg == null ? MetricNames.NONE : alg.toLowerCase(Locale.ROOT),
                MetricNames.TAG_OUTCOME, outcome == null ? MetricNames.OUTCOME_RUNNING : outcome);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(CollectiveObservationContext context) {
        return KeyValues.of(
                MetricNames.KEY_SEQUENCE, Long.toString(context.sequence()),
                MetricNames.KEY_BYTES, Long.toString(context.bytes()));
    }
}
