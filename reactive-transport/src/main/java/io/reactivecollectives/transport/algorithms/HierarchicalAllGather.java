package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Two-level all-gather for ranks on several hosts with the same number of ranks on each: first a
 * ring all-gather among the ranks with this rank's local index, one per host (each host link
 * carries {@code (H - 1) / H} of the output once), then, inside each host, one ring all-gather per
 * host of the blocks that came from it. The flat ring sends {@code (n - 1) / n} of the output over
 * each edge that crosses hosts: at 2 hosts of 2 ranks, 3/4 against 1/2. Each stage runs in its own
 * phase of the collective's steps ({@link PhasePeers}) over views of the group ({@link MemberPeers}).
 */
public final class HierarchicalAllGather {

    private HierarchicalAllGather() {
    }

    /** {@link RingAllGather#run}'s contract; the ring where {@code p.topology()} has no two levels. */
    public static Mono<Void> run(Peers p, Region[] blocks) {
        Topology t = p.topology();
        if (!t.multiHostMultiRank() || blocks.length != p.size()) {
            return RingAllGather.run(p, blocks);
        }
        int r = p.rank();
        int[] across = t.peersAcrossHosts(r);
        Region[] acrossBlocks = new Region[across.length];
        for (int h = 0; h < across.length; h++) {
            acrossBlocks[h] = blocks[across[h]];
        }
        int[] local = t.members(t.hostOf(r));
        List<Mono<Void>> insideHost = new ArrayList<>();
        for (int h = 0; h < t.hosts(); h++) {
            int[] from = t.members(h);
            Region[] hostBlocks = new Region[from.length];
            for (int l = 0; l < from.length; l++) {
                hostBlocks[l] = blocks[from[l]];
            }
            insideHost.add(RingAllGather.run(MemberPeers.of(PhasePeers.of(p, 1 + h), local), hostBlocks));
        }
        return RingAllGather.run(MemberPeers.of(PhasePeers.of(p, 0), across), acrossBlocks)
                .then(Mono.when(insideHost));
    }
}
