package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.reactivecollectives.transport.frame.FrameType;
import reactor.core.publisher.Mono;

/**
 * A carried subgroup's link to one member ({@link CarriedGroup}): the mesh's link to it, looked up
 * per frame (a socket link replaced by shared memory is followed), writing the subgroup's group id
 * in each header. Closing it closes the mesh's connection; ending it gracefully ends nothing (the
 * connection is the parent's).
 */
final class CarriedLink implements PeerLink {

    private final int peer;
    private final int meshPeer;
    private final int groupHash;
    private final Mesh mesh;
    private final FrameListener listener;
    /** The mesh's link when this one was made: what reports the failure once the mesh dropped it. */
    private final PeerLink first;

    CarriedLink(int peer, int meshPeer, int groupHash, Mesh mesh, FrameListener listener) {
        this.peer = peer;
        this.meshPeer = meshPeer;
        this.groupHash = groupHash;
        this.mesh = mesh;
        this.listener = listener;
        this.first = mesh.link(meshPeer);
    }

    private PeerLink current() {
        PeerLink l = mesh.link(meshPeer);
        return l != null ? l : first;
    }

    @Override
    public int peer() {
        return peer;
    }

    @Override
    public String transport() {
        return current().transport();
    }

    @Override
    public boolean isActive() {
        return current().isActive();
    }

    @Override
    public FrameListener listener() {
        return listener;
    }

    @Override
    public Future<Void> writeFrame(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                                   long agreementCount, ByteBuf payload) {
        return current().writeFrameAs(groupHash, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    @Override
    public Future<Void> writeFrameAs(int group, FrameType type, long seq, int tag, int step, int chunk,
                                     long agreementWord, long agreementCount, ByteBuf payload) {
        if (group != groupHash) {
            ReferenceCountUtil.safeRelease(payload);
            throw new IllegalArgumentException("a subgroup's link writes its own group's frames only");
        }
        return writeFrame(type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    @Override
    public Throwable writeFailure(Throwable error) {
        return current().writeFailure(error);
    }

    @Override
    public Mono<Void> sendFragments(int tag, long kind, ByteBuf[] fragments) {
        return current().sendFragmentsAs(groupHash, tag, kind, fragments);
    }

    @Override
    public Mono<Void> sendFragmentsAs(int group, int tag, long kind, ByteBuf[] fragments) {
        if (group != groupHash) {
            for (ByteBuf f : fragments) {
                ReferenceCountUtil.safeRelease(f);
            }
            throw new IllegalArgumentException("a subgroup's link writes its own group's frames only");
        }
        return sendFragments(tag, kind, fragments);
    }

    @Override
    public void closeWith(Throwable why) {
        current().closeWith(why);
    }

    /** The connection is the parent's: nothing to end here. */
    @Override
    public Mono<Void> endGracefully() {
        return Mono.empty();
    }

    @Override
    public String toString() {
        return "CarriedLink[subgroup rank " + peer + " = mesh rank " + meshPeer + " over " + current() + "]";
    }
}
