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
 */
public record MeshOptions(String groupId, Duration connectTimeout, String host, String secret,
                          int socketBufferBytes, int maxFramePayload, Duration heartbeatInterval,
                          int missedHeartbeats) {

    public MeshOptions {
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
    }

    @Override
    public String toString() {
        return "MeshOptions[groupId=" + groupId + ", connectTimeout=" + connectTimeout + ", host=" + host
                + ", secret=" + (secret == null ? "none" : "set") + ", socketBufferBytes=" + socketBufferBytes
                + ", maxFramePayload=" + maxFramePayload + ", heartbeat=" + heartbeatInterval.toMillis() + " ms x "
                + missedHeartbeats + "]";
    }
}
