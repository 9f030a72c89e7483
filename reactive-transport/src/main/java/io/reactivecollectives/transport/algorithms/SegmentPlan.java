package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.DType;

/**
 * How a tensor (or one block of it) is cut into pipelined segments: the one place that decides
 * segment sizes for every algorithm. A plan is an immutable value: the elements per full segment
 * (aligned to the element size, at least one), the bytes per full segment, and the number of
 * segments (lanes), at least one even for an empty payload so that both sides of a transfer count
 * the same segments. Only the last segment may be shorter.
 *
 * <p>There are three rules, one factory each; every factory comes with a byte-granular variant (no
 * dtype: element size 1) for algorithms that move raw bytes:
 * <ul>
 *   <li>{@link #pipelined}: ring and chain pipelines, segments sized to fill the pipeline;</li>
 *   <li>{@link #large}: tree and recursive-doubling rounds, segments of at least 1 MiB;</li>
 *   <li>{@link #group}: the group's tuned segment size as is.</li>
 * </ul>
 * For the measurements behind these rules see {@code perf/RESULTS.md}.
 */
public final class SegmentPlan {

    /** The floor of {@link #pipelined} segments: 256 KiB. */
    static final int PIPELINE_FLOOR_BYTES = 256 * 1024;

    /** The floor of {@link #large} segments: 1 MiB. */
    static final int LARGE_FLOOR_BYTES = 1 << 20;

    private final int segmentElements;
    private final int elementBytes;
    private final int count;

    private SegmentPlan(int segmentElements, int elementBytes, int count) {
        this.segmentElements = segmentElements;
        this.elementBytes = elementBytes;
        this.count = count;
    }

    /**
     * For a pipeline that sends the same segment through several stages (ring all-reduce, with
     * {@code bytes} the size of one block, and the chain broadcast, with {@code bytes} the tensor):
     * enough segments to fill the pipeline ({@code bytes / depth}) so every stage is busy at once,
     * but not under 256 KiB (per-frame costs dominate below that) nor over the group's segment size.
     */
    public static SegmentPlan pipelined(Peers p, long bytes, DType dtype) {
        return of(bytes, pipelineSegmentBytes(p, bytes), dtype.byteSize());
    }

    /** {@link #pipelined(Peers, long, DType)} cut at byte granularity. */
    public static SegmentPlan pipelined(Peers p, long bytes) {
        return of(bytes, pipelineSegmentBytes(p, bytes), 1);
    }

    /**
     * For tree and recursive-doubling rounds (binomial-tree broadcast, recursive-doubling
     * all-reduce), where every segment costs a full round of {@code log n} latency-bound steps:
     * segments of the group's segment size but at least 1 MiB, so fewer, larger rounds.
     */
    public static SegmentPlan large(Peers p, long bytes, DType dtype) {
        return of(bytes, largeSegmentBytes(p), dtype.byteSize());
    }

    /** {@link #large(Peers, long, DType)} cut at byte granularity. */
    public static SegmentPlan large(Peers p, long bytes) {
        return of(bytes, largeSegmentBytes(p), 1);
    }

    /**
     * The group's tuned segment size as is, for transfers that run side by side rather than as a
     * pipeline of stages (tree reduce, ring reduce-scatter and all-gather, gather, scatter,
     * all-to-all, {@link Segments}).
     */
    public static SegmentPlan group(Peers p, long bytes, DType dtype) {
        return of(bytes, p.segmentBytes(), dtype.byteSize());
    }

    /** {@link #group(Peers, long, DType)} cut at byte granularity. */
    public static SegmentPlan group(Peers p, long bytes) {
        return of(bytes, p.segmentBytes(), 1);
    }

    private static int pipelineSegmentBytes(Peers p, long bytes) {
        long fill = (bytes + p.pipelineDepth() - 1) / p.pipelineDepth();
        return (int) Math.min(p.segmentBytes(), Math.max(PIPELINE_FLOOR_BYTES, fill));
    }

    private static int largeSegmentBytes(Peers p) {
        return Math.max(p.segmentBytes(), LARGE_FLOOR_BYTES);
    }

    /** Aligns {@code segmentBytes} down to whole elements (at least one) and counts the segments of {@code bytes}. */
    private static SegmentPlan of(long bytes, int segmentBytes, int elementBytes) {
        int elements = Math.max(1, segmentBytes / elementBytes);
        long numel = bytes / elementBytes;
        int count = (int) Math.max(1, (numel + elements - 1) / elements);
        return new SegmentPlan(elements, elementBytes, count);
    }

    /** Elements per full segment, at least 1 (equal to {@link #segmentBytes()} for a byte-granular plan). */
    public int segmentElements() {
        return segmentElements;
    }

    /** Bytes per full segment: {@link #segmentElements()} whole elements. */
    public int segmentBytes() {
        return segmentElements * elementBytes;
    }

    /** Bytes per element the segments are aligned to (1 for a byte-granular plan). */
    public int elementBytes() {
        return elementBytes;
    }

    /** Number of segments (lanes), at least 1. */
    public int count() {
        return count;
    }

    /** Byte offset of segment {@code j}. */
    public long offset(int j) {
        return (long) j * segmentBytes();
    }

    /** Bytes of segment {@code j} of a payload of {@code totalBytes}: a full segment, or what is left for the last. */
    public int length(int j, long totalBytes) {
        return (int) Math.max(0, Math.min(segmentBytes(), totalBytes - offset(j)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SegmentPlan s && s.segmentElements == segmentElements && s.elementBytes == elementBytes
                && s.count == count;
    }

    @Override
    public int hashCode() {
        return (segmentElements * 31 + elementBytes) * 31 + count;
    }

    @Override
    public String toString() {
        return "SegmentPlan[" + count + " x " + segmentElements + " elements of " + elementBytes + " bytes]";
    }
}
