package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ByteCopies;
import reactor.core.publisher.Mono;

/**
 * Pipelined chain broadcast (large messages): ranks form a chain starting at the root; the tensor
 * goes as segments, and each rank forwards a segment to the next rank (the received buffer itself,
 * as the socket reads delivered it, without a copy) while copying it into its tensor, with {@link Peers#pipelineDepth()} segments in
 * flight. Time approaches that of one transfer of the tensor, whatever the number of ranks.
 */
public final class PipelinedChainBroadcast {

    private PipelinedChainBroadcast() {
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
        int vr = Math.floorMod(p.rank() - root, n);
        int prev = (vr - 1 + root + n) % n;
        int next = vr + 1 < n ? (vr + 1 + root) % n : -1;
        SegmentPlan plan = SegmentPlan.pipelined(p, bytes);
        int seg = plan.segmentBytes();
        return Lanes.all(plan.count(), p.pipelineDepth(), l -> {
            int index = (int) (l * (long) seg);
            int length = (int) Math.min(seg, bytes - l * (long) seg);
            if (vr == 0) {
                return Transfers.send(p, next, 0, l, buf, index, length);
            }
            // as the socket reads came in (no copy together): copied out piece by piece, forwarded as is
            return p.receiveScattered(prev, 0, l).flatMap(b -> {
                try {
                    if (b.readableBytes() != length) {
                        return Mono.<Void>error(p.protocolError(prev, "rank " + prev + " sent " + b.readableBytes()
                                + " bytes for segment " + l + ", expected " + length
                                + " (do the tensors have the same size on every rank?)"));
                    }
                    ByteCopies.copy(b, b.readerIndex(), buf, index, length);
                    return next < 0 ? Mono.<Void>empty() : p.send(next, 0, l, b.retain());
                } finally {
                    b.release();
                }
            });
        });
    }
}
