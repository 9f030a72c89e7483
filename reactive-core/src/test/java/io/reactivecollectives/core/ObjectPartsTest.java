package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pieces under the object collectives and keyed maps, one process: blobs, headers, sketches, merges. */
class ObjectPartsTest {

    @Test
    void aBlobWrittenInOddChunksReadsBackByStreamRangeAndArray() throws Exception {
        byte[] data = new byte[3 * ObjectBlob.PIECE + 12345];
        new Random(1).nextBytes(data);
        ObjectBlob blob = ObjectBlob.empty();
        try (OutputStream out = blob.writer(Long.MAX_VALUE)) {
            int at = 0;
            Random r = new Random(2);
            while (at < data.length) {
                int n = Math.min(data.length - at, 1 + r.nextInt(300_000));
                out.write(data, at, n);
                at += n;
            }
        }
        assertEquals(data.length, blob.length());
        assertArrayEquals(data, blob.toArray());
        try (InputStream in = blob.reader()) {
            assertEquals(data.length, in.available());
            assertArrayEquals(data, in.readAllBytes());
        }
        ByteBuf range = Unpooled.buffer(ObjectBlob.PIECE + 30).writeZero(ObjectBlob.PIECE + 30);
        blob.copyTo(range, 3, ObjectBlob.PIECE - 5, ObjectBlob.PIECE + 10);
        byte[] want = new byte[ObjectBlob.PIECE + 10];
        System.arraycopy(data, ObjectBlob.PIECE - 5, want, 0, want.length);
        byte[] got = new byte[want.length];
        range.getBytes(3, got);
        assertArrayEquals(want, got);
        blob.copyTo(range, 0, data.length - 7, 20);   // past the end: the rest of the block is zeros
        byte[] tail = new byte[20];
        range.getBytes(0, tail);
        byte[] wantTail = new byte[20];
        System.arraycopy(data, data.length - 7, wantTail, 0, 7);
        assertArrayEquals(wantTail, tail);
    }

    @Test
    void aBlobOfKnownLengthIsOneArrayHandedOverWhole() throws Exception {
        byte[] data = new byte[5000];
        new Random(3).nextBytes(data);
        ObjectBlob blob = ObjectBlob.ofLength(data.length);
        ByteBuf src = Unpooled.wrappedBuffer(data);
        blob.copyFrom(src, 0, 0, 1000);
        blob.copyFrom(src, 1000, 1000, 9000);   // a block longer than what is left: only the blob's bytes
        byte[] got = blob.reader().readAllBytes();
        assertArrayEquals(data, got);
        assertSame(got, blob.reader().readAllBytes(), "the one array, not a copy");
        assertEquals(0, ObjectBlob.ofLength(0).reader().readAllBytes().length);
        byte[] lent = blob.reader().readAllBytes();
        byte[] back = ObjectBlob.lent(lent).reader().readAllBytes();
        assertArrayEquals(lent, back);
        assertTrue(back != lent, "a caller's array is read, never handed on as a result");
        assertEquals(ObjectHeader.Status.OK, ObjectCoding.encode(Codec.bytes(), lent, data.length).status());
        assertEquals(ObjectHeader.Status.OVER_LIMIT, ObjectCoding.encode(Codec.bytes(), lent, data.length - 1).status());
    }

