package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.frame.FrameType;

/**
 * Receives what the links of a mesh deliver ({@link PeerLink#listener()}): called on a socket link's
 * event loop, or on the poller thread of the shared-memory links. Every link delivers the same way:
 * the whole frame, header and payload, lent to the receiver, and the link's end once ({@link LinkEnd}).
 */
public interface FrameListener extends LinkEnd {

    /**
     * A validated frame (magic, version, type, group and source checked) from {@code peer}; takes
     * ownership: the receiver releases it or retains what it keeps (a shared-memory frame may be lent
     * where it lies in the ring, which waits until it is released).
     */
    void onFrame(int peer, ByteBuf frame);

    /**
     * {@link #onFrame(int, ByteBuf)} with the frame's type as the link's checks decoded it: what the
     * links call, so that a receiver which routes by type (the group's router) need not decode it
     * again; by default the type is dropped.
     *
     * @param peer  the sending rank
     * @param type  the frame's type ({@code FrameCodec.type(frame)})
     * @param frame the frame, ownership passed as for {@link #onFrame(int, ByteBuf)}
     */
    default void onFrame(int peer, FrameType type, ByteBuf frame) {
        onFrame(peer, frame);
    }

    /**
     * Whether frames with another group id than the link's own are this listener's too: the
     * subgroups carried over the mesh ({@link CarriedGroup}); none by default.
     *
     * @param group a frame's group id
     * @return true where such frames are delivered here
     */
    default boolean carries(int group) {
        return false;
    }
}
