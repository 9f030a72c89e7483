package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import reactor.core.publisher.Mono;

/**
 * A view of {@link Peers} as the group of some of its ranks ({@code members}, this rank among
 * them): rank {@code i} of the view is {@code members[i]} of the group. Lets an algorithm written
 * for a whole group run among the ranks of one host, or among one rank per host; combine with
 * {@link PhasePeers} so that runs over different members never take each other's messages.
 */
public final class MemberPeers extends ForwardingPeers {

    private final int[] members;
    private final int self;

    private MemberPeers(Peers p, int[] members, int self) {
        super(p);
        this.members = members;
        this.self = self;
    }

    /** The view of {@code p} as the group of {@code members} (distinct ranks of {@code p}, {@code p.rank()} among them). */
    public static Peers of(Peers p, int[] members) {
        int self = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == p.rank()) {
                self = i;
            }
        }
        if (self < 0) {
            throw new IllegalArgumentException("rank " + p.rank() + " is not among " + java.util.Arrays.toString(members));
        }
        return new MemberPeers(p, members.clone(), self);
    }

    @Override
    public int rank() {
        return self;
    }

    @Override
    public int size() {
        return members.length;
    }

    /** The members as one flat group: algorithms over a view do not look at hosts again. */
    @Override
    public Topology topology() {
        return Topology.singleHost(members.length);
    }

    @Override
    public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
        return p.send(members[peer], step, chunk, payload);
    }

    @Override
    public Mono<Void> sendRange(int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return p.sendRange(members[peer], step, chunk, buf, index, length);
    }

    @Override
    public Mono<ByteBuf> receive(int peer, int step, int chunk) {
        return p.receive(members[peer], step, chunk);
    }

    @Override
    public Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
        return p.receiveScattered(members[peer], step, chunk);
    }

    @Override
    public Mono<ByteBuf> receiveLent(int peer, int step, int chunk) {
        return p.receiveLent(members[peer], step, chunk);
    }

    @Override
    public CollectiveException protocolError(int peer, String detail) {
        return p.protocolError(members[peer], detail);
    }
}
