package io.reactivecollectives.transport;


import java.time.Duration;

/**
 * Builds {@link GroupOptions}: {@link GroupOptions#builder()} starts from the defaults,
 * {@link GroupOptions#toBuilder()} from given options; {@link #build()} checks the values (as the
 * record's constructor does). Not thread-safe; every setter returns this builder.
 */
public final class GroupOptionsBuilder {

    private String groupId;
    private Duration timeout;
    private Duration connectTimeout;
    private String host;
    private String secret;
    private long smallAllReduceBytes;
    private long smallBroadcastBytes;
    private int segmentBytes;
    private int pipelineDepth;
    private int maxFramePayload;
    private long maxUnclaimedBytes;
    private int socketBufferBytes;
    private Diagnostics diagnostics;
    private Duration heartbeatInterval;
    private int missedHeartbeats;
    private ErrorHandling errorHandling;
    private ResultDelivery resultDelivery;
    private TlsOptions tls;
    private int connectionsPerPeer;
    private io.reactivecollectives.core.Quorum minQuorum;

    GroupOptionsBuilder(GroupOptions o) {
        groupId = o.groupId();
        timeout = o.timeout();
        connectTimeout = o.connectTimeout();
        host = o.host();
        secret = o.secret();
        smallAllReduceBytes = o.smallAllReduceBytes();
        smallBroadcastBytes = o.smallBroadcastBytes();
        segmentBytes = o.segmentBytes();
        pipelineDepth = o.pipelineDepth();
        maxFramePayload = o.maxFramePayload();
        maxUnclaimedBytes = o.maxUnclaimedBytes();
        socketBufferBytes = o.socketBufferBytes();
        diagnostics = o.diagnostics();
        heartbeatInterval = o.heartbeatInterval();
        missedHeartbeats = o.missedHeartbeats();
        errorHandling = o.errorHandling();
        resultDelivery = o.resultDelivery();
        tls = o.tls();
        connectionsPerPeer = o.connectionsPerPeer();
        minQuorum = o.minQuorum();
    }

    /**
     * The options built.
     *
     * @return the new options
     * @throws IllegalArgumentException when a value is out of its range (see {@link GroupOptions})
     * @throws NullPointerException when the group id, a timeout, the host or the heartbeat interval is null
     */
    public GroupOptions build() {
        return new GroupOptions(groupId, timeout, connectTimeout, host, secret, smallAllReduceBytes,
                smallBroadcastBytes, segmentBytes, pipelineDepth, maxFramePayload, maxUnclaimedBytes,
                socketBufferBytes, diagnostics, heartbeatInterval, missedHeartbeats, errorHandling, resultDelivery,
                tls, connectionsPerPeer, minQuorum);
    }

    /**
     * The group's name (see {@link GroupOptions#withGroupId}).
     *
     * @param v 1 to 256 characters
     * @return this builder
     */
    public GroupOptionsBuilder groupId(String v) {
        groupId = v;
        return this;
    }

    /**
     * A collective's default timeout (see {@link GroupOptions#withTimeout}).
     *
     * @param v positive
     * @return this builder
     */
    public GroupOptionsBuilder timeout(Duration v) {
        timeout = v;
        return this;
    }

    /**
     * How long start-up waits for every rank (see {@link GroupOptions#withConnectTimeout}).
     *
     * @param v positive
     * @return this builder
     */
    public GroupOptionsBuilder connectTimeout(Duration v) {
        connectTimeout = v;
        return this;
    }

    /**
     * The address this rank binds and publishes (see {@link GroupOptions#withHost}).
     *
     * @param v the address
     * @return this builder
     */
    public GroupOptionsBuilder host(String v) {
        host = v;
        return this;
    }

    /**
     * The handshake secret (see {@link GroupOptions#withSecret}).
     *
     * @param v the secret, or null for none
     * @return this builder
     */
    public GroupOptionsBuilder secret(String v) {
        secret = v;
        return this;
    }

    /**
     * The all-reduce threshold (see {@link GroupOptions#withSmallAllReduceBytes}).
     *
     * @param v bytes
     * @return this builder
     */
    public GroupOptionsBuilder smallAllReduceBytes(long v) {
        smallAllReduceBytes = v;
        return this;
    }

