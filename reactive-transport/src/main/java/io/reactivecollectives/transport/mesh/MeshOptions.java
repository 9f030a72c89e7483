package io.reactivecollectives.transport.mesh;

import java.time.Duration;

/**
 * What the mesh reads of a group's settings (the facade's {@code GroupOptions} makes it, so the
 * mesh does not depend on the facade's package).
 *
 * @param groupId           the group's name (its hash is in every frame; handshakes carry it whole)
 * @param connectTimeout    how long to wait for every rank and every handshake
 * @param host              the address this rank binds and publishes
 * @param secret            the shared secret of the handshake's HMAC (null or empty: none)
 * @param socketBufferBytes socket buffer sizes (0: the kernel's)
 * @param heartbeatInterval how often a HEARTBEAT goes out on every connection
 * @param missedHeartbeats  silent intervals after which a peer is dead
 * @param maxFramePayload   largest payload of one frame
 */
public record MeshOptions(String groupId, Duration connectTimeout, String host, String secret, int socketBufferBytes,
                          Duration heartbeatInterval, int missedHeartbeats, int maxFramePayload) {
}
