package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.settings.TransportSettings;
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
 * collective's steps ({@link PhasePeers}), over views of the group ({@link MemberPeers}); a large
 * tensor goes as parts, several at a time, so some parts' local stages overlap others' stage
 * between hosts.
 */
public final class HierarchicalAllReduce {

    private HierarchicalAllReduce() {
    }

    /**
     * Bytes per part: a tensor of {@code n} bytes goes as {@code n / PART_BYTES} parts (at most
     * {@link #MAX_PARTS}; one below twice this size), {@link #IN_FLIGHT} at a time, so that some
     * parts' stages inside the hosts overlap others' stage between hosts
     * ({@code rc.hierarchical.partBytes}, default 4 MiB).
     */
    static final long PART_BYTES = Math.max(64 << 10, TransportSettings.HIERARCHICAL_PART_BYTES.get());
    /** Most parts of one tensor. */
    static final int MAX_PARTS = 16;
    /** Parts in flight at once ({@code rc.hierarchical.inflight}, default 4). */
    static final int IN_FLIGHT = Math.max(1, TransportSettings.HIERARCHICAL_INFLIGHT.get());

    /** All-reduces {@code tensor} in place; {@code p.topology()} must be {@link Topology#multiHostMultiRank()}. */
    public static Mono<Void> run(Peers p, Tensor tensor, ReduceOp op) {
        Topology t = p.topology();
        if (!t.multiHostMultiRank()) {
            return RingAllReduce.run(p, tensor, op);
        }
        int parts = (int) Math.min(MAX_PARTS, tensor.nbytes() / PART_BYTES);
        if (parts < 2) {
            return part(p, t, tensor, op, 0);
        }
        long numel = tensor.numel();
        return Lanes.all(parts, IN_FLIGHT, k -> {
            long from = numel * k / parts;
            long to = numel * (k + 1) / parts;
            return part(p, t, tensor.narrow(from, to - from), op, 3 * k);
        });
    }

    /** The three stages over {@code tensor}, in phases {@code phase} to {@code phase + 2}. */
    private static Mono<Void> part(Peers p, Topology t, Tensor tensor, ReduceOp op, int phase) {
        int r = p.rank();
        int[] host = t.members(t.hostOf(r));
        Peers local = MemberPeers.of(PhasePeers.of(p, phase), host);
        Peers cross = MemberPeers.of(PhasePeers.of(p, phase + 1), t.peersAcrossHosts(r));
        Peers gather = MemberPeers.of(PhasePeers.of(p, phase + 2), host);
        long[] block = RingAllReduce.ownedBlock(local.rank(), host.length, tensor.numel());
        return RingAllReduce.reduceScatter(local, tensor, op)
                .then(Mono.defer(() -> block[1] == 0 ? Mono.<Void>empty()
                        : RingAllReduce.run(cross, tensor.narrow(block[0], block[1]), op)))
                .then(RingAllReduce.allGather(gather, tensor));
    }
}
