package io.reactivecollectives.core.observe;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectiveFingerprintTest {

    private static CollectiveFingerprint fp(OpType op, long seq, DType dt, List<long[]> shapes, int root, ReduceOp r) {
        return new CollectiveFingerprint(op, seq, dt, shapes, root, r);
    }

    private static final CollectiveFingerprint BASE =
            fp(OpType.ALLREDUCE, 41, DType.FLOAT32, List.of(new long[] {1024}), -1, ReduceOp.SUM);

    private static CollectiveFingerprint roundTrip(CollectiveFingerprint f) {
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer();
        try {
            f.encode(buf);
            assertEquals(f.encodedLength(), buf.readableBytes());
            CollectiveFingerprint back = CollectiveFingerprint.decode(buf);
            assertEquals(0, buf.readableBytes());
            return back;
        } finally {
            buf.release();
        }
    }

    @Test
    void roundTripsCompactly() {
        List<CollectiveFingerprint> cases = List.of(BASE,
                fp(OpType.BARRIER, 0, null, List.of(), -1, null),
                fp(OpType.BROADCAST, Long.MAX_VALUE, DType.BFLOAT16, List.of(new long[] {3, 4, 5}), 3, null),
                fp(OpType.REDUCE_SCATTER, 7, DType.INT64, List.of(new long[] {1L << 40}, new long[] {}, new long[] {0}),
                        -1, ReduceOp.premulSum(0.25)),
                fp(OpType.UNKNOWN, -1, DType.BOOL, List.of(new long[] {1}), 0, ReduceOp.BXOR));
        for (CollectiveFingerprint f : cases) {
            CollectiveFingerprint back = roundTrip(f);
            assertEquals(f, back);
            assertEquals("", CollectiveFingerprint.describeDifference(f, back));
            assertEquals(f.hashCode(), back.hashCode());
        }
        assertTrue(BASE.encodedLength() <= 24, "compact: " + BASE.encodedLength() + " bytes");
        assertEquals(0.25, roundTrip(cases.get(3)).reduceOp().factor());
    }

    @Test
    void ofTensorsTakesDtypeAndShapes() {
        Tensor a = Tensor.zeros(DType.FLOAT64, 2, 3);
        Tensor b = Tensor.zeros(DType.FLOAT64, 4);
        try {
            CollectiveFingerprint f = CollectiveFingerprint.of(OpType.ALLREDUCE_COALESCED, 3, List.of(a, b), -1, ReduceOp.MAX);
            assertEquals(DType.FLOAT64, f.dtype());
            assertEquals("allReduceCoalesced(seq=3, float64, [[2, 3], [4]], op=MAX)", f.toString());
            assertEquals("broadcast(seq=1, float64, [[2, 3]], root=2)",
                    CollectiveFingerprint.of(OpType.BROADCAST, 1, a, 2, null).toString());
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void describeDifferenceNamesEachField() {
        assertEquals("op allReduce vs broadcast",
                CollectiveFingerprint.describeDifference(BASE, fp(OpType.BROADCAST, 41, DType.FLOAT32,
                        List.of(new long[] {1024}), -1, ReduceOp.SUM)));
        assertEquals("shapes [[1024]] vs [[512]]",
                CollectiveFingerprint.describeDifference(BASE, fp(OpType.ALLREDUCE, 41, DType.FLOAT32,
                        List.of(new long[] {512}), -1, ReduceOp.SUM)));
        assertEquals("number of tensors 1 vs 2, shapes [[1024]] vs [[1024], [1]]",
                CollectiveFingerprint.describeDifference(BASE, fp(OpType.ALLREDUCE, 41, DType.FLOAT32,
                        List.of(new long[] {1024}, new long[] {1}), -1, ReduceOp.SUM)));
        assertEquals("sequence number 41 vs 42, dtype float32 vs int32, root -1 vs 0, reduce op SUM vs MAX",
                CollectiveFingerprint.describeDifference(BASE, fp(OpType.ALLREDUCE, 42, DType.INT32,
                        List.of(new long[] {1024}), 0, ReduceOp.MAX)));
        assertEquals("reduce op PREMUL_SUM(0.5) vs PREMUL_SUM(2.0)",
                CollectiveFingerprint.describeDifference(
                        fp(OpType.ALLREDUCE, 1, DType.FLOAT32, List.of(), -1, ReduceOp.premulSum(0.5)),
                        fp(OpType.ALLREDUCE, 1, DType.FLOAT32, List.of(), -1, ReduceOp.premulSum(2))));
        assertFalse(BASE.matches(fp(OpType.ALLREDUCE, 41, null, List.of(new long[] {1024}), -1, ReduceOp.SUM)));
    }

    @Test
    void describeMismatchNamesTheOddRanksOut() {
        CollectiveFingerprint odd = fp(OpType.ALLREDUCE, 41, DType.FLOAT32, List.of(new long[] {512}), -1, ReduceOp.SUM);
        assertNull(CollectiveFingerprint.describeMismatch(List.of(BASE, BASE, BASE)));
        assertEquals("ranks 0, 2, 3 have allReduce(seq=41, float32, [[1024]], op=SUM) but rank 1 has "
                        + "allReduce(seq=41, float32, [[512]], op=SUM): shapes [[1024]] vs [[512]]",
                CollectiveFingerprint.describeMismatch(List.of(BASE, odd, BASE, BASE)));
        CollectiveFingerprint bc = fp(OpType.BROADCAST, 41, DType.FLOAT32, List.of(new long[] {1024}), 0, null);
        String three = CollectiveFingerprint.describeMismatch(List.of(BASE, BASE, odd, bc));
        assertTrue(three.startsWith("ranks 0, 1 have allReduce"), three);
        assertTrue(three.contains("but rank 2 has allReduce(seq=41, float32, [[512]], op=SUM): shapes"), three);
        assertTrue(three.contains("but rank 3 has broadcast(seq=41, float32, [[1024]], root=0)")
                && three.contains("op allReduce vs broadcast, root -1 vs 0, reduce op SUM vs null"), three);
    }

    @Test
    void malformedBytesAreRejectedWithoutReadingPastTheEnd() {
        ByteBuf good = ByteBufAllocator.DEFAULT.buffer();
        try {
            fp(OpType.REDUCE, 9, DType.FLOAT16, List.of(new long[] {300, 70000}), 2, ReduceOp.premulSum(3)).encode(good);
            int n = good.readableBytes();
            for (int len = 0; len < n; len++) {
                ByteBuf prefix = good.retainedSlice(0, len);
                try {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> CollectiveFingerprint.decode(prefix), "prefix of " + n);
                    assertTrue(e.getMessage().startsWith("malformed collective fingerprint"), e.getMessage());
                } finally {
                    prefix.release();
                }
            }
            ByteBuf badMagic = good.copy();
            ByteBuf badVersion = good.copy();
            ByteBuf badOp = good.copy();
            try {
                badMagic.setByte(0, 0x47);
                badVersion.setByte(1, 9);
                badOp.setByte(2, 200);
                assertThrows(IllegalArgumentException.class, () -> CollectiveFingerprint.decode(badMagic));
                assertThrows(IllegalArgumentException.class, () -> CollectiveFingerprint.decode(badVersion));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> CollectiveFingerprint.decode(badOp));
                assertTrue(e.getMessage().contains("op index 200"), e.getMessage());
            } finally {
                badMagic.release();
                badVersion.release();
                badOp.release();
            }
        } finally {
            good.release();
        }
        ByteBuf huge = ByteBufAllocator.DEFAULT.buffer();
        try {
            huge.writeByte(CollectiveFingerprint.MAGIC).writeByte(1).writeByte(0).writeLong(0).writeByte(0).writeInt(-1)
                    .writeByte(0);
            huge.writeByte(0xFF).writeByte(0xFF).writeByte(0x7F); // 2 million shapes
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CollectiveFingerprint.decode(huge));
            assertTrue(e.getMessage().contains("more than 65536"), e.getMessage());
        } finally {
            huge.release();
        }
    }

    @Test
    void randomBytesNeverThrowAnythingButIllegalArgument() {
        Random rnd = new Random(42);
        for (int i = 0; i < 5000; i++) {
            byte[] bytes = new byte[rnd.nextInt(40)];
            rnd.nextBytes(bytes);
            if (bytes.length > 2 && rnd.nextBoolean()) {
                bytes[0] = CollectiveFingerprint.MAGIC;
                bytes[1] = CollectiveFingerprint.VERSION;
                bytes[2] = (byte) rnd.nextInt(OpType.values().length);
            }
            ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(bytes.length);
            try {
                buf.writeBytes(bytes);
                try {
                    CollectiveFingerprint.decode(buf);
                } catch (IllegalArgumentException expected) {
                    // fine
                }
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void negativeSizesCannotBeEncoded() {
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer();
        try {
            assertThrows(IllegalArgumentException.class,
                    () -> fp(OpType.ALLREDUCE, 0, DType.FLOAT32, List.of(new long[] {-1}), -1, null).encode(buf));
        } finally {
            buf.release();
        }
    }
}
