package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Chunked, pipelined ring all-reduce (gloo's allreduce_ring_chunked): the tensor is cut into one
 * block per rank, each block into segments ({@link SegmentPlan#pipelined}: sized so that a block
 * fills the pipeline). Segment {@code j} of every block forms lane {@code j}; a lane runs reduce-scatter ({@code n - 1} steps: send block
 * {@code r - s} to the right, receive block {@code r - s - 1} from the left and reduce it in place)
 * then all-gather ({@code n - 1} steps: send block {@code r + 1 - s}, receive block {@code r - s}
 * and copy it in place). Each step is one fused send/receive/reduce stage; up to
 * {@link Peers#pipelineDepth()} lanes run at once, so segment {@code k + 1} is on the wire while
 * segment {@code k} is reduced. Bus traffic per rank: {@code 2 (n - 1) / n} of the tensor.
 *
 * <p>Reduces with the combine step of {@code op} (AVG and PREMUL_SUM combine as SUM; their scaling
 * is the caller's).
 */
public final class RingAllReduce {

    private RingAllReduce() {
    }

    /** All-reduces {@code tensor} in place; completes when this rank holds the result. */
    public static Mono<Void> run(Peers p, Tensor tensor, ReduceOp op) {
        return run(p, tensor, op, true, true);
    }

    /**
     * The reduce-scatter half: afterwards this rank holds block {@link #ownedBlock} of the tensor
     * reduced over every rank of {@code p} (the rest is partial).
     */
    public static Mono<Void> reduceScatter(Peers p, Tensor tensor, ReduceOp op) {
        return run(p, tensor, op, true, false);
    }

    /** The all-gather half: every rank's {@link #ownedBlock} goes to every rank. */
    public static Mono<Void> allGather(Peers p, Tensor tensor) {
        return run(p, tensor, ReduceOp.SUM, false, true);
    }

    /** {@code {first element, element count}} of the block {@code rank} of {@code n} holds after {@link #reduceScatter}. */
    public static long[] ownedBlock(int rank, int n, long numel) {
        int b = (rank + 1) % n;
        long base = numel / n;
        long extra = numel % n;
        return new long[] {blockStart(b, base, extra), base + (b < extra ? 1 : 0)};
    }

    private static Mono<Void> run(Peers p, Tensor tensor, ReduceOp op, boolean scatter, boolean gather) {
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
        int r = p.rank();
        long base = numel / n;
        long extra = numel % n;
        long maxBlock = base + (extra > 0 ? 1 : 0);
        SegmentPlan plan = SegmentPlan.pipelined(p, maxBlock * es, dtype);
        int segElems = plan.segmentElements();
        Ring ring = new Ring(p, op, dtype, buf, r, n, base, extra, segElems, scatter ? n - 1 : 0);
        int steps = ring.scatterSteps + (gather ? n - 1 : 0);
        return Lanes.all(plan.count(), p.pipelineDepth(), lane -> new Lane(ring, lane, steps));
    }

    /** What every lane of one ring all-reduce shares. */
    private record Ring(Peers p, ReduceOp op, DType dtype, ByteBuf buf, int r, int n, long base, long extra,
                        int segElems, int scatterSteps) {

        /** Reduce-scatter steps are 0 .. n - 2, all-gather steps n - 1 .. 2n - 3, also for the all-gather half alone. */
        int stepOf(int i) {
            return i < scatterSteps ? i : n - 1 + (i - scatterSteps);
        }
    }

    /** One lane: segment {@code lane} of every block through the ring's steps. */
    private static final class Lane extends Lanes.PairedSteps {
        private final Ring g;
        private final int lane;

        Lane(Ring g, int lane, int steps) {
            super(steps);
            this.g = g;
            this.lane = lane;
        }

        @Override
        Mono<Void> send(int i) {
            int r = g.r;
            int n = g.n;
            int block = i < g.scatterSteps ? Math.floorMod(r - i, n) : Math.floorMod(r + 1 - (i - g.scatterSteps), n);
            return sendSegment(g.p, (r + 1) % n, g.stepOf(i), lane, g.buf, block, g.base, g.extra, g.segElems,
                    g.dtype.byteSize());
        }

        @Override
        Mono<Void> receive(int i) {
            int r = g.r;
            int n = g.n;
            int es = g.dtype.byteSize();
            int block = i < g.scatterSteps ? Math.floorMod(r - i - 1, n) : Math.floorMod(r - (i - g.scatterSteps), n);
            long start = blockStart(block, g.base, g.extra) + (long) lane * g.segElems;
            int count = segCount(block, lane, g.base, g.extra, g.segElems);
            int left = (r - 1 + n) % n;
            return i < g.scatterSteps
                    ? Transfers.receiveReduce(g.p, left, g.stepOf(i), lane, g.op, g.dtype, g.buf, (int) (start * es), count)
                    : Transfers.receiveCopy(g.p, left, g.stepOf(i), lane, g.buf, (int) (start * es), count * es);
        }
    }

    private static Mono<Void> sendSegment(Peers p, int peer, int step, int lane, ByteBuf buf, int block, long base,
                                          long extra, int segElems, int es) {
        long start = blockStart(block, base, extra) + (long) lane * segElems;
        int count = segCount(block, lane, base, extra, segElems);
        return Transfers.send(p, peer, step, lane, buf, (int) (start * es), count * es);
    }

    private static long blockStart(int b, long base, long extra) {
        return b * base + Math.min(b, extra);
    }

    private static int segCount(int block, int lane, long base, long extra, int segElems) {
        long len = base + (block < extra ? 1 : 0);
        long from = (long) lane * segElems;
        return (int) Math.max(0, Math.min(segElems, len - from));
    }
}
