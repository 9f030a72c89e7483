package io.reactivecollectives.core;

import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.testkit.Guards;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.ShortBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Tensors}: zero-copy wrapping of buffers and addresses, release callbacks, copies from raw bytes. */
class TensorsTest {

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    // ------------------------------------------------------------------ ByteBuffer

    @Test
    void wrapsTheRemainingBytesOfADirectBufferWithoutCopy() {
        ByteBuffer b = direct(24);
        for (int i = 0; i < 6; i++) {
            b.putFloat(i * 4, i + 0.5f);
        }
        b.position(8); // the tensor starts at the position: elements 2..5
        Tensor t = Tensors.wrap(b, DType.FLOAT32, 2, 2);
        try {
            assertArrayEquals(new long[] {2, 2}, t.shape());
            assertArrayEquals(new float[] {2.5f, 3.5f, 4.5f, 5.5f}, t.toFloatArray());
            t.setDouble(0, -7);
            assertEquals(-7f, b.getFloat(8), "a write through the tensor is seen in the buffer");
            b.putFloat(20, 42f);
            assertEquals(42.0, t.getDouble(3), "a write to the buffer is seen through the tensor");
            b.position(0).limit(4); // moving the buffer afterwards does not move the tensor
            assertEquals(4, t.numel());
            assertEquals(1, t.refCnt());
        } finally {
            assertTrue(t.release());
        }
        assertEquals(42f, b.clear().getFloat(20), "releasing the tensor leaves the caller's memory alone");
    }

    @Test
    void defaultShapeIsOneDimensional() {
        Tensor t = Tensors.wrap(direct(16), DType.INT64);
        try {
            assertArrayEquals(new long[] {2}, t.shape());
            assertEquals(DType.INT64, t.dtype());
        } finally {
            t.release();
        }
    }

    @Test
    void releaseCallbackRunsExactlyOnceWhenTheCountDropsToZero() {
        AtomicInteger released = new AtomicInteger();
        Tensor t = Tensors.wrap(direct(16), DType.INT32, released::incrementAndGet, 4);
        Tensor view = t.slice(1, 3); // shares the count
        t.retain();
        assertEquals(2, t.refCnt());
        assertFalse(t.release());
        assertEquals(0, released.get());
        assertTrue(view.release());
        assertEquals(1, released.get());
        assertEquals(0, t.refCnt());
        assertThrows(IllegalReferenceCountException.class, t::release);
        assertThrows(IllegalReferenceCountException.class, () -> t.getDouble(0));
        assertEquals(1, released.get(), "a release past zero does not run the callback again");
    }

    @Test
    void aThrowingCallbackIsLoggedNotPropagated() {
        AtomicInteger calls = new AtomicInteger();
        Tensor t = Tensors.wrap(direct(8), DType.FLOAT32, () -> {
            calls.incrementAndGet();
            throw new IllegalStateException("pool closed");
        });
        assertTrue(t.release());
        assertEquals(1, calls.get());
    }

