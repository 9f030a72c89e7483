package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;
import io.reactivecollectives.transport.shm.ShmLinks;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A mesh's table of links, one per peer: the stripes of each while they come up ({@link PeerStripes}),
 * the link once all are there ({@link PeerLink}), and the shared-memory links of the host's ranks;
 * what is done to every connection at once (pause, resume, close) is done here.
 */
final class MeshLinks {

    private final AtomicReferenceArray<PeerLink> links;
    private final AtomicReferenceArray<PeerStripes> stripes;
    private volatile ShmLinks shm;

    MeshLinks(int world) {
        this.links = new AtomicReferenceArray<>(world);
        this.stripes = new AtomicReferenceArray<>(world);
    }

    int world() {
        return links.length();
    }

    /** The link to {@code peer}, or null (itself, out of range, not connected). */
    PeerLink link(int peer) {
        return peer >= 0 && peer < links.length() ? links.get(peer) : null;
    }

    /** Sets the link to {@code peer}; false when it had one. */
    boolean put(int peer, PeerLink link) {
        return links.compareAndSet(peer, null, link);
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
        if (l == null) {
            return "none";
        }
        return l.viaSharedMemory() ? "shm" : MeshSockets.isLocal(l.channel()) ? "unix" : "tcp";
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
        for (int p = 0; p < links.length(); p++) {
            PeerLink l = links.get(p);
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
            if (s != null && (!onlyUnlinked || links.get(p) == null)) {
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
