package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Binomial-tree broadcast (small messages): in rank order relative to the root, a rank receives
 * from the rank that differs in its lowest set bit, then sends to the ranks at distances of the
 * lower powers of two, largest first; {@code ceil(log2 n)} rounds of latency. Tensors over one
 * segment go as segments in parallel.
 */
public final class BinomialTreeBroadcast {

    private BinomialTreeBroadcast() {
    }

    /** Copies {@code root}'s tensor into {@code tensor} on every rank. */
    public static Mono<Void> run(Peers p, Tensor tensor, int root) {
        int n = p.size();
        long bytes = tensor.nbytes();
        if (n == 1) {
            return Mono.empty();
        }
        if (bytes == 0) {
            return EmptyExchange.run(p);   // the ranks' element counts still meet
        }
        ByteBuf buf = tensor.buffer();
        SegmentPlan plan = SegmentPlan.large(p, bytes);
        int seg = plan.segmentBytes();
        int lanes = plan.count();
        if (lanes == 1) {
            return lane(p, root, buf, 0, 0, (int) bytes);
        }
        return Lanes.all(lanes, p.pipelineDepth(),
                l -> lane(p, root, buf, l, l * (long) seg, (int) Math.min(seg, bytes - l * (long) seg)));
    }

    private static Mono<Void> lane(Peers p, int root, ByteBuf buf, int lane, long start, int length) {
        int n = p.size();
        int vr = Math.floorMod(p.rank() - root, n);
        int index = (int) start;
        Mono<Void> received = null;
        int mask = 1;
        while (mask < n) {
            if ((vr & mask) != 0) {
                int src = (vr - mask + root) % n;
                received = Transfers.receiveCopy(p, src, 0, lane, buf, index, length);
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        List<Mono<Void>> sends = new ArrayList<>();
        while (mask > 0) {
            if (vr + mask < n) {
                int dst = (vr + mask + root) % n;
                sends.add(Transfers.send(p, dst, 0, lane, buf, index, length));
            }
            mask >>= 1;
        }
        // no operator for what is not there: a leaf only receives, a root of two ranks only sends
        Mono<Void> sent = sends.isEmpty() ? null : sends.size() == 1 ? sends.get(0) : Mono.when(sends);
        if (received == null) {
            return sent == null ? Mono.empty() : sent;
        }
        return sent == null ? received : received.then(sent);
    }
}
