package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Mono;

/**
 * Moves a whole {@link Region} between two ranks as frames of at most
 * {@link Peers#segmentBytes()} bytes: segment {@code j} goes as chunk {@code j} of the given step,
 * always at least one (possibly empty) segment, so both sides count the same segments from the same
 * length and a peer with a different length is caught by the receive's length check. Up to
 * {@link Peers#pipelineDepth()} segments are in flight at once.
 */
public final class Segments {

    private Segments() {
    }

    /** Number of segments of a region of {@code length} bytes. */
    public static int count(Peers p, long length) {
        return SegmentPlan.group(p, length).count();
    }

    /** Sends {@code src} to {@code peer} as segments of {@code step} (zero-copy slices). */
    public static Mono<Void> send(Peers p, int peer, int step, Region src) {
        SegmentPlan plan = SegmentPlan.group(p, src.length());
        int seg = plan.segmentBytes();
        int k = plan.count();
        if (k == 1) {
            return Transfers.send(p, peer, step, 0, src.buf(), src.index(), src.length());
        }
        return Lanes.all(k, p.pipelineDepth(), j -> Transfers.send(p, peer, step, j, src.buf(), src.index() + j * seg,
                Math.min(seg, src.length() - j * seg)));
    }

    /** Receives {@code dst.length()} bytes from {@code peer} as segments of {@code step}, copied into {@code dst}. */
    public static Mono<Void> receive(Peers p, int peer, int step, Region dst) {
        SegmentPlan plan = SegmentPlan.group(p, dst.length());
        int seg = plan.segmentBytes();
        int k = plan.count();
        if (k == 1) {
            return Transfers.receiveCopy(p, peer, step, 0, dst.buf(), dst.index(), dst.length());
        }
        return Lanes.all(k, p.pipelineDepth(), j -> Transfers.receiveCopy(p, peer, step, j, dst.buf(), dst.index() + j * seg,
                Math.min(seg, dst.length() - j * seg)));
    }
}
