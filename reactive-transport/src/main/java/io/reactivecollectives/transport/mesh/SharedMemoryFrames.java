package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.MalformedFrameException;
import io.reactivecollectives.transport.shm.ShmFrames;

/**
 * The inbound end of a rank's shared-memory links ({@link SharedMemoryLink}), called on the poller
 * thread with each whole frame the ring's reader split off by its length (bounded there): checks it
 * ({@link #check}) and hands it, with its type, straight to the mesh's listener (its links'). A frame
 * that fails a check, a corrupt stream, or a listener that throws closes that peer's link with a
 * {@link PeerProtocolException} naming the peer, as a bad frame on a socket does.
 */
final class SharedMemoryFrames implements ShmFrames {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SharedMemoryFrames.class);

    private final int group;
    private final String describe;
    /** Where every link's frames go (the mesh's listener, as {@link SharedMemoryLink#listener()}). */
    private final FrameListener listener;
    /** The subgroups' ids the mesh carries besides its own. */
    private final java.util.function.IntPredicate carried;
    /** The link of each local peer, by rank; all set before the poller starts. */
    private final SharedMemoryLink[] links;

    /**
     * The inbound end of a rank's shared-memory links.
     *
     * @param world    the group's size
     * @param group    the group's id hash
     * @param describe the rank, for the log
     * @param listener where the frames go: the mesh's listener, every link's
     */
    SharedMemoryFrames(int world, int group, String describe, FrameListener listener) {
        this.group = group;
        this.describe = describe;
        this.listener = listener;
        this.carried = listener::carries;
        this.links = new SharedMemoryLink[world];
    }

    /** Frames from {@code link}'s peer are read from now on (before the poller starts). */
    void add(SharedMemoryLink link) {
        links[link.peer()] = link;
    }

    /**
     * Checks a frame that {@code peer} wrote into its ring: the rules every link shares
     * ({@link FrameCodec#validateEstablished}), and no HEARTBEAT (heartbeats travel on the socket underneath, never
     * through the ring).
     *
     * @return the frame's type
     * @throws MalformedFrameException when a check fails
     */
    static FrameType check(ByteBuf frame, int group, int peer) {
        return check(frame, group, g -> false, peer);
    }

    /** {@link #check(ByteBuf, int, int)} taking also the group ids {@code carried} accepts (subgroups). */
    static FrameType check(ByteBuf frame, int group, java.util.function.IntPredicate carried, int peer) {
        FrameType type = FrameCodec.validateEstablished(frame, group, carried, peer);
        if (type == FrameType.HEARTBEAT) {
            throw new MalformedFrameException("heartbeat in shared memory (heartbeats travel on the socket)");
        }
        return type;
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        SharedMemoryLink link = links[peer];
        if (link == null) {
            frame.release();   // not a peer this rank reads (the reader only has rings of linked peers)
            return;
        }
        FrameType type;
        try {
            type = check(frame, group, carried, peer);
        } catch (MalformedFrameException e) {
            frame.release();
            onCorrupt(peer, e.getMessage());
            return;
        }
        try {
            listener.onFrame(peer, type, frame);
        } catch (RuntimeException | Error e) {
            // what Netty's pipeline does with an exception a handler throws: the connection closes with it
            log.warn("{}: closing the link to rank {} after an unexpected error", describe, peer, e);
            link.closeWith(new PeerProtocolException("rank " + peer + ": " + e, e));
        }
    }

    @Override
    public void onCorrupt(int peer, String why) {
        SharedMemoryLink link = links[peer];
        if (link != null) {
            link.closeWith(new PeerProtocolException("rank " + peer + " (shared memory): " + why, null));
        }
    }
}