    @Test
    void aWriterStopsAtItsLimitKeepingNothingPastIt() {
        ObjectBlob blob = ObjectBlob.empty();
        OutputStream out = blob.writer(100);
        assertThrows(ObjectBlob.LimitExceeded.class, () -> out.write(new byte[101], 0, 101));
        assertEquals(0, blob.length());
        ObjectCoding.Encoded e = ObjectCoding.encode(Codec.bytes(), new byte[200], 100);
        assertEquals(ObjectHeader.Status.OVER_LIMIT, e.status());
        assertNull(e.blob());
        ObjectCoding.Encoded ok = ObjectCoding.encode(Codec.json(Object.class), List.of(1, "a"), 100);
        assertEquals(ObjectHeader.Status.OK, ok.status());
        assertEquals("[1,\"a\"]", new String(ok.blob().toArray(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aHeaderReadsBackAsWrittenAndANonHeaderReadsAsNull() {
        ObjectHeader.Fields f = ObjectHeader.Fields.of(ObjectOp.SCATTER, ObjectHeader.Status.ENCODE_FAILED, 2, 4, 77,
                "json:java.util.Map<java.lang.String,java.lang.Long>", 123456789L, 99, 1L << 30, 16 << 20, 0,
                "IllegalStateException: é".repeat(20));
        ByteBuf buf = Unpooled.buffer(ObjectHeader.BYTES + 16);
        buf.writeZero(ObjectHeader.BYTES + 16);
        ObjectHeader.write(buf, 16, f);
        ObjectHeader.Fields g = ObjectHeader.read(buf, 16);
        assertEquals(f.op(), g.op());
        assertEquals(f.status(), g.status());
        assertEquals(f.codecHash(), g.codecHash());
        assertEquals(f.codecId(), g.codecId());
        assertEquals(List.of(2, 4, 77L, 123456789L, 99L, 1L << 30, 16 << 20, 0),
                List.of(g.root(), g.worldSize(), g.sequence(), g.length(), g.largest(), g.limit(), g.roundBytes(), g.firstBytes()));
        assertTrue(f.detail().startsWith(g.detail()) && g.detail().length() > 100, "the detail, cut whole characters: " + g.detail());
        assertNull(ObjectHeader.read(Unpooled.buffer(ObjectHeader.BYTES).writeZero(ObjectHeader.BYTES), 0));
        buf.release();
    }

    @Test
    void theSketchEstimatesUnionsWithinAFewPercent() {
        for (int n : new int[]{0, 10, 1000, 100_000, 1_000_000}) {
            KeySketch a = new KeySketch();
            KeySketch b = new KeySketch();
            for (long k = 0; k < n; k++) {
                a.add(KeySketch.mix(k));
                b.add(KeySketch.mix(k + n / 2));   // half overlapping
            }
            a.merge(b);
            double want = n + n / 2;
            assertEquals(want, a.estimate(), Math.max(1, want * 0.06), "union of " + n + " and " + n + " half shared");
        }
    }

    @Test
    void autoPicksPartitionedOnlyWhenKeysRepeatEnough() {
        assertEquals(KeyedAlgorithm.GATHER_MERGE, KeyedReduce.choose(KeyedAlgorithm.AUTO, 4, 4_000_000, 3_700_000));
        assertEquals(KeyedAlgorithm.PARTITIONED, KeyedReduce.choose(KeyedAlgorithm.AUTO, 4, 4_000_000, 1_000_000));
        assertEquals(KeyedAlgorithm.GATHER_MERGE, KeyedReduce.choose(KeyedAlgorithm.AUTO, 1, 100, 1));
        assertEquals(KeyedAlgorithm.PARTITIONED, KeyedReduce.choose(KeyedAlgorithm.PARTITIONED, 4, 10, 10));
    }

    @Test
    void keyedDoublesSortRejectDuplicatesAndMergeInRunOrder() {
        KeyedDoubles k = KeyedDoubles.of(new long[]{5, -1, 3}, new double[]{0.5, 1, 2});
        assertArrayEquals(new long[]{-1, 3, 5}, k.keys());
        assertArrayEquals(new double[]{1, 2, 0.5}, k.values());
        assertEquals(2.0, k.get(3, -9));
        assertEquals(-9.0, k.get(4, -9));
        assertThrows(IllegalArgumentException.class, () -> KeyedDoubles.of(new long[]{1, 1}, new double[]{1, 2}));
        assertThrows(IllegalArgumentException.class, () -> KeyedDoubles.of(new long[]{1}, new double[]{1, 2}));
        Random r = new Random(4);
        long[] big = new long[100_000];
        double[] vals = new double[big.length];
        for (int i = 0; i < big.length; i++) {
            big[i] = r.nextLong();
            vals[i] = big[i] % 1000;
        }
        KeyedDoubles s = KeyedDoubles.of(big, vals);
        for (int i = 0; i < s.size(); i++) {
            assertTrue(i == 0 || s.key(i - 1) < s.key(i));
            assertEquals(s.key(i) % 1000, s.value(i), "values move with their keys");
        }
        List<long[]> ks = new ArrayList<>(List.of(new long[]{1, 4}, new long[]{1, 2, 4}, new long[]{4}));
        List<double[]> vs = new ArrayList<>(List.of(new double[]{1e16, 3}, new double[]{1, 5, 7}, new double[]{-1e16}));
        KeyedDoubles m = KeyedMerge.merge(ks, vs, ReduceOp.SUM);
        assertArrayEquals(new long[]{1, 2, 4}, m.keys());
        // run order: (1e16 + 1) loses the 1 in doubles, as rank order would on every rank
        assertArrayEquals(new double[]{1e16 + 1, 5, 3 + 7 - 1e16}, m.values());
        assertArrayEquals(new double[]{1, 5, 3}, KeyedMerge.merge(List.of(new long[]{1, 2}, new long[]{1, 4}),
                List.of(new double[]{1, 5}, new double[]{3, 3}), ReduceOp.MIN).values());
    }
}
