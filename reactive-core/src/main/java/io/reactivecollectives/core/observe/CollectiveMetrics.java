package io.reactivecollectives.core.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Micrometer meters of one group on one rank, with the names of {@link MetricNames}: the
 * {@code rc.collective} timer (tagged op, dtype, group, rank, algorithm, outcome), the
 * {@code rc.bytes.sent} / {@code rc.bytes.received} counters, the {@code rc.collectives.inflight}
 * gauge and the {@code rc.errors} counter, all tagged with the group and rank. The registry is the user's; by default
 * {@link Metrics#globalRegistry}.
 *
 * <p>Meters are created once per tag combination and cached, so recording a collective costs a
 * map lookup and the timer update. Thread-safe. {@link #close()} removes this group's meters from
 * the registry (a group that is closed or replaced by {@code shrink()} stops reporting).
 */
public final class CollectiveMetrics implements AutoCloseable {

    private final MeterRegistry registry;
    private final String groupId;
    private final String rankTag;
    private final AtomicInteger inflight = new AtomicInteger();
    private final Counter bytesSent;
    private final Counter bytesReceived;
    private final Map<TimerKey, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final List<Meter> registered = new CopyOnWriteArrayList<>();
    private final PeerByteCounters perPeer;

    private record TimerKey(OpType op, DType dtype, String algorithm, String outcome) {
    }

    /**
     * Meters for rank {@code rank} of {@code groupId} in {@link Metrics#globalRegistry}.
     *
     * @param groupId the group's name
     * @param rank    the rank
     */
    public CollectiveMetrics(String groupId, int rank) {
        this(Metrics.globalRegistry, groupId, rank);
    }

    /**
     * Meters for rank {@code rank} of {@code groupId} in {@code registry}. Every meter is tagged with
     * the group and the rank, so that several ranks in one JVM ({@code LocalCluster}) keep apart.
     *
     * @param registry the registry
     * @param groupId  the group's name
     * @param rank     the rank
     */
    public CollectiveMetrics(MeterRegistry registry, String groupId, int rank) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0, got " + rank);
        }
        this.rankTag = Integer.toString(rank);
        this.bytesSent = track(Counter.builder(MetricNames.BYTES_SENT).baseUnit("bytes")
                .description("payload bytes sent to peers").tag(MetricNames.TAG_GROUP, groupId)
                .tag(MetricNames.TAG_RANK, rankTag).register(registry));
        this.bytesReceived = track(Counter.builder(MetricNames.BYTES_RECEIVED).baseUnit("bytes")
                .description("payload bytes received from peers").tag(MetricNames.TAG_GROUP, groupId)
                .tag(MetricNames.TAG_RANK, rankTag).register(registry));
        this.perPeer = new PeerByteCounters(registry, groupId, rankTag, this::track);
        track(Gauge.builder(MetricNames.INFLIGHT, inflight, AtomicInteger::get)
                .description("collectives in flight").tag(MetricNames.TAG_GROUP, groupId)
                .tag(MetricNames.TAG_RANK, rankTag).strongReference(true).register(registry));
    }

    private <M extends Meter> M track(M meter) {
        registered.add(meter);
        return meter;
    }

    /** {@return the registry the meters are in} */
    public MeterRegistry registry() {
        return registry;
    }

    /** {@return the group's name} */
    public String groupId() {
        return groupId;
    }

    /** A collective was subscribed to: the in-flight gauge goes up. */
    public void collectiveStarted() {
        inflight.incrementAndGet();
    }

    /**
     * A collective ended: the in-flight gauge goes down, its duration is recorded in
     * {@code rc.collective} with the outcome, and a failed outcome also counts in {@code rc.errors}.
     *
     * @param op            the collective
     * @param dtype         its element type, null for none
     * @param durationNanos how long it ran, in nanoseconds
     * @param algorithm the algorithm's name (any case), null for none
     * @param outcome   one of the {@code MetricNames.OUTCOME_*} values (see {@link #outcomeOf(Throwable)})
     */
    public void collectiveFinished(OpType op, DType dtype, String algorithm, String outcome, long durationNanos) {
        inflight.decrementAndGet();
        timer(op, dtype, algorithm, outcome).record(durationNanos, TimeUnit.NANOSECONDS);
        if (!MetricNames.OUTCOME_SUCCESS.equals(outcome)) {
            error(outcome);
        }
    }

    /**
     * {@link #collectiveFinished(OpType, DType, String, String, long)} with an {@link Algorithm}.
     *
     * @param op            the collective
     * @param dtype         its element type, null for none
     * @param algorithm     the algorithm, null for none
     * @param outcome       one of the {@code MetricNames.OUTCOME_*} values
     * @param durationNanos how long it ran, in nanoseconds
     */
    public void collectiveFinished(OpType op, DType dtype, Algorithm algorithm, String outcome, long durationNanos) {
        collectiveFinished(op, dtype, algorithm == null ? null : algorithm.name(), outcome, durationNanos);
    }

    /**
     * The {@code rc.collective} timer of this group for the given tags (created on first use).
     *
     * @param op        the collective
     * @param dtype     its element type, null for none
     * @param algorithm the algorithm's name, null for none
     * @param outcome   one of the {@code MetricNames.OUTCOME_*} values
     * @return the timer
     */
    public Timer timer(OpType op, DType dtype, String algorithm, String outcome) {
        LastTimer l = lastTimer;
        if (l != null && l.op == op && l.dtype == dtype && Objects.equals(l.algorithm, algorithm)
                && Objects.equals(l.outcome, outcome)) {
            return l.timer;
        }
        Timer t = lookUp(op, dtype, algorithm, outcome);
        lastTimer = new LastTimer(op, dtype, algorithm, outcome, t);
        return t;
    }

    /** The timer {@link #timer} returned last, with its tags: a chain of like collectives finds it without a map lookup. */
    private record LastTimer(OpType op, DType dtype, String algorithm, String outcome, Timer timer) {
    }

    private volatile LastTimer lastTimer;

    private Timer lookUp(OpType op, DType dtype, String algorithm, String outcome) {
        String alg = algorithm == null ? MetricNames.NONE : algorithm.toLowerCase(Locale.ROOT);
        return timers.computeIfAbsent(new TimerKey(op, dtype, alg, outcome), k -> track(Timer.builder(MetricNames.COLLECTIVE)
                .description("collective duration on this rank")
                .tag(MetricNames.TAG_OP, k.op.displayName())
                .tag(MetricNames.TAG_DTYPE, k.dtype == null ? MetricNames.NONE : k.dtype.torchName())
                .tag(MetricNames.TAG_GROUP, groupId)
                .tag(MetricNames.TAG_RANK, rankTag)
                .tag(MetricNames.TAG_ALGORITHM, k.algorithm)
                .tag(MetricNames.TAG_OUTCOME, k.outcome)
                .register(registry)));
    }

    /**
     * Adds to {@code rc.bytes.sent}.
     *
     * @param bytes the number of bytes
     */
    public void bytesSent(long bytes) {
        bytesSent.increment(bytes);
    }

    /**
     * Adds to {@code rc.bytes.sent} and to {@code rc.peer.bytes.sent} of {@code peer}.
     *
     * @param peer  the rank the bytes went to
     * @param bytes the number of bytes
     */
    public void bytesSent(int peer, long bytes) {
        bytesSent.increment(bytes);
        perPeer.sent(peer).add(bytes);
    }

    /**
     * Adds to {@code rc.bytes.received} and to {@code rc.peer.bytes.received} of {@code peer}.
     *
     * @param peer  the rank the bytes came from
     * @param bytes the number of bytes
     */
    public void bytesReceived(int peer, long bytes) {
        bytesReceived.increment(bytes);
        perPeer.received(peer).add(bytes);
    }

    /**
     * The bytes sent to {@code peer} so far ({@code rc.peer.bytes.sent}).
     *
     * @param peer the rank
     * @return the bytes, 0 before the first
     */
    public double peerBytesSent(int peer) {
        return perPeer.sentSoFar(peer);
    }

    /**
     * The bytes received from {@code peer} so far ({@code rc.peer.bytes.received}).
     *
     * @param peer the rank
     * @return the bytes, 0 before the first
     */
    public double peerBytesReceived(int peer) {
        return perPeer.receivedSoFar(peer);
    }


    /**
     * Adds to {@code rc.bytes.received}.
     *
     * @param bytes the number of bytes
     */
    public void bytesReceived(long bytes) {
        bytesReceived.increment(bytes);
    }

    /**
     * Counts one error of {@code kind} in {@code rc.errors} (an outcome or a {@code MetricNames.KIND_*}).
     *
     * @param kind the kind of error
     */
    public void error(String kind) {
        errors.computeIfAbsent(kind, k -> track(Counter.builder(MetricNames.ERRORS)
                .description("errors by kind").tag(MetricNames.TAG_GROUP, groupId)
                .tag(MetricNames.TAG_RANK, rankTag).tag(MetricNames.TAG_KIND, k)
                .register(registry))).increment();
    }

    /**
     * Collectives in flight now.
     *
     * @return the number of collectives in flight
     */
    public int inflight() {
        return inflight.get();
    }

    /**
     * The outcome tag for a collective that ended with {@code error} (null: success):
     * timeout ({@link CollectiveTimeoutException}, {@link TimeoutException}), peer_failure,
     * mismatch, aborted, cancelled ({@link CancellationException}) or error.
     *
     * @param error the error, null for success
     * @return the outcome tag
     */
    public static String outcomeOf(Throwable error) {
        if (error == null) {
            return MetricNames.OUTCOME_SUCCESS;
        }
        if (error instanceof CollectiveTimeoutException || error instanceof TimeoutException) {
            return MetricNames.OUTCOME_TIMEOUT;
        }
        if (error instanceof PeerFailureException) {
            return MetricNames.OUTCOME_PEER_FAILURE;
        }
        if (error instanceof CollectiveMismatchException) {
            return MetricNames.OUTCOME_MISMATCH;
        }
        if (error instanceof GroupAbortedException) {
            return MetricNames.OUTCOME_ABORTED;
        }
        if (error instanceof CancellationException) {
            return MetricNames.OUTCOME_CANCELLED;
        }
        return MetricNames.OUTCOME_ERROR;
    }

    /** Removes this group's meters from the registry. */
    @Override
    public void close() {
        for (Meter m : registered) {
            registry.remove(m);
        }
        registered.clear();
        lastTimer = null;
        timers.clear();
        errors.clear();
    }
}
