package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import reactor.core.publisher.Mono;

/**
 * A view of {@link Peers} that forwards everything to the group's: the base of views that change
 * how steps ({@link PhasePeers}) or ranks ({@link MemberPeers}) are addressed, which override only
 * what they change.
 */
abstract class ForwardingPeers implements Peers {

    /** The viewed peers. */
    protected final Peers p;

    ForwardingPeers(Peers p) {
        this.p = p;
    }

    @Override
    public int rank() {
        return p.rank();
    }

    @Override
    public int size() {
        return p.size();
    }

    @Override
    public String op() {
        return p.op();
    }

    @Override
    public long sequence() {
        return p.sequence();
    }

    @Override
    public int segmentBytes() {
        return p.segmentBytes();
    }

    @Override
    public int pipelineDepth() {
        return p.pipelineDepth();
    }

    @Override
    public Topology topology() {
        return p.topology();
    }

    @Override
    public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
        return p.send(peer, step, chunk, payload);
    }

    @Override
    public Mono<ByteBuf> receive(int peer, int step, int chunk) {
        return p.receive(peer, step, chunk);
    }

    @Override
    public Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
        return p.receiveScattered(peer, step, chunk);
    }

    @Override
    public Mono<ByteBuf> receiveLent(int peer, int step, int chunk) {
        return p.receiveLent(peer, step, chunk);
    }

    @Override
    public CollectiveException protocolError(int peer, String detail) {
        return p.protocolError(peer, detail);
    }
}
