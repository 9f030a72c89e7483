package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Mono;

/**
 * Chunked, pipelined ring all-gather (gloo's allgather ring, the all-gather half of
 * {@link RingAllReduce}): block {@code b} is rank {@code b}'s contribution; in {@code n - 1} steps
 * each rank sends block {@code r - s} to its right neighbour and receives block {@code r - s - 1}
 * from its left, straight into place (zero-copy both ways). Blocks are cut into segments of
 * {@link Peers#segmentBytes()}; segment {@code j} of every block forms lane {@code j}, and up to
 * {@link Peers#pipelineDepth()} lanes run at once. Bus traffic per rank: {@code (n - 1) / n} of the
 * output.
 *
 * <p>Blocks may differ in length (an all-gather-v) as long as every rank agrees on every block's
 * length; a peer that sends a segment of another length fails the collective with its
 * {@link Peers#protocolError}.
 */
public final class RingAllGather {

    private RingAllGather() {
    }

    /**
     * Fills every block of {@code blocks} (one per rank) from its owner; {@code blocks[rank]} must
     * hold this rank's data on entry and is only read. Completes when every block is filled here.
     */
    public static Mono<Void> run(Peers p, Region[] blocks) {
        int n = p.size();
        if (blocks.length != n) {
            return Mono.error(new IllegalArgumentException(p.op() + ": " + blocks.length + " blocks for " + n + " ranks"));
        }
        long max = 0;
        for (Region b : blocks) {
            max = Math.max(max, b.length());
        }
        if (n == 1 || max == 0) {
            return Mono.empty();
        }
        SegmentPlan plan = SegmentPlan.group(p, max);
        int seg = plan.segmentBytes();
        int lanes = plan.count();
        int r = p.rank();
        int right = (r + 1) % n;
        int left = (r - 1 + n) % n;
        return Lanes.all(lanes, p.pipelineDepth(), lane -> {
            Mono<Void> chain = Mono.empty();
            for (int s = 0; s < n - 1; s++) {
                Region out = segment(blocks[Math.floorMod(r - s, n)], lane, seg);
                Region in = segment(blocks[Math.floorMod(r - s - 1, n)], lane, seg);
                int step = s;
                chain = chain.then(Mono.when(
                        Transfers.send(p, right, step, lane, out.buf(), out.index(), out.length()),
                        Transfers.receiveCopy(p, left, step, lane, in.buf(), in.index(), in.length())));
            }
            return chain;
        });
    }

    /** Segment {@code lane} of a block (empty past its end). */
    static Region segment(Region block, int lane, int seg) {
        long from = (long) lane * seg;
        if (from >= block.length()) {
            return block.sub(block.length(), 0);
        }
        return block.sub((int) from, (int) Math.min(seg, block.length() - from));
    }
}
