package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorTest {

    // ------------------------------------------------------------------ factories and arrays

    /** The whole-array copies (one view of the buffer) agree with element access for every dtype. */
    @Test
    void wholeArrayCopiesAgreeWithElementAccessForEveryDtype() {
        double[] values = {0, 1, -2, 3.5, 100, -7.25, 255, 1e-3};
        for (DType dtype : DType.values()) {
            Tensor bulk = Tensor.fromDoubles(dtype, values);
            Tensor single = Tensor.empty(dtype, values.length);
            try {
                for (int i = 0; i < values.length; i++) {
                    single.setDouble(i, values[i]);
                }
                assertArrayEquals(single.toByteArray(), bulk.toByteArray(), dtype + ": the same bytes");
                double[] read = bulk.toDoubleArray();
                for (int i = 0; i < values.length; i++) {
                    assertEquals(single.getDouble(i), read[i], dtype + " element " + i);
                }
            } finally {
                bulk.release();
                single.release();
            }
        }
        Tensor f = Tensor.fromFloats(new float[] {1.5f, -2f, 3f});
        Tensor d = Tensor.fromDoubles(new double[] {1.5, -2, 3});
        Tensor n = Tensor.fromInts(new int[] {7, -8, 9});
        Tensor l = Tensor.fromLongs(new long[] {Long.MAX_VALUE, -1, 0});
        try {
            assertArrayEquals(new float[] {1.5f, -2f, 3f}, f.toFloatArray());
            assertArrayEquals(new double[] {1.5, -2, 3}, f.toDoubleArray());
            assertArrayEquals(new double[] {1.5, -2, 3}, d.toDoubleArray());
            assertArrayEquals(new int[] {7, -8, 9}, n.toIntArray());
            assertArrayEquals(new long[] {Long.MAX_VALUE, -1, 0}, l.toLongArray());
            assertEquals(-8, n.getDouble(1));
            assertEquals(Long.MAX_VALUE, l.buffer().getLongLE(0), "little-endian in the buffer");
        } finally {
            f.release();
            d.release();
            n.release();
            l.release();
        }
    }

    @Test
    void factoriesCopyArraysAndGiveThemBack() {
        float[] f = {1.5f, -2f, Float.NaN, 0f};
        double[] d = {1e300, -0.0, 3};
        int[] i = {Integer.MIN_VALUE, 0, 7};
        long[] l = {Long.MAX_VALUE, -1};
        byte[] b = {-1, 0, 127};
        boolean[] z = {true, false, true};
        Tensor tf = Tensor.fromFloats(f);
        Tensor td = Tensor.fromDoubles(d);
        Tensor ti = Tensor.fromInts(i);
        Tensor tl = Tensor.fromLongs(l);
        Tensor tb = Tensor.fromBytes(DType.INT8, b);
        Tensor tu = Tensor.fromBytes(DType.UINT8, b);
        Tensor tz = Tensor.fromBooleans(z);
        try {
            f[0] = 99; // a copy: changing the array does not change the tensor
            assertArrayEquals(new float[] {1.5f, -2f, Float.NaN, 0f}, tf.toFloatArray());
            assertArrayEquals(d, td.toDoubleArray());
            assertArrayEquals(i, ti.toIntArray());
            assertArrayEquals(l, tl.toLongArray());
            assertArrayEquals(b, tb.toByteArray());
            assertArrayEquals(new double[] {-1, 0, 127}, tb.toDoubleArray());
            assertArrayEquals(new double[] {255, 0, 127}, tu.toDoubleArray(), "uint8 reads unsigned");
            assertArrayEquals(z, tz.toBooleanArray());
            assertEquals(DType.FLOAT32, tf.dtype());
            assertEquals(DType.FLOAT64, td.dtype());
            assertEquals(DType.INT32, ti.dtype());
            assertEquals(DType.INT64, tl.dtype());
            assertEquals(DType.BOOL, tz.dtype());
            assertEquals(16, tf.nbytes());
            assertEquals(Device.CPU, tf.device());
            assertTrue(tf.isCpu());
            assertTrue(tf.buffer().isDirect(), "off-heap");
            assertEquals(tf.buffer().memoryAddress(), tf.address());
            assertThrows(IllegalStateException.class, tf::toIntArray);
            assertThrows(IllegalArgumentException.class, () -> Tensor.fromBytes(DType.BOOL, b));
        } finally {
            for (Tensor t : List.of(tf, td, ti, tl, tb, tu, tz)) {
                t.release();
            }
        }
    }

    @Test
    void fromDoublesConvertsAsTorchTensorDoes() {
        Tensor i8 = Tensor.fromDoubles(DType.INT8, new double[] {300.7, -1.5, 127});
        Tensor u8 = Tensor.fromDoubles(DType.UINT8, new double[] {255, 256, 3.9});
        Tensor bo = Tensor.fromDoubles(DType.BOOL, new double[] {0, -0.0, 0.1, Double.NaN});
        Tensor h = Tensor.fromDoubles(DType.FLOAT16, new double[] {1 + Math.scalb(1.0, -11), 70000, 0.1});
        Tensor bf = Tensor.fromDoubles(DType.BFLOAT16, new double[] {1 + Math.scalb(1.0, -8), 3.0});
        Tensor l = Tensor.fromDoubles(DType.INT64, new double[] {-2.9, 1e18});
        try {
            assertArrayEquals(new double[] {44, -1, 127}, i8.toDoubleArray(), "truncate toward zero, then wrap");
            assertArrayEquals(new double[] {255, 0, 3}, u8.toDoubleArray());
            assertArrayEquals(new boolean[] {false, false, true, true}, bo.toBooleanArray());
            assertEquals(1.0, h.getDouble(0), "ties to even");
            assertEquals(Double.POSITIVE_INFINITY, h.getDouble(1));
            assertEquals(HalfFloatsTest.decodeHalf(0x2e66), h.getDouble(2), "0.1 to nearest half");
            assertEquals(1.0, bf.getDouble(0));
            assertEquals(3.0, bf.getDouble(1));
            assertArrayEquals(new long[] {-2, 1_000_000_000_000_000_000L}, l.toLongArray());
        } finally {
            for (Tensor t : List.of(i8, u8, bo, h, bf, l)) {
                t.release();
            }
        }
    }

    @Test
    void zerosEmptyAndShapes() {
        Tensor z = Tensor.zeros(DType.FLOAT64, 2, 3, 4);
        Tensor e = Tensor.empty(DType.INT32, 0, 5);
        Tensor s = Tensor.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor like = Tensor.zerosLike(s);
        try {
            assertArrayEquals(new long[] {2, 3, 4}, z.shape());
            assertEquals(3, z.dim());
            assertEquals(3, z.size(1));
            assertEquals(24, z.numel());
            assertEquals(192, z.nbytes());
            for (double v : z.toDoubleArray()) {
                assertEquals(0.0, v);
            }
            long[] shape = z.shape();
            shape[0] = 99;
            assertEquals(2, z.size(0), "shape() is a copy");
            assertEquals(0, e.numel());
            assertEquals(0, e.nbytes());
            assertArrayEquals(new long[] {2, 3}, like.shape());
            assertEquals(DType.FLOAT32, like.dtype());
            assertArrayEquals(new float[6], like.toFloatArray());
            assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(DType.FLOAT32, 2, -1));
            assertThrows(IllegalArgumentException.class, () -> Tensor.fromFloats(new float[] {1, 2, 3}, 2, 2));
            assertThrows(IllegalArgumentException.class, () -> Tensor.empty(DType.FLOAT64, 1L << 28));
        } finally {
            for (Tensor t : List.of(z, e, s, like)) {
                t.release();
            }
        }
    }

    // ------------------------------------------------------------------ views

    @Test
    void sliceNarrowReshapeAndFlattenAreViewsWithoutCopy() {
        Tensor t = Tensor.fromInts(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 4, 3);
        try {
            Tensor rows = t.slice(1, 3);
            assertArrayEquals(new long[] {2, 3}, rows.shape());
            assertArrayEquals(new int[] {3, 4, 5, 6, 7, 8}, rows.toIntArray());
            assertEquals(t.address() + 12, rows.address(), "same memory, offset by one row");
            rows.setLong(0, 100); // write through the view ...
            assertEquals(100, t.getLong(3)); // ... and read it from the parent

            Tensor n = t.narrow(5, 4);
            assertArrayEquals(new long[] {4}, n.shape());
            assertArrayEquals(new int[] {5, 6, 7, 8}, n.toIntArray());
            t.setLong(6, -6);
            assertEquals(-6, n.getLong(1), "a write to the parent shows in the view");

            Tensor r = t.reshape(2, 6);
            assertArrayEquals(new long[] {2, 6}, r.shape());
            r.setLong(11, 42);
            assertEquals(42, t.getLong(11));
            Tensor flat = t.flatten();
            assertArrayEquals(new long[] {12}, flat.shape());
            assertEquals(t.address(), flat.address());

            Tensor nested = t.slice(1, 4).slice(1, 2); // row 2 of t
            assertArrayEquals(new int[] {-6, 7, 8}, nested.toIntArray());
            assertEquals(0, t.slice(2, 2).numel());

            assertThrows(IndexOutOfBoundsException.class, () -> t.slice(3, 5));
            assertThrows(IndexOutOfBoundsException.class, () -> t.slice(2, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> t.narrow(10, 3));
            assertThrows(IllegalArgumentException.class, () -> t.reshape(5, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> n.getDouble(4), "a view has its own bounds");
        } finally {
            t.release();
        }
    }

    @Test
    void chunkFollowsTorchChunk() {
        Tensor t = Tensor.zeros(DType.FLOAT32, 10, 2);
        Tensor five = Tensor.zeros(DType.FLOAT32, 5);
        Tensor empty = Tensor.zeros(DType.FLOAT32, 0);
        try {
            // torch.chunk: ceil(size / n) rows each, the last shorter, fewer chunks when rows run out
            assertEquals(List.of(4L, 4L, 2L), rows(t.chunk(3)));
            assertEquals(List.of(2L, 2L, 1L), rows(five.chunk(4)), "torch.arange(5).chunk(4) has 3 chunks");
            assertEquals(List.of(1L, 1L, 1L, 1L, 1L), rows(five.chunk(9)));
            assertEquals(List.of(5L), rows(five.chunk(1)));
            assertEquals(List.of(0L), rows(empty.chunk(3)));
            List<Tensor> parts = t.chunk(3);
            parts.get(1).setDouble(0, 7); // element (4, 0) of t
            assertEquals(7.0, t.getDouble(8));
            assertEquals(t.address() + 4L * 2 * 4, parts.get(1).address(), "row 4 of 2 floats");
            assertThrows(IllegalArgumentException.class, () -> t.chunk(0));
        } finally {
            t.release();
            five.release();
            empty.release();
        }
    }

    @Test
    void chunksSplitTheFlatElementsEvenlyWithOffsets() {
        Tensor t = Tensor.fromInts(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        try {
            List<Chunk> cs = t.chunks(3);
            assertEquals(3, cs.size());
            assertEquals(List.of(4L, 3L, 3L), List.of(cs.get(0).numel(), cs.get(1).numel(), cs.get(2).numel()));
            long expectOffset = 0;
            for (int i = 0; i < cs.size(); i++) {
                Chunk c = cs.get(i);
                assertEquals(i, c.index());
                assertEquals(expectOffset, c.elementOffset());
                assertEquals(DType.INT32, c.dtype());
                assertEquals(expectOffset, c.tensor().getLong(0), "chunk starts at its offset");
                expectOffset += c.numel();
            }
            Tensor two = Tensor.fromInts(new int[] {1, 2});
            try {
                assertEquals(List.of(1L, 1L, 0L), two.chunks(3).stream().map(Chunk::numel).toList(),
                        "more chunks than elements: the last ones are empty");
            } finally {
                two.release();
            }
            assertThrows(IllegalArgumentException.class, () -> new Chunk(-1, 0, t));
            assertThrows(IllegalArgumentException.class, () -> new Chunk(0, -1, t));
        } finally {
            t.release();
        }
    }

    // ------------------------------------------------------------------ comparisons and copies

    @Test
    void contentEqualsComparesDtypeShapeAndBits() {
        Tensor a = Tensor.fromFloats(new float[] {1, Float.NaN, 0f});
        Tensor b = Tensor.fromFloats(new float[] {1, Float.NaN, 0f});
        Tensor c = Tensor.fromFloats(new float[] {1, Float.NaN, -0f});
        Tensor d = Tensor.fromFloats(new float[] {1, Float.NaN, 0f}, 3, 1);
        Tensor e = Tensor.fromInts(new int[] {1, 2, 3});
        try {
            assertTrue(a.contentEquals(b));
            assertFalse(a.contentEquals(c), "0.0 and -0.0 differ in bits");
            assertFalse(a.contentEquals(d), "shapes differ");
            assertFalse(a.contentEquals(e), "dtypes differ");
            assertFalse(a.contentEquals(null));
            Tensor copy = a.copy();
            try {
                assertTrue(copy.contentEquals(a));
                copy.setDouble(0, 2);
                assertEquals(1.0, a.getDouble(0), "copy() does not share memory");
                a.copyFrom(copy);
                assertEquals(2.0, a.getDouble(0));
            } finally {
                copy.release();
            }
            assertThrows(IllegalArgumentException.class, () -> a.copyFrom(e));
        } finally {
            for (Tensor t : List.of(a, b, c, d, e)) {
                t.release();
            }
        }
    }

    @Test
    void allCloseIsTorchAllCloseWithEqualNan() {
        double inf = Double.POSITIVE_INFINITY;
        Tensor a = Tensor.fromDoubles(new double[] {1.0, 100.0, Double.NaN, inf});
        Tensor near = Tensor.fromDoubles(new double[] {1.0 + 1e-9, 100.0001, Double.NaN, inf});
        Tensor far = Tensor.fromDoubles(new double[] {1.1, 100.0, Double.NaN, inf});
        Tensor nanVsNumber = Tensor.fromDoubles(new double[] {1.0, 100.0, 0.0, inf});
        Tensor negInf = Tensor.fromDoubles(new double[] {1.0, 100.0, Double.NaN, -inf});
        Tensor finite = Tensor.fromDoubles(new double[] {1.0, 100.0, Double.NaN, 1e300});
        try {
            assertTrue(a.allClose(near, 1e-5, 1e-8));
            assertFalse(a.allClose(far, 1e-5, 1e-8));
            assertTrue(a.allClose(far, 0, 0.2));
            assertFalse(a.allClose(nanVsNumber, 1e-5, 1e-8));
            assertFalse(a.allClose(negInf, 1e-5, 1e-8), "inf is not close to -inf");
            assertFalse(a.allClose(finite, 1e-5, 1e-8), "inf is not close to a finite number");
            assertFalse(finite.allClose(a, 1e-5, 1e-8), "a finite number is not close to inf");
        } finally {
            for (Tensor t : List.of(a, near, far, nanVsNumber, negInf, finite)) {
                t.release();
            }
        }
    }

    // ------------------------------------------------------------------ reference counting

    @Test
    void viewsShareTheReferenceCountAndReleaseFreesTheStorage() {
        Tensor t = Tensor.fromFloats(new float[] {1, 2, 3, 4});
        Tensor view = t.slice(1, 3);
        List<Tensor> chunks = t.chunk(2);
        assertEquals(1, t.refCnt());
        assertEquals(1, view.refCnt());
        view.retain();
        assertEquals(2, t.refCnt(), "retaining a view retains the storage");
        assertFalse(t.release());
        assertEquals(1, view.refCnt());
        assertEquals(2.0f, view.toFloatArray()[0], "still readable through the view");
        assertTrue(view.release(), "the last release frees the storage");
        assertEquals(0, t.refCnt());
        assertEquals(0, chunks.get(0).refCnt());
        assertThrows(IllegalReferenceCountException.class, () -> t.getDouble(0));
        assertThrows(IllegalReferenceCountException.class, () -> chunks.get(1).toFloatArray());
        assertThrows(IllegalReferenceCountException.class, () -> t.slice(0, 1));
        assertThrows(IllegalReferenceCountException.class, () -> t.narrow(0, 1));
        assertThrows(IllegalReferenceCountException.class, () -> t.setDouble(0, 1));
        assertThrows(IllegalReferenceCountException.class, t::release);
    }

    @Test
    void retainAndReleaseCounts() {
        Tensor t = Tensor.zeros(DType.INT64, 3);
        assertEquals(3, t.retain(2).refCnt());
        assertFalse(t.release(2));
        assertEquals(1, t.touch().touch("hint").refCnt());
        assertTrue(t.release());
    }

    @Test
    void wrapTakesOwnershipOfOneReference() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        buf.writeZero(2); // the tensor starts at the reader index
        buf.readerIndex(2);
        buf.writeIntLE(5).writeIntLE(6).writeIntLE(7);
        Tensor t = Tensor.wrap(buf, DType.INT32, 3);
        assertArrayEquals(new int[] {5, 6, 7}, t.toIntArray());
        assertThrows(IllegalArgumentException.class, () -> Tensor.wrap(buf, DType.INT32, 4));
        assertTrue(t.release());
        assertEquals(0, buf.refCnt(), "releasing the tensor releases the wrapped buffer");
    }

    /** As PyTorch 1.13's fill_ (checked against it): before, 300 on int8 was written as 44. */
    @Test
    void fillRefusesAValueTheDtypeCannotHoldAsPyTorchDoes() {
        Object[][] refused = {{DType.INT8, 300.0}, {DType.INT8, Double.NaN}, {DType.UINT8, 256.0}, {DType.UINT8, -256.0},
            {DType.UINT8, 255.5}, {DType.INT32, 0x1p40}, {DType.INT64, 1e20}, {DType.FLOAT16, 70000.0}, {DType.FLOAT16, 65520.0},
            {DType.FLOAT32, 3.5e38}, {DType.BFLOAT16, 1e300}};
        for (Object[] c : refused) {
            Tensor t = Tensor.zeros((DType) c[0], 2);
            try {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.fill((double) c[1]), c[0] + " " + c[1]);
                assertTrue(e.getMessage().contains("without overflow") && e.getMessage().startsWith("fill: "), e.getMessage());
                assertArrayEquals(new double[] {0, 0}, t.toDoubleArray(), "nothing written");
            } finally {
                t.release();
            }
        }
        Object[][] taken = {{DType.UINT8, -1.0, 255.0}, {DType.INT8, 1.5, 1.0}, {DType.INT8, -128.0, -128.0},
            {DType.FLOAT16, 65504.0, 65504.0}, {DType.FLOAT16, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY},
            {DType.FLOAT32, Double.NaN, Double.NaN}, {DType.INT64, 0x1p62, 0x1p62}, {DType.FLOAT64, 1e300, 1e300},
            {DType.BOOL, 2.0, 1.0}};
        for (Object[] c : taken) {
            Tensor t = Tensor.zeros((DType) c[0], 1);
            try {
                assertEquals((double) c[2], t.fill((double) c[1]).toDoubleArray()[0], c[0] + " " + c[1]);
            } finally {
                t.release();
            }
        }
    }

    private static List<Long> rows(List<Tensor> parts) {
        return parts.stream().map(p -> p.size(0)).toList();
    }
}
