package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * What a {@link FlightRecorder} holds at one instant, as written to (and read back from) its JSON
 * dump file. Immutable.
 *
 * @param version       format version ({@link #FORMAT_VERSION})
 * @param groupId       the group the recorder belongs to
 * @param rank          the rank that wrote the dump
 * @param worldSize     the number of ranks in the group
 * @param dumpedAtUs    wall-clock time of the snapshot, microseconds since the epoch
 * @param reason        why the dump was taken ({@code "on request"}, the error that triggered it)
 * @param capacity      the ring buffer's size
 * @param recorded      how many collectives were recorded since the group started (older than the
 *                      last {@code capacity} ones are gone)
 * @param entries       the retained collectives, oldest first
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FlightRecorderDump(int version, String groupId, int rank, int worldSize, long dumpedAtUs,
                                 String reason, int capacity, long recorded, List<Entry> entries) {

    /** The current format version. */
    public static final int FORMAT_VERSION = 1;

    /**
     * Copies the entries (null: none).
     *
     * @param version    format version
     * @param groupId    the group the recorder belongs to
     * @param rank       the rank that wrote the dump
     * @param worldSize  the number of ranks in the group
     * @param dumpedAtUs wall-clock time of the snapshot, microseconds since the epoch
     * @param reason     why the dump was taken
     * @param capacity   the ring buffer's size
     * @param recorded   how many collectives were recorded since the group started
     * @param entries    the retained collectives, oldest first
     */
    public FlightRecorderDump {
        entries = entries == null ? List.of() : List.copyOf(entries);
    }

    /**
     * One collective as the recorder saw it. Timestamps are wall-clock microseconds since the epoch,
     * {@code null} for a state not reached.
     *
     * @param id             the recorder's running number for this entry (0, 1, ...)
     * @param seq            the collective's sequence number in its group
     * @param op             the op's display name ({@code allReduce}), see {@code OpType.displayName()}
     * @param dtype          the element type's torch name ({@code float32}); null where there is none
     * @param inputShapes    shape of each input tensor
     * @param outputShapes   shape of each output tensor
     * @param inputBytes     total bytes of the inputs
     * @param outputBytes    total bytes of the outputs
     * @param algorithm      the algorithm that ran it ({@code ring}); null if not (yet) chosen
     * @param state          the last state reached: SCHEDULED, STARTED, COMPLETED or FAILED
     * @param scheduledAtUs  when the collective was subscribed to
     * @param startedAtUs    when it started sending
     * @param completedAtUs  when it completed
     * @param failedAtUs     when it failed
     * @param waitingFor     the peer it was last waiting on, null when none
     * @param waitingWhat    what it was waiting for from that peer (a step, a chunk), null when unknown
     * @param error          the failure's message, for FAILED
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Entry(long id, long seq, String op, String dtype, List<List<Long>> inputShapes,
                        List<List<Long>> outputShapes, long inputBytes, long outputBytes, String algorithm,
                        String state, Long scheduledAtUs, Long startedAtUs, Long completedAtUs, Long failedAtUs,
                        Integer waitingFor, String waitingWhat, String error) {

        /**
         * Copies the shapes (null: none).
         *
         * @param id            the recorder's running number for this entry
         * @param seq           the collective's sequence number in its group
         * @param op            the op's display name
         * @param dtype         the element type's torch name, or null
         * @param inputShapes   shape of each input tensor
         * @param outputShapes  shape of each output tensor
         * @param inputBytes    total bytes of the inputs
         * @param outputBytes   total bytes of the outputs
         * @param algorithm     the algorithm that ran it, or null
         * @param state         the last state reached
         * @param scheduledAtUs when the collective was subscribed to
         * @param startedAtUs   when it started sending
         * @param completedAtUs when it completed
         * @param failedAtUs    when it failed
         * @param waitingFor    the peer it was last waiting on, or null
         * @param waitingWhat   what it was waiting for from that peer, or null
         * @param error         the failure's message, for FAILED
         */
        public Entry {
            inputShapes = inputShapes == null ? List.of() : List.copyOf(inputShapes);
            outputShapes = outputShapes == null ? List.of() : List.copyOf(outputShapes);
        }

        /**
         * Whether the entry reached COMPLETED.
         *
         * @return whether it completed
         */
        @JsonIgnore
        public boolean completed() {
            return "COMPLETED".equals(state);
        }

        /**
         * Whether the entry reached FAILED.
         *
         * @return whether it failed
         */
        @JsonIgnore
        public boolean failed() {
            return "FAILED".equals(state);
        }

        /**
         * When it started, else when it was scheduled (a collective that never started).
         *
         * @return epoch microseconds, or null when it has neither
         */
        @JsonIgnore
        public Long startUs() {
            return startedAtUs != null ? startedAtUs : scheduledAtUs;
        }

        /**
         * When it ended: completed, else failed.
         *
         * @return epoch microseconds, or null while it runs
         */
        @JsonIgnore
        public Long endedUs() {
            return completedAtUs != null ? completedAtUs : failedAtUs;
        }
    }
}
