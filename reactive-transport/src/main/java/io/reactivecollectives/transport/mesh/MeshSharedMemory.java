package io.reactivecollectives.transport.mesh;

import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.shm.ShmLinks;
import io.reactivecollectives.transport.shm.ShmRendezvous;
import io.reactivecollectives.transport.shm.ShmSettings;
import reactor.core.publisher.Mono;


/**
 * Shared memory between the ranks of a mesh that share a host (those it reaches through Unix
 * sockets): once the mesh is connected, the local ranks agree on a segment ({@link ShmRendezvous})
 * and the link to each local peer is replaced by a {@link SharedMemoryLink} over its ring
 * ({@link ShmLinks}), which keeps the socket link open underneath (its close is how a peer's death
 * is seen). Frames from the rings are checked and delivered by {@link SharedMemoryFrames}, straight
 * to the mesh's listener as the sockets' are; the close of a peer's socket is reported only after
 * the frames the peer had written into the ring were delivered ({@link #closesAfterFrames}), and
 * writes still queued for the peer fail after the report, with the connection's cause (so the group
 * records the precise cause first, as with sockets).
 */
final class MeshSharedMemory {

    private MeshSharedMemory() {
    }

    /**
     * Sets up shared memory for {@code mesh}'s local peers, when it has any and they all can; completes
     * (with the mesh's links replaced) either way.
     */
    static Mono<Void> attach(Mesh mesh, Store store) {
        MeshOptions options = mesh.options();
        if (options.role() == MeshRole.LIVENESS || mesh.world() < 2) {
            return Mono.empty();
        }
        if (mesh.connectsOnDemand()) {   // the socket files of ranks not connected yet are looked at
            return Mono.fromCallable(() -> localRanks(mesh))
                    .subscribeOn(io.reactivecollectives.core.BlockingScheduler.get())
                    .flatMap(locals -> attach(mesh, store, locals));
        }
        return attach(mesh, store, localRanks(mesh));
    }

    private static Mono<Void> attach(Mesh mesh, Store store, int[] locals) {
        MeshOptions options = mesh.options();
        if (locals.length < 2) {
            return Mono.empty();
        }
        ShmSettings settings = ShmSettings.fromSystemProperties();
        SharedMemoryFrames frames = new SharedMemoryFrames(mesh.world(), mesh.groupHash(), mesh.describe(),
                mesh.listener());
        // the keys name the leader's process (its published address), so a group formed again under the
        // same id never reads the keys of an earlier one
        String leader = String.valueOf(mesh.addressOf(locals[0]));
        String prefix = options.groupId() + "/" + Integer.toHexString(leader.hashCode());
        return ShmRendezvous.establish(store, prefix, mesh.rank(), locals, settings,
                        options.connectTimeout(), mesh.describe())
                .doOnNext(segment -> {
                    try {
                        ShmLinks links = ShmLinks.open(segment, locals, mesh.world(), mesh.rank(),
                                PooledByteBufAllocator.DEFAULT, FrameCodec.HEADER,
                                FrameCodec.HEADER + options.maxFramePayload(), settings.spinNanosFor(locals.length), frames,
                                "rc-io-shm-" + options.groupId() + "-" + mesh.rank(),
                                mesh::expects);   // on demand: the peers connected at start, alike on both sides
                        java.util.List<SharedMemoryLink> replacing = new java.util.ArrayList<>();
                        for (int peer : locals) {
                            SocketLink socket = mesh.socketLink(peer);
                            if (peer != mesh.rank() && socket != null && mesh.expects(peer)) {
                                SharedMemoryLink link = new SharedMemoryLink(socket, links, mesh.rank(), mesh.groupHash());
                                frames.add(link);
                                replacing.add(link);
                            }
                        }
                        mesh.useSharedMemory(links, replacing);
                        links.startPolling();   // every link in place: frames and closes find theirs
                    } finally {
                        segment.release();  // the links hold it now
                    }
                })
                .then();
    }

    /**
     * What {@code mesh}'s connections report their end to ({@link PeerStripes}): {@code listener},
     * except that the close of a peer reached through shared memory is reported on the reading thread
     * after the frames the peer wrote before it, and then fails the writes still queued for it with the
     * connection's cause. Frames do not pass through it: the links deliver them to {@code listener}
     * straight.
     */
    static LinkEnd closesAfterFrames(Mesh mesh, FrameListener listener) {
        return (peer, cause) -> {
            if (mesh.link(peer) instanceof SharedMemoryLink shm) {
                shm.afterFrames(() -> listener.onClosed(peer, cause));
            } else {
                listener.onClosed(peer, cause);
            }
        };
    }

    /**
     * This rank and the peers it reaches through Unix sockets, ascending. A mesh that connects on
     * demand is connected to a few of them yet: there, the ranks whose published address (rank 0's
     * book holds them all) has a Unix socket on this host, which every local rank finds alike.
     * On a thread that may block (a socket file is looked at).
     */
    private static int[] localRanks(Mesh mesh) {
        if (mesh.connectsOnDemand()) {
            return java.util.stream.IntStream.range(0, mesh.world()).filter(p -> {
                String published = mesh.addressOf(p);
                return p == mesh.rank() || published != null && LocalSockets.sameNodePath(published.split(";")) != null;
            }).toArray();
        }
        return java.util.stream.IntStream.range(0, mesh.world())
                .filter(p -> p == mesh.rank() || "unix".equals(mesh.transportTo(p)))
                .toArray();
    }
}
