package io.reactivecollectives.transport;

import io.reactivecollectives.core.Quorum;
import io.reactivecollectives.transport.settings.TransportSettings;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link MeshProcessGroup}. Start from {@link #defaults()} and change what you need
 * with the {@code with...} methods, or build them ({@link #builder()}, {@link #toBuilder()}); every rank of a group must use the same group id, secret and
 * thresholds.
 *
 * @param groupId             the group's name; prefixes its keys in the store and is checked in every frame
 * @param timeout             default timeout of a collective (per-call options override it); timed by
 *                            Reactor's parallel scheduler ({@code Schedulers.parallel()}), so it honours
 *                            virtual time: under {@code StepVerifier.withVirtualTime}, {@code thenAwait}
 *                            past it fails the collective with its {@code CollectiveTimeoutException}
 * @param connectTimeout      how long start-up waits for every rank to publish its address and connect
 * @param host                address the rank's server binds to and publishes (loopback by default)
 * @param secret              shared secret for the handshake HMAC, or {@code null} for none
 * @param smallAllReduceBytes all-reduces up to this size use recursive doubling, larger ones the ring
 * @param smallBroadcastBytes broadcasts up to this size use the binomial tree, larger ones the pipelined chain
 * @param segmentBytes        size of one pipelined piece (ring segment, chain segment, tree-reduce segment)
 * @param pipelineDepth       pieces in flight at once per collective
 * @param maxFramePayload     largest payload a frame may carry; bigger frames close the connection
 * @param maxUnclaimedBytes   bytes of frames that arrived before their collective asked for them that a
 *                            rank buffers before it stops reading from the connections (back-pressure)
 * @param socketBufferBytes   SO_SNDBUF / SO_RCVBUF, or 0 to leave the kernel's auto-tuning alone
 * @param diagnostics         flight recorder, meters and the optional collective (mismatch) check;
 *                            null means {@link Diagnostics#defaults()}
 * @param heartbeatInterval   how often a rank sends a HEARTBEAT frame on every connection (and checks
 *                            what it has heard from each peer, four times per interval)
 * @param missedHeartbeats    a peer from which no heartbeat has arrived for this many intervals is
 *                            declared dead (heartbeats have connections and an event loop of their own,
 *                            which no data and no user code delays): its connection is closed and every in-flight and
 *                            later collective of the group fails with a {@code PeerFailureException}
 * @param errorHandling       what a failed collective does beyond failing its {@code Mono}: nothing more
 *                            ({@link ErrorHandling#failOperations()}, the default) or log and exit the
 *                            process ({@link ErrorHandling#tearDown()}), as TORCH_NCCL_ASYNC_ERROR_HANDLING
 * @param resultDelivery      where operations deliver their results, and so where chained user code runs:
 *                            {@link ResultDelivery#EVENT_LOOP} (default; null means it) or
 *                            {@link ResultDelivery#LIBRARY_THREADS}
 * @param tls                 TLS between the ranks ({@link TlsOptions}, mutual),
 *                            or null for none (the default); with TLS every connection is TCP through TLS
 * @param connectionsPerPeer  TCP connections between each pair of ranks (stripes), 1 to 64; a collective's
 *                            DATA frames are spread over them by segment, which lets several event loops
 *                            (and, with TLS, several encrypting threads) carry one large transfer. TCP only:
 *                            ranks of one host that talk through a Unix domain socket keep one connection.
 *                            Default 1, or the system property {@code rc.transport.connectionsPerPeer}
 * @param minQuorum           the members of the previous generation a {@code shrink()} must keep
 *                            ({@link Quorum}): a rank that can count fewer forms no group and fails with a
 *                            {@link io.reactivecollectives.core.QuorumLostException}. Default a
 *                            strict majority ({@link Quorum#MAJORITY}), or the system property
 *                            {@code rc.group.minQuorum}; null means that default
 */
public record GroupOptions(String groupId, Duration timeout, Duration connectTimeout, String host, String secret,
                           long smallAllReduceBytes, long smallBroadcastBytes, int segmentBytes, int pipelineDepth,
                           int maxFramePayload, long maxUnclaimedBytes, int socketBufferBytes,
                           Diagnostics diagnostics, Duration heartbeatInterval, int missedHeartbeats,
                           ErrorHandling errorHandling, ResultDelivery resultDelivery,
                           TlsOptions tls, int connectionsPerPeer, Quorum minQuorum) {

    /** Default collective timeout (as c10d's default for gloo is 30 min; ours is shorter). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    /** Default heartbeat interval. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(500);
    /** Default number of silent heartbeat intervals after which a peer is declared dead. */
    public static final int DEFAULT_MISSED_HEARTBEATS = 5;

    /**
     * Checks the options and fills in the defaults: a null {@code errorHandling} fails operations only, a
     * null {@code diagnostics} is {@link Diagnostics#defaults()}, a null {@code resultDelivery} is
     * {@link ResultDelivery#EVENT_LOOP}.
     *
     * @param groupId             the group's name, 1 to 256 characters
     * @param timeout             default timeout of a collective, positive
     * @param connectTimeout      how long start-up waits for every rank, positive
     * @param host                address the rank's server binds to and publishes
     * @param secret              shared secret for the handshake HMAC, or null
     * @param smallAllReduceBytes all-reduces up to this size use recursive doubling
     * @param smallBroadcastBytes broadcasts up to this size use the binomial tree
     * @param segmentBytes        size of one pipelined piece, at least 64
     * @param pipelineDepth       pieces in flight per collective, at least 1
     * @param maxFramePayload     largest frame payload, at least {@code segmentBytes}
     * @param maxUnclaimedBytes   inbound bytes buffered before their collective asks for them, at least {@code maxFramePayload}
     * @param socketBufferBytes   SO_SNDBUF / SO_RCVBUF, or 0 for the kernel's auto-tuning
     * @param diagnostics         flight recorder, meters and collective check, or null
     * @param heartbeatInterval   heartbeat interval, at least 1 ms
     * @param missedHeartbeats    silent intervals after which a peer is dead, at least 2
     * @param errorHandling       what a failed collective does beyond failing, or null
     * @param resultDelivery      where operations deliver their results, or null
     * @param tls                 TLS between the ranks, or null for none
     * @param connectionsPerPeer  TCP connections between each pair of ranks, 1 to 64
     * @param minQuorum           the members a shrink must keep, or null for {@code rc.group.minQuorum}
     * @throws IllegalArgumentException when a value is out of its range
     * @throws NullPointerException when {@code groupId}, a timeout, {@code host} or {@code heartbeatInterval} is null
     */
    public GroupOptions {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(host, "host");
        if (groupId.isEmpty() || groupId.length() > 256) {
            throw new IllegalArgumentException("group id must have 1 to 256 characters, got '" + groupId + "'");
        }
        // each refusal names the setting and the value (before: "timeouts must be positive", and one
        // sentence for four rules with no value, so withSegmentBytes(32 MiB) did not say that
        // maxFramePayload, 16 MiB, was the one to raise)
        if (timeout.isNegative() || timeout.isZero() || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException((timeout.isNegative() || timeout.isZero() ? "timeout" : "connectTimeout")
                    + " must be positive, got " + (timeout.isNegative() || timeout.isZero() ? timeout : connectTimeout));
        }
        String sizes = segmentBytes < 64 ? "segmentBytes must be at least 64, got " + segmentBytes
                : pipelineDepth < 1 ? "pipelineDepth must be at least 1, got " + pipelineDepth
                : maxFramePayload < segmentBytes ? "maxFramePayload (" + maxFramePayload + ") must be at least segmentBytes ("
                        + segmentBytes + ")"
                : maxUnclaimedBytes < maxFramePayload ? "maxUnclaimedBytes (" + maxUnclaimedBytes
                        + ") must be at least maxFramePayload (" + maxFramePayload + ")" : null;
        if (sizes != null) {
            throw new IllegalArgumentException(sizes);
        }
        if (socketBufferBytes < 0) {
            throw new IllegalArgumentException("socketBufferBytes must be >= 0");
        }
        if (connectionsPerPeer < 1 || connectionsPerPeer > io.reactivecollectives.transport.frame.Handshake.MAX_STRIPES) {
            throw new IllegalArgumentException("connectionsPerPeer must be 1 to "
                    + io.reactivecollectives.transport.frame.Handshake.MAX_STRIPES + ", got " + connectionsPerPeer);
        }
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        if (heartbeatInterval.toMillis() < 1 || missedHeartbeats < 2) {
            throw new IllegalArgumentException("need heartbeatInterval >= 1 ms and missedHeartbeats >= 2, got "
                    + heartbeatInterval + " and " + missedHeartbeats);
        }
        if (errorHandling == null) {
            errorHandling = ErrorHandling.failOperations();
        }
        if (diagnostics == null) {
            diagnostics = Diagnostics.defaults();
        }
        if (resultDelivery == null) {
            resultDelivery = ResultDelivery.EVENT_LOOP;
        }
        if (minQuorum == null) {
            minQuorum = Quorum.parse(TransportSettings.MIN_QUORUM.get());
        }
    }

    /**
     * The options of the release before {@link #minQuorum()}: the default quorum.
     *
     * @param groupId             the group's name
     * @param timeout             default timeout of a collective
     * @param connectTimeout      how long start-up waits for every rank
     * @param host                address the rank's server binds to and publishes
     * @param secret              shared secret for the handshake HMAC, or null
     * @param smallAllReduceBytes all-reduces up to this size use recursive doubling
     * @param smallBroadcastBytes broadcasts up to this size use the binomial tree
     * @param segmentBytes        size of one pipelined piece
     * @param pipelineDepth       pieces in flight per collective
     * @param maxFramePayload     largest frame payload
     * @param maxUnclaimedBytes   inbound bytes buffered before their collective asks for them
     * @param socketBufferBytes   SO_SNDBUF / SO_RCVBUF, or 0
     * @param diagnostics         flight recorder, meters and collective check, or null
     * @param heartbeatInterval   heartbeat interval
     * @param missedHeartbeats    silent intervals after which a peer is dead
     * @param errorHandling       what a failed collective does beyond failing, or null
     * @param resultDelivery      where operations deliver their results, or null
     * @param tls                 TLS between the ranks, or null for none
     * @param connectionsPerPeer  TCP connections between each pair of ranks
     */
    public GroupOptions(String groupId, Duration timeout, Duration connectTimeout, String host, String secret,
                        long smallAllReduceBytes, long smallBroadcastBytes, int segmentBytes, int pipelineDepth,
                        int maxFramePayload, long maxUnclaimedBytes, int socketBufferBytes, Diagnostics diagnostics,
                        Duration heartbeatInterval, int missedHeartbeats, ErrorHandling errorHandling,
                        ResultDelivery resultDelivery, TlsOptions tls, int connectionsPerPeer) {
        this(groupId, timeout, connectTimeout, host, secret, smallAllReduceBytes, smallBroadcastBytes, segmentBytes,
                pipelineDepth, maxFramePayload, maxUnclaimedBytes, socketBufferBytes, diagnostics, heartbeatInterval,
                missedHeartbeats, errorHandling, resultDelivery, tls, connectionsPerPeer, null);
    }

    /**
     * Group "default", 5 min timeout, 60 s to connect, loopback, no secret, tuned thresholds, one
     * connection per peer (or as many as the system property {@code rc.transport.connectionsPerPeer} says),
     * a strict majority as the shrink quorum (or what {@code rc.group.minQuorum} says).
     *
     * @return the default options
     */
    public static GroupOptions defaults() {
        return new GroupOptions("default", DEFAULT_TIMEOUT, Duration.ofSeconds(60), "127.0.0.1", null,
                64 * 1024, 64 * 1024, 256 * 1024, 4, 16 * 1024 * 1024, 512L * 1024 * 1024, 0,
                Diagnostics.defaults(), DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_MISSED_HEARTBEATS,
                ErrorHandling.failOperations(), ResultDelivery.EVENT_LOOP, null,
                TransportSettings.CONNECTIONS_PER_PEER.get(), null);
    }

    /**
     * A builder starting from {@link #defaults()}.
     *
     * @return the builder
     */
    public static GroupOptionsBuilder builder() {
        return new GroupOptionsBuilder(defaults());
    }

    /**
     * A builder starting from these options.
     *
     * @return the builder
     */
    public GroupOptionsBuilder toBuilder() {
        return new GroupOptionsBuilder(this);
    }

    /**
     * These options with another group id (unique within the store; every rank must use the same).
     *
     * @param v the group's name, 1 to 256 characters
     * @return the new options
     */
    public GroupOptions withGroupId(String v) {
        return toBuilder().groupId(v).build();
    }

    /**
     * The default timeout of a collective; timed by Reactor's parallel scheduler, so a test can
     * pass it in virtual time ({@code StepVerifier.withVirtualTime}).
     *
     * @param v the timeout, positive
     * @return the new options
     */
    public GroupOptions withTimeout(Duration v) {
        return toBuilder().timeout(v).build();
    }

    /**
     * These options with another connect timeout: how long start-up waits for every rank to publish
     * its address and connect.
     *
     * @param v the connect timeout, positive
     * @return the new options
     */
    public GroupOptions withConnectTimeout(Duration v) {
        return toBuilder().connectTimeout(v).build();
    }

    /**
     * These options with another host: the address this rank's server binds to and publishes (one the
     * other ranks can reach, for a multi-host job).
     *
     * @param v the address
     * @return the new options
     */
    public GroupOptions withHost(String v) {
        return toBuilder().host(v).build();
    }

    /**
     * These options with another handshake secret (the same on every rank).
     *
     * @param v the shared secret, or null for none
     * @return the new options
     */
    public GroupOptions withSecret(String v) {
        return toBuilder().secret(v).build();
    }

    /**
     * These options with another all-reduce threshold: all-reduces up to this size use recursive
     * doubling, larger ones the ring.
     *
     * @param v the threshold in bytes
     * @return the new options
     */
    public GroupOptions withSmallAllReduceBytes(long v) {
        return toBuilder().smallAllReduceBytes(v).build();
    }

    /**
     * These options with another broadcast threshold: broadcasts up to this size use the binomial tree,
     * larger ones the pipelined chain.
     *
     * @param v the threshold in bytes
     * @return the new options
     */
    public GroupOptions withSmallBroadcastBytes(long v) {
        return toBuilder().smallBroadcastBytes(v).build();
    }

    /**
     * These options with another segment size, the piece that pipelined algorithms send at a time.
     *
     * @param v the segment size in bytes, at least 64 and at most {@link #maxFramePayload()}
     * @return the new options
     */
    public GroupOptions withSegmentBytes(int v) {
        return toBuilder().segmentBytes(v).build();
    }

    /**
     * These options with another pipeline depth: segments in flight at once per collective.
     *
     * @param v the depth, at least 1
     * @return the new options
     */
    public GroupOptions withPipelineDepth(int v) {
        return toBuilder().pipelineDepth(v).build();
    }

    /**
     * These options with another largest frame payload; a bigger frame closes its connection.
     *
     * @param v the limit in bytes, at least {@link #segmentBytes()}
     * @return the new options
     */
    public GroupOptions withMaxFramePayload(int v) {
        return toBuilder().maxFramePayload(v).build();
    }

    /**
     * These options with another limit on inbound bytes buffered before their collective asks for
     * them; above it the rank stops reading from its connections.
     *
     * @param v the limit in bytes, at least {@link #maxFramePayload()}
     * @return the new options
     */
    public GroupOptions withMaxUnclaimedBytes(long v) {
        return toBuilder().maxUnclaimedBytes(v).build();
    }

    /**
     * These options with other socket buffer sizes.
     *
     * @param v SO_SNDBUF and SO_RCVBUF in bytes, or 0 to leave the kernel's auto-tuning alone
     * @return the new options
     */
    public GroupOptions withSocketBufferBytes(int v) {
        return toBuilder().socketBufferBytes(v).build();
    }

    /**
     * These options with other diagnostics.
     *
     * @param v flight recorder, meters and collective check; null for {@link Diagnostics#defaults()}
     * @return the new options
     */
    public GroupOptions withDiagnostics(Diagnostics v) {
        return toBuilder().diagnostics(v).build();
    }

    /**
     * Heartbeat interval and how many silent intervals make a peer dead.
     *
     * @param interval how often a heartbeat is sent on every connection, at least 1 ms
     * @param missed   silent intervals after which a peer is declared dead, at least 2
     * @return the new options
     */
    public GroupOptions withHeartbeat(Duration interval, int missed) {
        return toBuilder().heartbeatInterval(interval).missedHeartbeats(missed).build();
    }

    /**
     * What a failed collective does beyond failing: see {@link ErrorHandling}.
     *
     * @param v the error handling; null to fail operations only
     * @return the new options
     */
    public GroupOptions withErrorHandling(ErrorHandling v) {
        return toBuilder().errorHandling(v).build();
    }

    /**
     * Turns the collective (mismatch) check on or off: see {@link Diagnostics#checkCollectives()}.
     *
     * @param on whether to check every collective's fingerprint across the ranks
     * @return the new options
     */
    public GroupOptions withCollectiveChecks(boolean on) {
        return withDiagnostics(diagnostics.withCheckCollectives(on));
    }

    /**
     * The registry the group's meters go to (null: the global registry).
     *
     * @param registry the registry, or null
     * @return the new options
     */
    public GroupOptions withMeterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
        return withDiagnostics(diagnostics.withMeterRegistry(registry));
    }

    /**
     * The registry where each collective becomes an {@link io.micrometer.observation.Observation}
     * (for tracing), named {@code rc.collective.observation} with the op as contextual name, the
     * child of the observation in the subscriber's Reactor context (under Micrometer's
     * {@code ObservationThreadLocalAccessor.KEY}) if any; see
     * {@link io.reactivecollectives.core.observe.CollectiveObserver#observe} and
     * {@link io.reactivecollectives.core.observe.DefaultCollectiveObservationConvention}. The default,
     * {@link io.micrometer.observation.ObservationRegistry#NOOP}, creates nothing per collective (nor
     * does a registry without handlers).
     *
     * @param registry the registry, or null for none
     * @return the new options
     */
    public GroupOptions withObservationRegistry(io.micrometer.observation.ObservationRegistry registry) {
        return withDiagnostics(diagnostics.withObservationRegistry(registry));
    }

    /**
     * The flight recorder's size and dump directory.
     *
     * @param config the flight recorder's configuration
     * @return the new options
     */
    public GroupOptions withFlightRecorder(io.reactivecollectives.core.observe.FlightRecorder.Config config) {
        return withDiagnostics(diagnostics.withFlightRecorder(config));
    }

    /**
     * These options with another interval between wait reports: while this rank waits for others (at
     * the rendezvous, in a collective or a receive stuck for longer than the interval, in a shrink) it says whom
     * it waits for and for how long, every {@code interval} (see {@link Diagnostics#waitReportInterval()}).
     *
     * @param interval how often; zero for never
     * @return the new options
     */
    public GroupOptions withWaitReportInterval(Duration interval) {
        return withDiagnostics(diagnostics.withWaitReportInterval(interval));
    }

    /**
     * These options with a live view served by every rank (the {@code reactive-dashboard} artifact
     * must be on the class path): see {@link DashboardOptions}. Off by default, unless the system
     * property {@value DashboardOptions#PROPERTY} or the variable {@value DashboardOptions#ENV} turns
     * it on.
     *
     * @param options where to serve it; null for no dashboard
     * @return the new options
     */
    public GroupOptions withDashboard(DashboardOptions options) {
        return withDiagnostics(diagnostics.withDashboard(options));
    }

    /**
     * What the connection mesh reads of these settings (group id, secret, timeouts, buffers, heartbeats).
     *
     * @return the mesh's settings, for the data connections
     */
    io.reactivecollectives.transport.mesh.MeshOptions mesh() {
        return new io.reactivecollectives.transport.mesh.MeshOptions(groupId, connectTimeout, host, secret,
                socketBufferBytes, maxFramePayload, heartbeatInterval, missedHeartbeats,
                io.reactivecollectives.transport.mesh.MeshRole.DATA,
                tls == null ? null : new io.reactivecollectives.transport.mesh.MeshTls(tls.server(), tls.client()),
                connectionsPerPeer);
    }

    @Override
    public String toString() {
        return "GroupOptions[groupId=" + groupId + ", timeout=" + timeout + ", host=" + host + ", secret="
                + (secret == null ? "none" : "set") + ", smallAllReduceBytes=" + smallAllReduceBytes
                + ", smallBroadcastBytes=" + smallBroadcastBytes + ", segmentBytes=" + segmentBytes
                + ", pipelineDepth=" + pipelineDepth + ", maxFramePayload=" + maxFramePayload
                + ", checkCollectives=" + diagnostics.checkCollectives() + ", heartbeat=" + heartbeatInterval.toMillis()
                + " ms x " + missedHeartbeats + ", errorHandling=" + errorHandling.mode() + ", results=" + resultDelivery
                + ", tls=" + (tls != null) + ", connectionsPerPeer=" + connectionsPerPeer + "]";
    }

    /**
     * TLS between the ranks (null: none); see {@link TlsOptions}
     * ({@code TlsOptions.fromPem(certificate, privateKey, trusted)} reads PEM files; mutual TLS).
     *
     * @param v the TLS configuration, or null for plain connections
     * @return the new options
     */
    public GroupOptions withTls(TlsOptions v) {
        return toBuilder().tls(v).build();
    }

    /**
     * How many TCP connections each pair of ranks opens (stripes; see {@link #connectionsPerPeer()}).
     *
     * @param v the number of connections, 1 to 64
     * @return the new options
     * @throws IllegalArgumentException when {@code v} is out of range
     */
    public GroupOptions withConnectionsPerPeer(int v) {
        return toBuilder().connectionsPerPeer(v).build();
    }

    /**
     * The members of the previous generation a {@code shrink()} must keep (see {@link Quorum}); the
     * same on every rank.
     *
     * @param v {@link Quorum#MAJORITY}, {@link Quorum#atLeast(int)} or {@link Quorum#fraction(double)};
     *          null for the default ({@code rc.group.minQuorum})
     * @return the new options
     */
    public GroupOptions withMinQuorum(Quorum v) {
        return toBuilder().minQuorum(v).build();
    }

    /**
     * Where operations deliver their results (see {@link ResultDelivery}).
     *
     * @param v where results are delivered; null for {@link ResultDelivery#EVENT_LOOP}
     * @return the new options
     */
    public GroupOptions withResultDelivery(ResultDelivery v) {
        return toBuilder().resultDelivery(v).build();
    }

    /** What the collective runtime of rank {@code rank}, whose recorder is {@code recorder}, reads of these options. */
    io.reactivecollectives.transport.runtime.RuntimeSettings runtimeSettings(int rank,
            io.reactivecollectives.core.observe.FlightRecorder recorder) {
        return new io.reactivecollectives.transport.runtime.RuntimeSettings(groupId, timeout, segmentBytes,
                pipelineDepth, maxFramePayload, maxUnclaimedBytes, diagnostics.checkCollectives(), smallAllReduceBytes,
                smallBroadcastBytes, new GroupErrors(errorHandling, groupId, rank, recorder),
                resultDelivery == ResultDelivery.EVENT_LOOP ? null
                        : io.reactivecollectives.transport.runtime.ResultThreads.get());
    }
}
