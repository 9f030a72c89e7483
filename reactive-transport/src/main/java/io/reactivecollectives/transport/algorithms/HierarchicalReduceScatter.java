package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Two-level reduce-scatter for ranks on several hosts with the same number of ranks on each: first,
 * inside each host, one ring reduce-scatter per host {@code h} of the blocks destined to {@code h}'s
 * ranks (local rank {@code l} ends with the host's partial of the block of {@code h}'s rank
 * {@code l}, in a staging buffer), then a ring reduce-scatter of those partials among the ranks with
 * this rank's local index, one per host. Each host link carries {@code (H - 1) / H} of the input
 * once, against {@code (n - 1) / n} on each crossing edge of the flat ring. Stages run in their own
 * phases ({@link PhasePeers}) over views of the group ({@link MemberPeers}); the staging buffers
 * ({@code H} blocks) are released however the collective ends.
 */
public final class HierarchicalReduceScatter {

    private HierarchicalReduceScatter() {
    }

    /** {@link RingReduceScatter#run}'s contract; the ring where {@code p.topology()} has no two levels. */
    public static Mono<Void> run(Peers p, ReduceOp op, DType dtype, Region[] inputs, Region output) {
        Topology t = p.topology();
        if (!t.multiHostMultiRank() || inputs.length != p.size()) {
            return RingReduceScatter.run(p, op, dtype, inputs, output);
        }
        return Mono.defer(() -> {
            int r = p.rank();
            int mine = t.localIndex(r);
            int[] local = t.members(t.hostOf(r));
            int[] across = t.peersAcrossHosts(r);
            ByteBuf staging = Region.allocate(Math.multiplyExact(t.hosts(), output.length()));
            Region[] partials = new Region[t.hosts()];
            List<Mono<Void>> insideHost = new ArrayList<>();
            for (int h = 0; h < t.hosts(); h++) {
                int[] to = t.members(h);
                Region[] hostInputs = new Region[to.length];
                for (int l = 0; l < to.length; l++) {
                    hostInputs[l] = inputs[to[l]];
                }
                partials[h] = new Region(staging, h * output.length(), inputs[to[mine]].length());
                insideHost.add(RingReduceScatter.run(MemberPeers.of(PhasePeers.of(p, 1 + h), local), op, dtype,
                        hostInputs, partials[h]));
            }
            return Mono.when(insideHost)
                    .then(Mono.defer(() -> RingReduceScatter.run(MemberPeers.of(PhasePeers.of(p, 0), across), op,
                            dtype, partials, output)))
                    .doFinally(s -> staging.release());
        });
    }
}
