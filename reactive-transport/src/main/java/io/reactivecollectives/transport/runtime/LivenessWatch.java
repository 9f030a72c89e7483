package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.mesh.FrameListener;
import io.reactivecollectives.transport.mesh.Mesh;
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
 */
final class LivenessWatch implements FrameListener {

    private static final Logger log = LoggerFactory.getLogger(LivenessWatch.class);

    private final GroupRuntime runtime;

    LivenessWatch(GroupRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        frame.release();  // heartbeats are dropped before they get here; nothing else belongs on these connections
    }

    @Override
    public void onClosed(int peer, Throwable cause) {
        Mesh data = runtime.mesh();
        if (runtime.isClosed() || data == null) {
            return;
        }
        if (cause instanceof PeerSilentException) {
            data.closeLink(peer, cause);
        } else {
            log.debug("rank {}: the heartbeat connection to peer {} ended: {}", runtime.rank(), peer,
                    cause == null ? "closed" : cause.getMessage());
        }
    }
}
