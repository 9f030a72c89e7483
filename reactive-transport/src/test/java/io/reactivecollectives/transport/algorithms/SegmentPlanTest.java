package io.reactivecollectives.transport.algorithms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.DType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Pins the segment sizes every algorithm uses. {@code segment-plans-before.csv} was written by the
 * per-algorithm rules as they stood before {@link SegmentPlan} existed (ring all-reduce's
 * {@code segmentBytes}, the 1 MiB floors of tree broadcast and recursive doubling,
 * {@code Transfers.segmentElements/lanes}, {@code Segments.count}), for every combination of group
 * segment size, pipeline depth, world size, element count and dtype in it; each row is checked
 * against the plan the algorithm now asks for, so segment sizes and wire traffic are unchanged.
 */
class SegmentPlanTest {

    private static final String TABLE = "segment-plans-before.csv";

    static Peers peers(int segmentBytes, int depth, int n) {
        return new Peers() {
            @Override public int rank() { return 0; }
            @Override public int size() { return n; }
            @Override public String op() { return "test"; }
            @Override public long sequence() { return 0; }
            @Override public int segmentBytes() { return segmentBytes; }
            @Override public int pipelineDepth() { return depth; }
            @Override public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
                throw new UnsupportedOperationException();
            }
            @Override public Mono<ByteBuf> receive(int peer, int step, int chunk) {
                throw new UnsupportedOperationException();
            }
            @Override public CollectiveException protocolError(int peer, String detail) {
                throw new UnsupportedOperationException();
            }
        };
    }

    private static List<String[]> table() throws IOException {
        InputStream in = SegmentPlanTest.class.getResourceAsStream(TABLE);
        assertNotNull(in, TABLE);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return r.lines().skip(1).map(l -> l.split(",")).collect(Collectors.toList());
        }
    }

    @Test
    void everyAlgorithmKeepsTheSegmentsItHadBeforeThePlan() throws IOException {
        List<String[]> rows = table();
        assertEquals(4 * 3 * 3 * 8 * 4, rows.size(), "rows in " + TABLE);
        for (String[] row : rows) {
            int seg = Integer.parseInt(row[0]);
            int depth = Integer.parseInt(row[1]);
            int n = Integer.parseInt(row[2]);
            long numel = Long.parseLong(row[3]);
            DType dtype = DType.valueOf(row[4]);
            int es = dtype.byteSize();
            long bytes = numel * es;
            Peers p = peers(seg, depth, n);
            String at = String.join(",", row);
            // RingAllReduce: one block of ceil(numel / n) elements
            long maxBlock = numel / n + (numel % n > 0 ? 1 : 0);
            SegmentPlan ring = SegmentPlan.pipelined(p, maxBlock * es, dtype);
            assertEquals(Integer.parseInt(row[5]), ring.segmentElements(), "ring elements " + at);
            assertEquals(Integer.parseInt(row[6]), ring.count(), "ring lanes " + at);
            // PipelinedChainBroadcast: the whole tensor, bytes
            SegmentPlan chain = SegmentPlan.pipelined(p, bytes);
            assertEquals(Integer.parseInt(row[7]), chain.segmentBytes(), "chain bytes " + at);
            assertEquals(Integer.parseInt(row[8]), chain.count(), "chain lanes " + at);
            // BinomialTreeBroadcast: bytes, 1 MiB floor
            SegmentPlan tree = SegmentPlan.large(p, bytes);
            assertEquals(Integer.parseInt(row[9]), tree.segmentBytes(), "tree broadcast bytes " + at);
            assertEquals(Integer.parseInt(row[10]), tree.count(), "tree broadcast lanes " + at);
            // RecursiveDoublingAllReduce: elements, 1 MiB floor
            SegmentPlan rd = SegmentPlan.large(p, bytes, dtype);
            assertEquals(Integer.parseInt(row[11]), rd.segmentElements(), "recursive doubling elements " + at);
            assertEquals(Integer.parseInt(row[12]), rd.count(), "recursive doubling lanes " + at);
            // BinomialTreeReduce, RingReduceScatter: elements of the group's segment size
            SegmentPlan group = SegmentPlan.group(p, bytes, dtype);
            assertEquals(Integer.parseInt(row[13]), group.segmentElements(), "group elements " + at);
            assertEquals(Integer.parseInt(row[14]), group.count(), "group lanes " + at);
            // Segments (gather, scatter, all-to-all), RingAllGather: bytes of the group's segment size
            SegmentPlan region = SegmentPlan.group(p, bytes);
            assertEquals(seg, region.segmentBytes(), "region bytes " + at);
            assertEquals(Integer.parseInt(row[15]), region.count(), "region segments " + at);
            assertEquals(Integer.parseInt(row[15]), Segments.count(p, bytes), "Segments.count " + at);
        }
    }

    @Test
    void pipelinedFillsThePipelineBetweenTheFloorAndTheGroupSize() {
        Peers p = peers(4 << 20, 4, 2);
        assertEquals(256 * 1024, SegmentPlan.pipelined(p, 1000).segmentBytes());
        assertEquals(1, SegmentPlan.pipelined(p, 1000).count());
        assertEquals(2 << 20, SegmentPlan.pipelined(p, 8 << 20).segmentBytes());
        assertEquals(4, SegmentPlan.pipelined(p, 8 << 20).count());
        assertEquals(4 << 20, SegmentPlan.pipelined(p, 64 << 20).segmentBytes());
        assertEquals(16, SegmentPlan.pipelined(p, 64 << 20).count());
        // a fill that is not a whole number of elements is cut down to whole elements (one lane more)
        SegmentPlan odd = SegmentPlan.pipelined(peers(1 << 20, 4, 3), 2_000_002, DType.FLOAT16);
        assertEquals(250_000, odd.segmentElements());
        assertEquals(500_000, odd.segmentBytes());
        assertEquals(5, odd.count());
    }

    @Test
    void largeHasAOneMebibyteFloor() {
        assertEquals(1 << 20, SegmentPlan.large(peers(64 << 10, 8, 8), 3 << 20).segmentBytes());
        assertEquals(3, SegmentPlan.large(peers(64 << 10, 8, 8), 3 << 20).count());
        assertEquals(4 << 20, SegmentPlan.large(peers(4 << 20, 8, 8), 3 << 20).segmentBytes());
        assertEquals(131_072, SegmentPlan.large(peers(64 << 10, 8, 8), 8, DType.INT64).segmentElements());
    }

    @Test
    void groupUsesTheGroupSegmentSizeAndAtLeastOneSegment() {
        Peers p = peers(64 << 10, 4, 4);
        assertEquals(1, SegmentPlan.group(p, 0).count());
        assertEquals(1, SegmentPlan.group(p, 64 << 10).count());
        assertEquals(2, SegmentPlan.group(p, (64 << 10) + 1).count());
        assertEquals(8192, SegmentPlan.group(p, 1 << 20, DType.FLOAT64).segmentElements());
        assertEquals(16, SegmentPlan.group(p, 1 << 20, DType.FLOAT64).count());
        // a segment size under one element still moves one element per segment
        SegmentPlan tiny = SegmentPlan.group(peers(3, 4, 2), 40, DType.INT64);
        assertEquals(1, tiny.segmentElements());
        assertEquals(8, tiny.segmentBytes());
        assertEquals(5, tiny.count());
    }

    @Test
    void offsetsAndLengthsCoverThePayloadOnce() {
        long total = (3 << 20) + 5;
        SegmentPlan plan = SegmentPlan.group(peers(1 << 20, 4, 2), total);
        assertEquals(4, plan.count());
        long covered = 0;
        for (int j = 0; j < plan.count(); j++) {
            assertEquals(covered, plan.offset(j));
            covered += plan.length(j, total);
        }
        assertEquals(total, covered);
        assertEquals(5, plan.length(3, total));
        assertEquals(0, plan.length(4, total));
    }
}