    @Test
    void rejectsHeapBuffersWithAPointerToCopyOf() {
        ByteBuffer heap = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrap(heap, DType.FLOAT32));
        assertTrue(e.getMessage().contains("heap") && e.getMessage().contains("copyOf"), e.getMessage());
        FloatBuffer heapFloats = FloatBuffer.allocate(4);
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrap(heapFloats));
    }

    @Test
    void rejectsBigEndianBuffersForMultiByteDtypes() {
        ByteBuffer big = ByteBuffer.allocateDirect(16); // BIG_ENDIAN, as every new ByteBuffer
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrap(big, DType.FLOAT32));
        assertTrue(e.getMessage().contains("BIG_ENDIAN") && e.getMessage().contains("LITTLE_ENDIAN"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrap(big.asFloatBuffer()));
        // one-byte elements have no order
        big.put(0, (byte) -3);
        Tensor t = Tensors.wrap(big, DType.INT8);
        try {
            assertEquals(-3, t.getDouble(0));
        } finally {
            t.release();
        }
    }

    @Test
    void rejectsLengthsThatAreNotWholeElementsAndWrongShapes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrap(direct(10), DType.FLOAT32));
        assertTrue(e.getMessage().contains("10 bytes") && e.getMessage().contains("float32"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensors.wrap(direct(16), DType.FLOAT32, 3));
        assertTrue(e.getMessage().contains("[3]"), e.getMessage());
        AtomicInteger released = new AtomicInteger();
        assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrap(direct(16), DType.FLOAT32, released::incrementAndGet, 5));
        assertEquals(0, released.get(), "a refused wrap leaves the memory with the caller");
    }

    // ------------------------------------------------------------------ typed buffers

    @Test
    void wrapsDirectTypedViewsFromTheirPosition() {
        ByteBuffer bytes = direct(64);
        FloatBuffer f = bytes.asFloatBuffer();
        f.put(new float[] {1, 2, 3, 4}).flip().position(1);
        Tensor tf = Tensors.wrap(f);
        DoubleBuffer d = direct(16).asDoubleBuffer().put(new double[] {1e300, -2});
        Tensor td = Tensors.wrap(d.flip());
        IntBuffer i = direct(12).asIntBuffer().put(new int[] {7, 8, 9});
        Tensor ti = Tensors.wrap(i.flip(), 3, 1);
        LongBuffer l = direct(8).asLongBuffer().put(Long.MIN_VALUE);
        Tensor tl = Tensors.wrap(l.flip());
        ShortBuffer s = direct(4).asShortBuffer().put(new short[] {0x3C00, (short) 0xC000}); // 1.0, -2.0 in fp16
        Tensor ts = Tensors.wrap(s.flip(), DType.FLOAT16);
        Tensor tb = Tensors.wrap(direct(2).asShortBuffer().put(0, (short) 0x3F80), DType.BFLOAT16); // 1.0
        try {
            assertArrayEquals(new float[] {2, 3, 4}, tf.toFloatArray());
            tf.setDouble(0, 20);
            assertEquals(20f, f.get(1), "write-through into the FloatBuffer");
            assertArrayEquals(new double[] {1e300, -2}, td.toDoubleArray());
            assertArrayEquals(new long[] {3, 1}, ti.shape());
            assertArrayEquals(new int[] {7, 8, 9}, ti.toIntArray());
            assertArrayEquals(new long[] {Long.MIN_VALUE}, tl.toLongArray());
            assertArrayEquals(new float[] {1, -2}, ts.toFloatArray());
            assertEquals(1.0, tb.getDouble(0));
        } finally {
            for (Tensor t : new Tensor[] {tf, td, ti, tl, ts, tb}) {
                t.release();
            }
        }
    }

    @Test
    void typedViewsWithACallbackAndMismatchedTypes() {
        AtomicInteger released = new AtomicInteger();
        Tensor t = Tensors.wrap(direct(8).asFloatBuffer(), DType.FLOAT32, released::incrementAndGet);
        t.release();
        assertEquals(1, released.get());
        IntBuffer ints = direct(8).asIntBuffer();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrap(ints, DType.FLOAT32));
        assertTrue(e.getMessage().contains("cannot hold float32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrap(direct(8).asShortBuffer(), DType.INT32));
        CharBuffer chars = direct(8).asCharBuffer();
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrap(chars, DType.FLOAT16));
    }

    // ------------------------------------------------------------------ read-only

    @Test
    void aReadOnlyBufferGivesAReadOnlyTensorThatCollectivesWillNotWriteInto() {
        ByteBuffer b = direct(8).putFloat(0, 1.5f).putFloat(4, 2.5f);
        AtomicInteger released = new AtomicInteger();
        Tensor t = Tensors.wrap(b.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT32,
                released::incrementAndGet);
        try {
            assertTrue(t.buffer().isReadOnly());
            assertArrayEquals(new float[] {1.5f, 2.5f}, t.toFloatArray());
            assertThrows(ReadOnlyBufferException.class, () -> t.setDouble(0, 3));
            assertEquals(1.5f, b.getFloat(0));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CollectiveArguments.requireWritable("allReduce", t, "tensor"));
            assertTrue(e.getMessage().startsWith("allReduce: tensor is read-only"), e.getMessage());
            Tensor readOnlyFloats = Tensors.wrap(b.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer());
            assertTrue(readOnlyFloats.buffer().isReadOnly());
            assertEquals(2.5, readOnlyFloats.getDouble(1));
            readOnlyFloats.release();
        } finally {
            t.release();
        }
        assertEquals(1, released.get());
        Tensor writable = Tensor.zeros(DType.FLOAT32, 1);
        CollectiveArguments.requireWritable("allReduce", writable, "tensor");
        writable.release();
    }

    // ------------------------------------------------------------------ addresses

    @Test
    void wrapsANativeAddressAndCallsItsReleaseOnce() {
        ByteBuffer memory = direct(32); // stands for memory some other library owns
        long address = PlatformDependent.directBufferAddress(memory);
        memory.putDouble(8, 6.25);
        AtomicInteger released = new AtomicInteger();
        Tensor t = Tensors.wrapAddress(address, 32, DType.FLOAT64, released::incrementAndGet, 2, 2);
        try {
            assertEquals(address, t.address(), "the tensor is the memory, not a copy");
            assertEquals(6.25, t.getDouble(1));
            t.setDouble(3, -1);
            assertEquals(-1.0, memory.getDouble(24));
            Tensor half = t.slice(1, 2).retain();
            t.release();
            assertEquals(0, released.get(), "a view still holds the memory");
            assertTrue(half.release());
        } finally {
            if (t.refCnt() > 0) {
                t.release();
            }
        }
        assertEquals(1, released.get());
        assertEquals(-1.0, memory.getDouble(24));
    }

    @Test
    void wrapAddressChecksItsArguments() {
        long address = PlatformDependent.directBufferAddress(direct(16));
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrapAddress(0, 16, DType.FLOAT32, null));
        assertThrows(IllegalArgumentException.class, () -> Tensors.wrapAddress(address, -4, DType.FLOAT32, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrapAddress(address, 14, DType.FLOAT32, null));
        assertTrue(e.getMessage().startsWith("Tensors.wrapAddress: 14 bytes is not a whole number"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> Tensors.wrapAddress(address, 1L << 32, DType.FLOAT32, null));
        assertTrue(e.getMessage().contains("2 GiB"), e.getMessage());
        AtomicInteger released = new AtomicInteger();
        Tensor empty = Tensors.wrapAddress(0, 0, DType.FLOAT32, released::incrementAndGet);
        assertEquals(0, empty.numel());
        empty.release();
        assertEquals(1, released.get(), "an empty tensor's callback runs too");
    }

    @Test
    void aWrappedTensorNeverReleasedIsReportedAsALeak() {
        ByteBuffer memory = direct(64); // outlives the tensor: only the tensor's tracker is collected
        Guards.drainLeaks();
        wrapAndDrop(memory);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<String> leaks = List.of();
        while (leaks.isEmpty() && System.nanoTime() < deadline) {
            Guards.collectLeaks();
            leaks = Guards.drainLeaks();
        }
        assertFalse(leaks.isEmpty(), "the leak detector reported the unreleased wrapped tensor");
        assertTrue(leaks.get(0).contains("wrapAndDrop"), leaks.get(0));
    }

    private static void wrapAndDrop(ByteBuffer memory) {
        Tensor t = Tensors.wrap(memory, DType.FLOAT32, () -> { });
        t.setDouble(0, 1); // an access record naming this method
        // dropped without release(): its callback will never run
    }

    // ------------------------------------------------------------------ copies

    @Test
    void fromBytesTakesAnyDtypesLittleEndianBytes() {
        ByteBuffer le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putFloat(1.5f).putFloat(-3f);
        Tensor t = Tensors.fromBytes(DType.FLOAT32, le.array(), 2, 1);
        Tensor back = Tensors.fromBytes(DType.FLOAT32, t.toByteArray());
        try {
            assertArrayEquals(new float[] {1.5f, -3f}, t.toFloatArray());
            assertArrayEquals(new long[] {2, 1}, t.shape());
            assertTrue(back.allClose(t.reshape(2), 0, 0));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Tensors.fromBytes(DType.INT64, new byte[12]));
            assertTrue(e.getMessage().startsWith("Tensors.fromBytes: 12 bytes"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> Tensor.fromBytes(DType.FLOAT32, new byte[4]));
            assertTrue(e.getMessage().contains("Tensors.fromBytes"), e.getMessage());
        } finally {
            t.release();
            back.release();
        }
    }

    @Test
    void copyOfConvertsBigEndianAndLeavesTheBufferAlone() {
        ByteBuffer big = ByteBuffer.allocate(4 + 24); // heap, big-endian
        big.putInt(0xDEAD).putFloat(1.25f).putFloat(-2f).putFloat(3f).putFloat(4f).putFloat(5f).putFloat(6f);
        big.position(4);
        Tensor f = Tensors.copyOf(big, DType.FLOAT32);
        ByteBuffer shorts = ByteBuffer.allocate(4).putShort((short) 0x3C00).putShort((short) 0x4000).flip();
        Tensor h = Tensors.copyOf(shorts, DType.FLOAT16);
        ByteBuffer longs = ByteBuffer.allocateDirect(8).putLong(0, -5L);
        Tensor l = Tensors.copyOf(longs, DType.INT64);
        ByteBuffer little = direct(8).putInt(0, 11).putInt(4, -12);
        Tensor i = Tensors.copyOf(little, DType.INT32);
        try {
            assertEquals(4, big.position(), "copyOf does not move the position");
            assertArrayEquals(new float[] {1.25f, -2f, 3f, 4f, 5f, 6f}, f.toFloatArray());
            assertArrayEquals(new float[] {1f, 2f}, h.toFloatArray());
            assertArrayEquals(new long[] {-5}, l.toLongArray());
            assertArrayEquals(new int[] {11, -12}, i.toIntArray());
            little.putInt(0, 99);
            assertEquals(11, i.getLong(0), "a copy, not a view");
        } finally {
            f.release();
            h.release();
            l.release();
            i.release();
        }
    }
}
