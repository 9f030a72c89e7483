package io.reactivecollectives.transport.mesh;

import java.time.Duration;
import java.util.Objects;

/**
 * What the mesh needs to know of its group's settings (the group's options make one with
 * {@code GroupOptions.mesh()}); every rank of a group must use the same group id, secret and
 * heartbeat thresholds.
 *
 * @param groupId           the group's name; prefixes its keys in the store and is checked in the handshake
 * @param connectTimeout    how long start-up waits for every rank to publish its address and connect
 * @param host              address the rank's server binds to and publishes
 * @param secret            shared secret for the handshake HMAC, or {@code null} for none
 * @param socketBufferBytes SO_SNDBUF / SO_RCVBUF, or 0 to leave the kernel's auto-tuning alone
 * @param maxFramePayload   largest payload a frame may carry once the handshake passed
 * @param heartbeatInterval how often a HEARTBEAT frame goes out on every connection
 * @param missedHeartbeats  silent intervals after which a peer is declared unresponsive
 * @param role              what the connections carry ({@link MeshRole}); the 8-argument constructor means
 *                          {@link MeshRole#COMBINED}
 * @param tls               TLS on every connection ({@link MeshTls}), or null for none
 * @param connectionsPerPeer how many TCP connections each pair of ranks opens (stripes, as NCCL's
 *                          {@code NCCL_NSOCKS_PERTHREAD} x {@code NCCL_SOCKET_NTHREADS}), 1 to
 *                          {@link io.reactivecollectives.transport.frame.Handshake#MAX_STRIPES}: the DATA
 *                          frames of a collective are spread over them by their chunk (segment) number,
 *                          every other frame goes on the first. TCP only: ranks of one host that reach
 *                          each other through a Unix domain socket open one connection (a kernel copy that
 *                          one stream already fills), and a {@link MeshRole#LIVENESS} mesh always has one
 */
public record MeshOptions(String groupId, Duration connectTimeout, String host, String secret,
                          int socketBufferBytes, int maxFramePayload, Duration heartbeatInterval,
                          int missedHeartbeats, MeshRole role, MeshTls tls, int connectionsPerPeer) {

    /** Suffix of the group id under which a group's {@link MeshRole#LIVENESS} mesh meets. */
    public static final String LIVENESS_SUFFIX = "#liveness";

    /** A mesh that carries frames and heartbeats on the same connections ({@link MeshRole#COMBINED}). */
    public MeshOptions(String groupId, Duration connectTimeout, String host, String secret, int socketBufferBytes,
                       int maxFramePayload, Duration heartbeatInterval, int missedHeartbeats) {
        this(groupId, connectTimeout, host, secret, socketBufferBytes, maxFramePayload, heartbeatInterval,
                missedHeartbeats, MeshRole.COMBINED, null, 1);
    }

    /**
     * Options with one connection per pair of ranks.
     *
     * @param groupId           the group's name
     * @param connectTimeout    how long start-up waits for every rank
     * @param host              address the rank's server binds to and publishes
     * @param secret            shared secret for the handshake HMAC, or null
     * @param socketBufferBytes SO_SNDBUF / SO_RCVBUF, or 0
     * @param maxFramePayload   largest payload a frame may carry
     * @param heartbeatInterval how often a HEARTBEAT frame goes out
     * @param missedHeartbeats  silent intervals after which a peer is unresponsive
     * @param role              what the connections carry
     * @param tls               TLS on every connection, or null
     */
    public MeshOptions(String groupId, Duration connectTimeout, String host, String secret, int socketBufferBytes,
                       int maxFramePayload, Duration heartbeatInterval, int missedHeartbeats, MeshRole role, MeshTls tls) {
        this(groupId, connectTimeout, host, secret, socketBufferBytes, maxFramePayload, heartbeatInterval,
                missedHeartbeats, role, tls, 1);
    }

    public MeshOptions {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive, got " + connectTimeout);
        }
        if (socketBufferBytes < 0 || maxFramePayload < 1) {
            throw new IllegalArgumentException("need socketBufferBytes >= 0 and maxFramePayload >= 1, got "
                    + socketBufferBytes + " and " + maxFramePayload);
        }
        if (heartbeatInterval.toMillis() < 1 || missedHeartbeats < 2) {
            throw new IllegalArgumentException("need heartbeatInterval >= 1 ms and missedHeartbeats >= 2, got "
                    + heartbeatInterval + " and " + missedHeartbeats);
        }
        if (connectionsPerPeer < 1 || connectionsPerPeer > io.reactivecollectives.transport.frame.Handshake.MAX_STRIPES) {
            throw new IllegalArgumentException("connectionsPerPeer must be 1 to "
                    + io.reactivecollectives.transport.frame.Handshake.MAX_STRIPES + ", got " + connectionsPerPeer);
        }
        if (role == MeshRole.LIVENESS && connectionsPerPeer != 1) {
            throw new IllegalArgumentException("a liveness mesh has one connection per peer, got " + connectionsPerPeer);
        }
    }

    /** These options for a mesh of frames only ({@link MeshRole#DATA}). */
    public MeshOptions forData() {
        return new MeshOptions(groupId, connectTimeout, host, secret, socketBufferBytes, maxFramePayload,
                heartbeatInterval, missedHeartbeats, MeshRole.DATA, tls, connectionsPerPeer);
    }

    /**
     * The options of the {@link MeshRole#LIVENESS} mesh beside this one: same host, secret and
     * thresholds, group id with {@link #LIVENESS_SUFFIX}, the kernel's socket buffers (a heartbeat
     * is one header), a one-byte payload limit (a heartbeat has none) and one connection per peer.
     */
    public MeshOptions forLiveness() {
        return new MeshOptions(groupId + LIVENESS_SUFFIX, connectTimeout, host, secret, 0, 1,
                heartbeatInterval, missedHeartbeats, MeshRole.LIVENESS, tls, 1);
    }

    @Override
    public String toString() {
        return "MeshOptions[groupId=" + groupId + ", connectTimeout=" + connectTimeout + ", host=" + host
                + ", secret=" + (secret == null ? "none" : "set") + ", socketBufferBytes=" + socketBufferBytes
                + ", maxFramePayload=" + maxFramePayload + ", heartbeat=" + heartbeatInterval.toMillis() + " ms x "
                + missedHeartbeats + ", role=" + role + ", tls=" + (tls != null) + ", connectionsPerPeer=" + connectionsPerPeer + "]";
    }
}
