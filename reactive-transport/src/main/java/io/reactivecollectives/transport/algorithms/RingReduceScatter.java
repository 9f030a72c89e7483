package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.kernels.ByteCopies;
import reactor.core.publisher.Mono;

/**
 * Chunked, pipelined ring reduce-scatter (the reduce-scatter half of {@link RingAllReduce}, without
 * touching the inputs): block {@code b} of every rank's input is reduced into rank {@code b}'s
 * output. In {@code n - 1} steps each rank sends the partial sum of block {@code r - s - 1} to its
 * right neighbour and receives the partial sum of block {@code r - s - 2} from its left, adds its
 * own input's block to it (one fused receive-reduce stage) and forwards it at the next step; the
 * last step's block is its own, reduced straight into the output. Partial sums live in two
 * segment-sized buffers per lane (ping-pong), so extra memory is {@code 2 x segment x depth},
 * whatever the tensor's size; the inputs are only read. Blocks are cut into segments of
 * {@link Peers#segmentBytes()} (lanes), up to {@link Peers#pipelineDepth()} lanes at once. Bus
 * traffic per rank: {@code (n - 1) / n} of the input.
 *
 * <p>Combines with {@code op}'s combine step (AVG and PREMUL_SUM as SUM: their scaling is the
 * caller's, as for {@link RingAllReduce}).
 */
public final class RingReduceScatter {

    private RingReduceScatter() {
    }

    /**
     * Reduces {@code inputs[b]} (one region per rank, {@code count} elements of {@code dtype} each)
     * across ranks into {@code output} on rank {@code b}. Completes when this rank's output holds
     * the reduction.
     */
    public static Mono<Void> run(Peers p, ReduceOp op, DType dtype, Region[] inputs, Region output) {
        int n = p.size();
        int es = dtype.byteSize();
        int count = output.length() / es;
        if (inputs.length != n) {
            return Mono.error(new IllegalArgumentException(p.op() + ": " + inputs.length + " blocks for " + n + " ranks"));
        }
        for (Region in : inputs) {
            if (in.length() != output.length()) {
                return Mono.error(new IllegalArgumentException(p.op() + ": input blocks of " + in.length()
                        + " bytes for an output of " + output.length()));
            }
        }
        int r = p.rank();
        if (n == 1 || count == 0) {
            return Mono.fromRunnable(() -> output.copyFrom(inputs[r]));
        }
        int right = (r + 1) % n;
        int left = (r - 1 + n) % n;
        SegmentPlan plan = SegmentPlan.group(p, (long) count * es, dtype);
        int segElems = plan.segmentElements();
        int lanes = plan.count();
        return Lanes.all(lanes, p.pipelineDepth(), lane -> {
            int from = lane * segElems;
            int len = Math.min(segElems, count - from);
            return Mono.usingWhen(
                    Mono.fromCallable(() -> new ByteBuf[] {
                            Region.allocate(len * es),
                            Region.allocate(len * es)}),
                    tmp -> lane(p, op, dtype, inputs, output, lane, from * es, len, tmp, right, left),
                    tmp -> Mono.fromRunnable(() -> {
                        tmp[0].release();
                        tmp[1].release();
                    }));
        });
    }

    private static Mono<Void> lane(Peers p, ReduceOp op, DType dtype, Region[] inputs, Region output, int lane,
                                   int byteFrom, int len, ByteBuf[] tmp, int right, int left) {
        int n = p.size();
        int r = p.rank();
        int es = dtype.byteSize();
        int bytes = len * es;
        Mono<Void> chain = Mono.empty();
        for (int s = 0; s < n - 1; s++) {
            int step = s;
            // what goes right: my input's block r-1 at step 0, else the partial sum received last step
            Mono<Void> send;
            if (s == 0) {
                Region src = inputs[Math.floorMod(r - 1, n)];
                send = Transfers.send(p, right, step, lane, src.buf(), src.index() + byteFrom, bytes);
            } else {
                send = Transfers.send(p, right, step, lane, tmp[(s - 1) % 2], 0, bytes);
            }
            int block = Math.floorMod(r - s - 2, n);
            Region own = inputs[block];
            Mono<Void> receive;
            if (s == n - 2) {
                receive = Mono.defer(() -> {
                    ByteCopies.copy(own.buf(), own.index() + byteFrom, output.buf(), output.index() + byteFrom, bytes);
                    return Transfers.receiveReduce(p, left, step, lane, op, dtype, output.buf(),
                            output.index() + byteFrom, len);
                });
            } else {
                ByteBuf acc = tmp[s % 2];
                receive = Mono.defer(() -> {
                    ByteCopies.copy(own.buf(), own.index() + byteFrom, acc, 0, bytes);
                    return Transfers.receiveReduce(p, left, step, lane, op, dtype, acc, 0, len);
                });
            }
            chain = chain.then(Mono.when(send, receive));
        }
        return chain;
    }
}
