package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Broadcast for ranks on several hosts: the pipelined chain, with the chain ordered by host (the
 * root, the other ranks of its host, then each other host's ranks together), so the tensor crosses
 * each host link once in and at most once out, wherever the root is and however the ranks are
 * numbered across hosts (the flat chain follows rank numbers, and with ranks dealt round-robin
 * over hosts every one of its edges crosses hosts).
 */
public final class HierarchicalBroadcast {

    private HierarchicalBroadcast() {
    }

    /** Copies {@code root}'s tensor into {@code tensor} on every rank. */
    public static Mono<Void> run(Peers p, Tensor tensor, int root) {
        Topology t = p.topology();
        if (t.hosts() < 2) {
            return PipelinedChainBroadcast.run(p, tensor, root);
        }
        int[] order = new int[p.size()];
        int k = 0;
        order[k++] = root;
        int rootHost = t.hostOf(root);
        for (int h = 0; h < t.hosts(); h++) {
            int host = (rootHost + h) % t.hosts();
            for (int q : t.members(host)) {
                if (q != root) {
                    order[k++] = q;
                }
            }
        }
        return PipelinedChainBroadcast.run(MemberPeers.of(p, order), tensor, 0);
    }
}
