package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;

/**
 * What a {@link CollectiveObservationConvention} sees of one collective on one rank: the group,
 * the rank, the op, the element type, the sequence number, the payload size, the algorithm (once
 * chosen) and, when the observation stops, the outcome. One context per collective, created only
 * when the group has a real {@code ObservationRegistry} (see {@link CollectiveObserver}).
 */
public final class CollectiveObservationContext extends Observation.Context {

    private final String groupId;
    private final int rank;
    private final FlightRecorder.Entry entry;
    private final DType dtype;
    private final long bytes;
    private volatile String outcome;

    /**
     * @param groupId the group's name
     * @param rank    this rank
     * @param entry   the collective's flight-recorder entry (op, sequence number, algorithm)
     * @param dtype   the element type, null where the op has none
     * @param bytes   the payload bytes of the inputs on this rank, 0 where unknown
     */
    CollectiveObservationContext(String groupId, int rank, FlightRecorder.Entry entry, DType dtype, long bytes) {
        this.groupId = groupId;
        this.rank = rank;
        this.entry = entry;
        this.dtype = dtype;
        this.bytes = bytes;
    }

    /** {@return the group's name} */
    public String groupId() {
        return groupId;
    }

    /** {@return this rank} */
    public int rank() {
        return rank;
    }

    /** {@return the op} */
    public OpType op() {
        return entry.op;
    }

    /**
     * The element type.
     *
     * @return the element type, null where the op has none
     */
    public DType dtype() {
        return dtype;
    }

    /** {@return the collective's sequence number in its group} */
    public long sequence() {
        return entry.seq;
    }

    /** {@return the payload bytes of the inputs on this rank, 0 where unknown} */
    public long bytes() {
        return bytes;
    }

    /**
     * The algorithm the group chose.
     *
     * @return its name as the group reports it, null while none is chosen (or for ops without one)
     */
    public String algorithm() {
        return entry.algorithm;
    }

    /**
     * How the collective ended.
     *
     * @return one of the {@code MetricNames.OUTCOME_*} values, null while it runs
     */
    public String outcome() {
        return outcome;
    }

    void outcome(String o) {
        this.outcome = o;
    }
}
