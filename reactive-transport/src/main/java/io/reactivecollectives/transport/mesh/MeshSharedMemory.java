package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.MalformedFrameException;
import io.reactivecollectives.transport.shm.ShmFrames;
import io.reactivecollectives.transport.shm.ShmLinks;
import io.reactivecollectives.transport.shm.ShmOutbound;
import io.reactivecollectives.transport.shm.ShmRendezvous;
import io.reactivecollectives.transport.shm.ShmSettings;
import reactor.core.publisher.Mono;


/**
 * Shared memory between the ranks of a mesh that share a host (those it reaches through Unix
 * sockets): once the mesh is connected, the local ranks agree on a segment ({@link ShmRendezvous})
 * and from then on every frame to a local peer goes through its ring ({@link ShmLinks}) instead of
 * the socket. The socket stays open: its close is how a peer's death is seen (a killed process's
 * sockets close at once), and that close is reported only after the frames the peer had written
 * into the ring were delivered; writes still queued for the peer fail after the report, with the
 * connection's cause (so the group records the precise cause first, as with sockets). Frames from the rings are checked as the socket's are
 * ({@link FrameHandler#check}); a corrupt stream closes the peer's connection with a
 * {@link PeerProtocolException}.
 */
final class MeshSharedMemory implements ShmFrames {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MeshSharedMemory.class);

    private final Mesh mesh;

    private MeshSharedMemory(Mesh mesh) {
        this.mesh = mesh;
    }

    /**
     * Sets up shared memory for {@code mesh}'s local peers, when it has any and they all can; completes
     * (with the mesh's links switched over) either way.
     */
    static Mono<Void> attach(Mesh mesh, Store store) {
        MeshOptions options = mesh.options();
        if (options.role() == MeshRole.LIVENESS || mesh.world() < 2) {
            return Mono.empty();
        }
        int[] locals = localRanks(mesh);
        if (locals.length < 2) {
            return Mono.empty();
        }
        ShmSettings settings = ShmSettings.fromSystemProperties();
        MeshSharedMemory frames = new MeshSharedMemory(mesh);
        // the keys name the leader's process (its published address), so a group formed again under the
        // same id never reads the keys of an earlier one
        String leader = String.valueOf(mesh.addressOf(locals[0]));
        String prefix = options.groupId() + "/" + Integer.toHexString(leader.hashCode());
        return ShmRendezvous.establish(store, prefix, mesh.rank(), locals, settings,
                        options.connectTimeout(), mesh.describe())
                .doOnNext(segment -> {
                    try {
                        ShmLinks links = ShmLinks.start(segment, locals, mesh.world(), mesh.rank(),
                                PooledByteBufAllocator.DEFAULT, FrameCodec.HEADER,
                                FrameCodec.HEADER + options.maxFramePayload(), settings.spinNanosFor(locals.length), frames,
                                "rc-io-shm-" + options.groupId() + "-" + mesh.rank());
                        mesh.useSharedMemory(links);
                        for (int peer : locals) {
                            ShmOutbound out = links.outbound(peer);
                            PeerLink link = mesh.link(peer);
                            if (out != null && link != null) {
                                link.useSharedMemory(out);
                            }
                        }
                    } finally {
                        segment.release();  // the links hold it now
                    }
                })
                .then();
    }

    /**
     * What {@code mesh}'s connections report to: {@code listener}, except that the close of a peer
     * reached through shared memory is reported on the reading thread after the frames the peer wrote
     * before it, and then fails the writes still queued for it with the connection's cause.
     */
    static FrameListener closesAfterFrames(Mesh mesh, FrameListener listener) {
        return new FrameListener() {
            @Override
            public void onFrame(int peer, ByteBuf frame) {
                listener.onFrame(peer, frame);
            }

            @Override
            public void onClosed(int peer, Throwable cause) {
                ShmLinks links = mesh.sharedMemory();
                ShmOutbound out = links == null ? null : links.outbound(peer);
                if (out == null) {
                    listener.onClosed(peer, cause);
                    return;
                }
                links.afterDelivered(peer, () -> {
                    listener.onClosed(peer, cause);
                    PeerLink link = mesh.link(peer);
                    out.fail(link != null ? link.writeFailure(new java.nio.channels.ClosedChannelException())
                            : PeerClosedException.closed(peer));
                });
            }
        };
    }

    /** This rank and the peers it reaches through Unix sockets, ascending. */
    private static int[] localRanks(Mesh mesh) {
        return java.util.stream.IntStream.range(0, mesh.world())
                .filter(p -> p == mesh.rank() || "unix".equals(mesh.transportTo(p)))
                .toArray();
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        FrameType type;
        try {
            type = FrameHandler.check(frame, mesh.groupHash(), peer);
        } catch (MalformedFrameException e) {
            frame.release();
            onCorrupt(peer, e.getMessage());
            return;
        }
        if (type == FrameType.HEARTBEAT) {
            frame.release();
            return;
        }
        try {
            mesh.listener().onFrame(peer, frame);
        } catch (RuntimeException | Error e) {
            // what Netty's pipeline does with an exception a handler throws: the connection closes with it
            log.warn("{}: closing the link to rank {} after an unexpected error", mesh.describe(), peer, e);
            mesh.closeLink(peer, new PeerProtocolException("rank " + peer + ": " + e, e));
        }
    }

    @Override
    public void onCorrupt(int peer, String why) {
        mesh.closeLink(peer, new PeerProtocolException("rank " + peer + " (shared memory): " + why, null));
    }
}
