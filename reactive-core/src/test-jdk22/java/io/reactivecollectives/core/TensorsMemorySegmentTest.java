package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java.lang.foreign} memory as tensors (JDK 22+; compiled and run only by the
 * {@code jdk22-tests} profile, which Maven activates on JDK 22 and later): a segment through its
 * {@code asByteBuffer()} view, or by address, with the arena's {@code close} as the release callback.
 */
class TensorsMemorySegmentTest {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void aSegmentsByteBufferIsWrappedAndItsArenaClosedOnRelease() {
        Arena arena = Arena.ofShared();
        MemorySegment segment = arena.allocate(4 * 6, 8);
        for (int i = 0; i < 6; i++) {
            segment.setAtIndex(FLOAT, i, i * 1.5f);
        }
        Tensor t = Tensors.wrap(segment.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT32, arena::close, 2, 3);
        assertArrayEquals(new float[] {0, 1.5f, 3, 4.5f, 6, 7.5f}, t.toFloatArray());
        t.setDouble(5, -1);
        assertEquals(-1f, segment.getAtIndex(FLOAT, 5), "the tensor is the segment's memory");
        assertTrue(segment.scope().isAlive());
        assertTrue(t.release());
        assertFalse(segment.scope().isAlive(), "releasing the tensor closed the arena");
    }

    @Test
    void aSegmentByAddress() {
        AtomicInteger released = new AtomicInteger();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(8 * 4, 8);
            segment.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 3, 42L);
            Tensor t = Tensors.wrapAddress(segment.address(), segment.byteSize(), DType.INT64, released::incrementAndGet);
            assertEquals(segment.address(), t.address());
            assertEquals(42L, t.getLong(3));
            t.release();
            assertThrows(IllegalArgumentException.class,
                    () -> Tensors.wrapAddress(segment.address(), segment.byteSize() - 1, DType.INT64, null));
        }
        assertEquals(1, released.get());
    }
}
