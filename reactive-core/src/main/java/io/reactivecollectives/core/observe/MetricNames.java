package io.reactivecollectives.core.observe;

/**
 * The names and tags of the Micrometer meters this library registers (see {@link CollectiveMetrics}).
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@value #COLLECTIVE}</td><td>timer</td>
 *       <td>{@value #TAG_OP}, {@value #TAG_DTYPE}, {@value #TAG_GROUP}, {@value #TAG_RANK}, {@value #TAG_ALGORITHM}, {@value #TAG_OUTCOME}</td>
 *       <td>duration of each collective on this rank, from subscription to its terminal signal</td></tr>
 *   <tr><td>{@value #BYTES_SENT}</td><td>counter (bytes)</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK}</td>
 *       <td>payload bytes this rank sent to its peers</td></tr>
 *   <tr><td>{@value #BYTES_RECEIVED}</td><td>counter (bytes)</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK}</td>
 *       <td>payload bytes this rank received from its peers</td></tr>
 *   <tr><td>{@value #PEER_BYTES_SENT}</td><td>counter (bytes)</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK},
 *       {@value #TAG_PEER}</td><td>payload bytes this rank sent to one peer (registered on the first)</td></tr>
 *   <tr><td>{@value #PEER_BYTES_RECEIVED}</td><td>counter (bytes)</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK},
 *       {@value #TAG_PEER}</td><td>payload bytes this rank received from one peer</td></tr>
 *   <tr><td>{@value #INFLIGHT}</td><td>gauge</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK}</td>
 *       <td>collectives subscribed to and not yet terminated</td></tr>
 *   <tr><td>{@value #ERRORS}</td><td>counter</td><td>{@value #TAG_GROUP}, {@value #TAG_RANK}, {@value #TAG_KIND}</td>
 *       <td>failures by kind: the failed {@value #TAG_OUTCOME}s of {@value #COLLECTIVE} and
 *       transport-level kinds such as {@value #KIND_BAD_FRAME}</td></tr>
 *   <tr><td>{@value #STORE_OP}</td><td>timer</td><td>op, outcome, store</td>
 *       <td>store operations, registered by the metered store wrapper
 *       ({@link io.reactivecollectives.core.rendezvous.MeteredStore}), not by {@link CollectiveMetrics}</td></tr>
 * </table>
 *
 * <p>With an {@code ObservationRegistry} (see {@link CollectiveObserver}), each collective is also an
 * {@code Observation} named {@value #OBSERVATION} (see {@link DefaultCollectiveObservationConvention}),
 * with the timer's tags as low-cardinality keys and {@value #KEY_SEQUENCE} and {@value #KEY_BYTES} as
 * high-cardinality ones.
 *
 * <p>{@value #TAG_OUTCOME} is one of {@value #OUTCOME_SUCCESS}, {@value #OUTCOME_TIMEOUT},
 * {@value #OUTCOME_PEER_FAILURE}, {@value #OUTCOME_MISMATCH}, {@value #OUTCOME_ABORTED},
 * {@value #OUTCOME_CANCELLED}, {@value #OUTCOME_ERROR}; {@value #TAG_OP} is the op's display name
 * ({@code allReduce}); {@value #TAG_DTYPE} is the torch name ({@code float32}) or {@code none};
 * {@value #TAG_ALGORITHM} is the algorithm in lower case ({@code ring}) or {@code none}.
 */
public final class MetricNames {

    private MetricNames() {
    }

    /** Timer of collectives. */
    public static final String COLLECTIVE = "rc.collective";
    /** Counter of payload bytes sent. */
    public static final String BYTES_SENT = "rc.bytes.sent";
    /** Counter of payload bytes received. */
    public static final String BYTES_RECEIVED = "rc.bytes.received";
    /** Counter: payload bytes sent to one peer (tag {@link #TAG_PEER}). */
    public static final String PEER_BYTES_SENT = "rc.peer.bytes.sent";
    /** Counter: payload bytes received from one peer (tag {@link #TAG_PEER}). */
    public static final String PEER_BYTES_RECEIVED = "rc.peer.bytes.received";
    /** Tag: the peer's rank. */
    public static final String TAG_PEER = "peer";
    /** Gauge: collectives in flight. */
    public static final String INFLIGHT = "rc.collectives.inflight";
    /** Counter of errors by kind. */
    public static final String ERRORS = "rc.errors";
    /** Timer of store operations (registered by {@link io.reactivecollectives.core.rendezvous.MeteredStore}; same as its {@code TIMER}). */
    public static final String STORE_OP = io.reactivecollectives.core.rendezvous.MeteredStore.TIMER;

    /** Name of a collective's {@code Observation} (see {@link DefaultCollectiveObservationConvention}). */
    public static final String OBSERVATION = "rc.collective.observation";

    /** Tag: the operation ({@code allReduce}). */
    public static final String TAG_OP = "op";
    /** Tag: the element type ({@code float32}), or {@link #NONE}. */
    public static final String TAG_DTYPE = "dtype";
    /** Tag: the group id. */
    public static final String TAG_GROUP = "group";
    /** The rank within the group, so that ranks sharing a JVM (and a registry) keep apart. */
    public static final String TAG_RANK = "rank";
    /** Tag: the algorithm that ran ({@code ring}), or {@link #NONE}. */
    public static final String TAG_ALGORITHM = "algorithm";
    /** Tag: how a collective ended, one of the {@code OUTCOME_*} values. */
    public static final String TAG_OUTCOME = "outcome";
    /** Tag of {@link #ERRORS}: the kind of error. */
    public static final String TAG_KIND = "kind";

    /** High-cardinality key of a collective's observation: its sequence number in the group. */
    public static final String KEY_SEQUENCE = "sequence";
    /** High-cardinality key of a collective's observation: the payload bytes of its inputs on this rank. */
    public static final String KEY_BYTES = "bytes";

    /** Tag value when a collective has no dtype or algorithm. */
    public static final String NONE = "none";

    /** Outcome: completed normally. */
    public static final String OUTCOME_SUCCESS = "success";
    /** Outcome: a {@link io.reactivecollectives.core.CollectiveTimeoutException} or another {@code TimeoutException}. */
    public static final String OUTCOME_TIMEOUT = "timeout";
    /** Outcome: a {@link io.reactivecollectives.core.PeerFailureException}. */
    public static final String OUTCOME_PEER_FAILURE = "peer_failure";
    /** Outcome: a {@link io.reactivecollectives.core.CollectiveMismatchException}. */
    public static final String OUTCOME_MISMATCH = "mismatch";
    /** Outcome: a {@link io.reactivecollectives.core.GroupAbortedException}. */
    public static final String OUTCOME_ABORTED = "aborted";
    /** Outcome: a {@code CancellationException} (the collective was cancelled). */
    public static final String OUTCOME_CANCELLED = "cancelled";
    /** Outcome: any other failure. */
    public static final String OUTCOME_ERROR = "error";
    /** Outcome key value of an observation that has started and not yet stopped. */
    public static final String OUTCOME_RUNNING = "running";

    /** {@value #ERRORS} kind for a malformed or unexpected frame from a peer. */
    public static final String KIND_BAD_FRAME = "bad_frame";
    /** {@value #ERRORS} kind for a connection rejected before the handshake completed. */
    public static final String KIND_REJECTED_CONNECTION = "rejected_connection";
    /** {@value #ERRORS} kind for a peer that missed its heartbeats. */
    public static final String KIND_HEARTBEAT = "heartbeat_missed";
}
