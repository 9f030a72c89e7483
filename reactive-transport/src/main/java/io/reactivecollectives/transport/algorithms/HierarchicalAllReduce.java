package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Two-level all-reduce for ranks spread over several hosts with the same number {@code L} of ranks
 * on each (Horovod's hierarchical all-reduce, NCCL's and MPICH's SMP-aware schedules):
 * <ol>
 *   <li>reduce-scatter among the ranks of each host (the ring's first half, over the fast local
 *       links): local rank {@code l} ends with block {@code b(l)} reduced over its host;</li>
 *   <li>all-reduce of that block among the ranks with the same local index, one per host (the
 *       pipelined ring): it is now reduced over every rank;</li>
 *   <li>all-gather among the ranks of each host (the ring's second half).</li>
 * </ol>
 * Each host link carries {@code 2 (H - 1) / H} of the tensor per direction, against
 * {@code 2 (n - 1) / n} for each ring edge that crosses hosts in the flat ring: at 2 hosts of 2
 * ranks, 1 against 1.5. The three stages run one after the other, each in its own phase of the
 * collective's steps ({@link PhasePeers}), over views of the group ({@link MemberPeers}).
 */
public final class HierarchicalAllReduce {

    private HierarchicalAllReduce() {
    }

    /** All-reduces {@code tensor} in place; {@code p.topology()} must be {@link Topology#multiHostMultiRank()}. */
    public static Mono<Void> run(Peers p, Tensor tensor, ReduceOp op) {
        Topology t = p.topology();
        if (!t.multiHostMultiRank()) {
            return RingAllReduce.run(p, tensor, op);
        }
        int r = p.rank();
        int[] host = t.members(t.hostOf(r));
        Peers local = MemberPeers.of(PhasePeers.of(p, 0), host);
        Peers cross = MemberPeers.of(PhasePeers.of(p, 1), t.peersAcrossHosts(r));
        Peers gather = MemberPeers.of(PhasePeers.of(p, 2), host);
        long[] block = RingAllReduce.ownedBlock(local.rank(), host.length, tensor.numel());
        return RingAllReduce.reduceScatter(local, tensor, op)
                .then(Mono.defer(() -> block[1] == 0 ? Mono.<Void>empty()
                        : RingAllReduce.run(cross, tensor.narrow(block[0], block[1]), op)))
                .then(RingAllReduce.allGather(gather, tensor));
    }
}