    /**
     * The broadcast threshold (see {@link GroupOptions#withSmallBroadcastBytes}).
     *
     * @param v bytes
     * @return this builder
     */
    public GroupOptionsBuilder smallBroadcastBytes(long v) {
        smallBroadcastBytes = v;
        return this;
    }

    /**
     * The pipelined piece (see {@link GroupOptions#withSegmentBytes}).
     *
     * @param v bytes, at least 64
     * @return this builder
     */
    public GroupOptionsBuilder segmentBytes(int v) {
        segmentBytes = v;
        return this;
    }

    /**
     * Pieces in flight per collective (see {@link GroupOptions#withPipelineDepth}).
     *
     * @param v at least 1
     * @return this builder
     */
    public GroupOptionsBuilder pipelineDepth(int v) {
        pipelineDepth = v;
        return this;
    }

    /**
     * The largest frame payload (see {@link GroupOptions#withMaxFramePayload}).
     *
     * @param v bytes, at least the segment size
     * @return this builder
     */
    public GroupOptionsBuilder maxFramePayload(int v) {
        maxFramePayload = v;
        return this;
    }

    /**
     * Inbound bytes buffered before their collective asks (see {@link GroupOptions#withMaxUnclaimedBytes}).
     *
     * @param v bytes, at least the largest frame payload
     * @return this builder
     */
    public GroupOptionsBuilder maxUnclaimedBytes(long v) {
        maxUnclaimedBytes = v;
        return this;
    }

    /**
     * SO_SNDBUF / SO_RCVBUF (see {@link GroupOptions#withSocketBufferBytes}).
     *
     * @param v bytes, or 0 for the kernel's auto-tuning
     * @return this builder
     */
    public GroupOptionsBuilder socketBufferBytes(int v) {
        socketBufferBytes = v;
        return this;
    }

    /**
     * Flight recorder, meters and collective check (see {@link GroupOptions#withDiagnostics}).
     *
     * @param v the diagnostics, or null for {@link Diagnostics#defaults()}
     * @return this builder
     */
    public GroupOptionsBuilder diagnostics(Diagnostics v) {
        diagnostics = v;
        return this;
    }

    /**
     * How often heartbeats go (see {@link GroupOptions#withHeartbeat}).
     *
     * @param v at least 1 ms
     * @return this builder
     */
    public GroupOptionsBuilder heartbeatInterval(Duration v) {
        heartbeatInterval = v;
        return this;
    }

    /**
     * Silent intervals after which a peer is dead (see {@link GroupOptions#withHeartbeat}).
     *
     * @param v at least 2
     * @return this builder
     */
    public GroupOptionsBuilder missedHeartbeats(int v) {
        missedHeartbeats = v;
        return this;
    }

    /**
     * What a failed collective does beyond failing (see {@link GroupOptions#withErrorHandling}).
     *
     * @param v the error handling, or null to fail operations only
     * @return this builder
     */
    public GroupOptionsBuilder errorHandling(ErrorHandling v) {
        errorHandling = v;
        return this;
    }

    /**
     * Where results are delivered (see {@link GroupOptions#withResultDelivery}).
     *
     * @param v where, or null for {@link ResultDelivery#EVENT_LOOP}
     * @return this builder
     */
    public GroupOptionsBuilder resultDelivery(ResultDelivery v) {
        resultDelivery = v;
        return this;
    }

    /**
     * TLS between the ranks (see {@link GroupOptions#withTls}).
     *
     * @param v the TLS configuration, or null for none
     * @return this builder
     */
    public GroupOptionsBuilder tls(TlsOptions v) {
        tls = v;
        return this;
    }

    /**
     * TCP connections per pair of ranks (see {@link GroupOptions#withConnectionsPerPeer}).
     *
     * @param v 1 to 64
     * @return this builder
     */
    public GroupOptionsBuilder connectionsPerPeer(int v) {
        connectionsPerPeer = v;
        return this;
    }

    /**
     * The members a shrink must keep (see {@link GroupOptions#withMinQuorum}).
     *
     * @param v the quorum; null for the default ({@code rc.group.minQuorum})
     * @return this builder
     */
    public GroupOptionsBuilder minQuorum(io.reactivecollectives.core.Quorum v) {
        minQuorum = v;
        return this;
    }
}
