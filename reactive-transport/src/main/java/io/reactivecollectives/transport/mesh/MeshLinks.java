package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;
import io.reactivecollectives.transport.shm.ShmLinks;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A mesh's table of links, one per peer: the stripes of each while they come up ({@link PeerStripes}),
 * the socket link once all are there ({@link SocketLink}), the link frames go through (that socket
 * link, or the {@link SharedMemoryLink} that replaced it), and the shared-memory links of the host's
 * ranks; what is done to every connection at once (pause, resume, close) is done here.
 */
final class MeshLinks {

    /** The link each peer's frames go through. */
    private final AtomicReferenceArray<PeerLink> links;
    /** Each peer's socket connection (open under a shared-memory link too). */
    private final AtomicReferenceArray<SocketLink> sockets;
    private final AtomicReferenceArray<PeerStripes> stripes;
    private volatile ShmLinks shm;
    /** Pauses of reading held (the group's and each carried subgroup's back-pressure); guarded by this. */
    private int pauses;

    MeshLinks(int world) {
        this.links = new AtomicReferenceArray<>(world);
        this.sockets = new AtomicReferenceArray<>(world);
        this.stripes = new AtomicReferenceArray<>(world);
    }

    int world() {
        return links.length();
    }

    /** The link to {@code peer}, or null (itself, out of range, not connected). */
    PeerLink link(int peer) {
        return peer >= 0 && peer < links.length() ? links.get(peer) : null;
    }

    /**
     * The live table of the links frames go through, indexed by peer (null: itself, not connected):
     * the socket links, and the shared-memory links that replace them. Read only.
     */
    AtomicReferenceArray<PeerLink> table() {
        return links;
    }

    /** The socket link to {@code peer}, or null (itself, out of range, not connected). */
    SocketLink socket(int peer) {
        return peer >= 0 && peer < sockets.length() ? sockets.get(peer) : null;
    }

    /** Sets the socket link to {@code peer}, through which its frames go; false when it had one. */
    boolean put(int peer, SocketLink link) {
        if (!sockets.compareAndSet(peer, null, link)) {
            return false;
        }
        links.set(peer, link);
        return true;
    }

    /**
     * Takes {@code link} out of the tables (a link closed because it sat idle, see {@link MeshIdle}):
     * the next frame to its peer dials anew, and a connection the peer dials is accepted; the old
     * connection still delivers what it carries until it ends.
     *
     * @return false when {@code link} is not the peer's link (any more)
     */
    boolean detach(SocketLink link) {
        int peer = link.peer();
        if (!sockets.compareAndSet(peer, link, null)) {
            return false;
        }
        links.compareAndSet(peer, link, null);
        stripes.compareAndSet(peer, link.stripesOf(), null);
        return true;
    }

    /** Frames to {@code link}'s peer go through it from now on, instead of the socket link underneath. */
    void replace(SharedMemoryLink link) {
        links.compareAndSet(link.peer(), link.socket(), link);
    }

    /** The stripes to {@code peer}, made with {@code make} by the first one's handshake. */
    PeerStripes stripesOf(int peer, java.util.function.Supplier<PeerStripes> make) {
        if (stripes.get(peer) == null) {
            stripes.compareAndSet(peer, null, make.get());
        }
        return stripes.get(peer);
    }

    /** Whether connection {@code stripe} of {@code count} to {@code peer} is connected already (or the count differs). */
    boolean stripeTaken(int peer, int stripe, int count) {
        PeerStripes s = stripes.get(peer);
        return s != null && (s.count() != count || s.taken(stripe));
    }

    ShmLinks sharedMemory() {
        return shm;
    }

    void useSharedMemory(ShmLinks links) {
        shm = links;
    }

    /** {@code "shm"}, {@code "unix"}, {@code "tcp"} or {@code "none"}: how {@code peer} is reached. */
    String transportTo(int peer) {
        PeerLink l = link(peer);
        return l == null ? "none" : l.transport();
    }

    /** Holds one more pause of reading; the first stops every connection's ({@link #reading}). */
    synchronized void pause() {
        if (pauses++ == 0) {
            reading(false);
        }
    }

    /** Lets one pause go; the last resumes every connection's reading. */
    synchronized void resume() {
        if (pauses > 0 && --pauses == 0) {
            reading(true);
        }
    }

    /** Stops or resumes reading every connection, every stripe, and the shared memory. */
    void reading(boolean on) {
        ShmLinks ring = shm;
        if (ring != null) {
            if (on) {
                ring.resume();
            } else {
                ring.pause();
            }
        }
        for (int p = 0; p < sockets.length(); p++) {
            SocketLink l = sockets.get(p);
            for (int s = 0; l != null && s < l.stripes(); s++) {
                Channel c = l.channel(s);
                c.config().setAutoRead(on);
                if (on) {
                    c.read();
                }
            }
        }
    }

    /** Closes the stripes to every peer, or only to those whose link never came up. */
    void closeStripes(boolean onlyUnlinked) {
        for (int p = 0; p < stripes.length(); p++) {
            PeerStripes s = stripes.get(p);
            if (s != null && (!onlyUnlinked || sockets.get(p) == null)) {
                s.closeWith(PeerClosedException.closedHere(p));
            }
        }
    }

    /** Stops the shared-memory links, failing their queued writes with {@code why}. */
    void closeSharedMemory(Throwable why) {
        ShmLinks s = shm;
        if (s != null) {
            s.close(why);
        }
    }
}
