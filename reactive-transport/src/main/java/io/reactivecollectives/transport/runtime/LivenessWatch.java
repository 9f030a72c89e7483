package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.mesh.FrameListener;
import io.reactivecollectives.transport.failure.AbortProtocol;
import io.reactivecollectives.transport.mesh.MeshPeers;
import io.reactivecollectives.transport.mesh.MeshRole;
import io.reactivecollectives.transport.mesh.PeerSilentException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens to a group's {@link MeshRole#LIVENESS} mesh, whose connections carry heartbeats alone on
 * their own event loop. A peer found silent there is silent as a process (stopped, frozen, cut
 * off): its data connection is closed with that {@link PeerSilentException}, so the group fails its
 * collectives through the one path every closed connection takes ({@link InboundFrames#onClosed}),
 * on the data connection's loop. Any other end of a heartbeat connection (the peer closed or left,
 * its process died) is for the data connection to report, and is only logged here.
 *
 * <p>Over a heartbeat ring ({@link MeshPeers}) the other ranks do not watch that peer: this rank also
 * tells them ({@link AbortProtocol#tellPeerSilent}), and each closes its own data connection to it
 * with this rank's finding.
 */
final class LivenessWatch implements FrameListener {

    private static final Logger log = LoggerFactory.getLogger(LivenessWatch.class);

    private final GroupRuntime runtime;
    /** Whether other ranks do not watch the peers this rank watches (a ring), so must be told. */
    private final boolean tell;
    private final AbortProtocol notices;

    LivenessWatch(GroupRuntime runtime, MeshPeers peers, AbortProtocol notices) {
        this.runtime = runtime;
        this.tell = !peers.all(runtime.size());
        this.notices = notices;
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        frame.release();  // heartbeats are dropped before they get here; nothing else belongs on these connections
    }

    @Override
    public void onClosed(int peer, Throwable cause) {
        io.reactivecollectives.transport.mesh.Connections data = runtime.mesh();
        if (runtime.isClosed() || data == null) {
            return;
        }
        if (cause instanceof PeerSilentException) {
            data.closeLink(peer, cause);
            if (tell) {
                notices.tellPeerSilent(peer, cause.getMessage());
            }
        } else {
            log.debug("rank {}: the heartbeat connection to peer {} ended: {}", runtime.rank(), peer,
                    cause == null ? "closed" : cause.getMessage());
        }
    }
}
