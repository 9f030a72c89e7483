package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Recursive-doubling all-reduce for small tensors, for any world size: with {@code p} the largest
 * power of two not over {@code n} and {@code rem = n - p}, the first {@code 2 rem} ranks pair up
 * (even ranks hand their data to the next odd rank and sit out); the {@code p} remaining ranks
 * exchange whole buffers with partners at distance 1, 2, 4, ... and reduce ({@code log2 p} rounds
 * of latency); finally the odd ranks hand the result back to their even partners. Every rank
 * combines the same two partial results at every level, so all ranks end with identical bits.
 * Large tensors are split into segments exchanged in parallel.
 */
public final class RecursiveDoublingAllReduce {

    private static final int PRE_STEP = 0;
    private static final int POST_STEP = 63;

    private RecursiveDoublingAllReduce() {
    }

    /** All-reduces {@code tensor} in place. */
    public static Mono<Void> run(Peers p, Tensor tensor, ReduceOp op) {
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
        SegmentPlan plan = SegmentPlan.large(p, numel * es, dtype);
        int segElems = plan.segmentElements();
        int lanes = plan.count();
        ByteBuf buf = tensor.buffer();
        if (lanes == 1) {
            return lane(p, op, dtype, buf, 0, 0, (int) numel, es);
        }
        return Lanes.all(lanes, p.pipelineDepth(), l -> lane(p, op, dtype, buf, l, (long) l * segElems,
                (int) Math.min(segElems, numel - (long) l * segElems), es));
    }

    private static Mono<Void> lane(Peers p, ReduceOp op, DType dtype, ByteBuf buf, int lane, long start, int count,
                                   int es) {
        int n = p.size();
        int r = p.rank();
        int pof2 = Integer.highestOneBit(n);
        int rem = n - pof2;
        int index = (int) (start * es);
        int length = count * es;
        Mono<Void> chain = null;   // built without empty or deferred links: each costs latency on small tensors
        int newRank;
        if (r < 2 * rem) {
            if (r % 2 == 0) {
                // hand the data to r + 1, get the result back at the end
                return Transfers.send(p, r + 1, PRE_STEP, lane, buf, index, length)
                        .then(Transfers.receiveCopy(p, r + 1, POST_STEP, lane, buf, index, length));
            }
            chain = Transfers.receiveReduce(p, r - 1, PRE_STEP, lane, op, dtype, buf, index, count);
            newRank = r / 2;
        } else {
            newRank = r - rem;
        }
        int step = 1;
        for (int mask = 1; mask < pof2; mask <<= 1, step++) {
            int partnerNew = newRank ^ mask;
            int partner = partnerNew < rem ? partnerNew * 2 + 1 : partnerNew + rem;
            int s = step;
            Mono<Void> exchange = Transfers.exchangeReduce(p, partner, s, lane, op, dtype, buf, index, count);
            chain = chain == null ? exchange : chain.then(exchange);
        }
        if (r < 2 * rem) {
            chain = chain.then(Transfers.send(p, r - 1, POST_STEP, lane, buf, index, length));
        }
        return chain == null ? Mono.empty() : chain;
    }
}
