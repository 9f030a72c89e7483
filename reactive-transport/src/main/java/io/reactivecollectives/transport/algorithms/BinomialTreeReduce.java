package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Binomial-tree reduce to a root: in rank order relative to the root, a rank reduces what its
 * children (at distances 1, 2, 4, ... while its own bit is clear) send into its tensor, then sends
 * the partial result to its parent. Segmented and pipelined like the ring, so large tensors stream.
 * Non-root ranks' tensors hold partial results afterwards.
 */
public final class BinomialTreeReduce {

    private BinomialTreeReduce() {
    }

    /** Reduces every rank's {@code tensor} into {@code root}'s. */
    public static Mono<Void> run(Peers p, Tensor tensor, int root, ReduceOp op) {
        int n = p.size();
        long numel = tensor.numel();
        if (n == 1) {
            return Mono.empty();
        }
        if (numel == 0) {
            return EmptyExchange.run(p);   // the ranks' element counts still meet
        }
        DType dtype = tensor.dtype();
        int es = dtype.byteSize();
        ByteBuf buf = tensor.buffer();
        SegmentPlan plan = SegmentPlan.group(p, numel * es, dtype);
        int segElems = plan.segmentElements();
        int lanes = plan.count();
        int vr = Math.floorMod(p.rank() - root, n);
        return Lanes.all(lanes, p.pipelineDepth(), l -> {
            long start = (long) l * segElems;
            int count = (int) Math.min(segElems, numel - start);
            int index = (int) (start * es);
            Mono<Void> chain = Mono.empty();
            int step = 0;
            for (int mask = 1; mask < n; mask <<= 1, step++) {
                if ((vr & mask) == 0) {
                    int child = vr | mask;
                    if (child < n) {
                        int src = (child + root) % n;
                        chain = chain.then(Transfers.receiveReduce(p, src, step, l, op, dtype, buf, index, count));
                    }
                } else {
                    int dst = ((vr & ~mask) + root) % n;
                    chain = chain.then(Transfers.send(p, dst, step, l, buf, index, count * es));
                    break;
                }
            }
            return chain;
        });
    }
}
