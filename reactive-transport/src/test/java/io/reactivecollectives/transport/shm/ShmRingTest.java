package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One ring seen from both ends (two {@link ShmRing} objects over the same memory, as the two
 * processes hold them): writes become visible only when published, space only when released, a producer whose copy of the
 * consumer's position says full looks again, and bytes come out in order across the wrap.
 */
class ShmRingTest {

    private static final int CAPACITY = 64;

    @Test
    void writesAreVisibleOnlyOncePublishedAndComeOutInOrderAcrossTheWrap() {
        ByteBuffer map = ByteBuffer.allocateDirect(ShmRing.CONTROL_BYTES + CAPACITY);
        long address = PlatformDependent.directBufferAddress(map);
        ShmRing producer = new ShmRing(map, address, 0, CAPACITY);
        ShmRing consumer = new ShmRing(map, address, 0, CAPACITY);
        ByteBuf src = Unpooled.buffer(256);
        ByteBuf dst = Unpooled.directBuffer(256);
        try {
            for (int i = 0; i < 256; i++) {
                src.writeByte(i);
            }
            assertEquals(40, producer.write(src, 0, 40));
            assertEquals(0, consumer.available(), "not published yet");
            producer.publish();
            assertEquals(40, consumer.available());
            assertEquals(CAPACITY - 40, producer.free());

            // the producer's copy of the consumer's position is stale: it must look again to see the room
            consumer.read(dst, 40);
            assertEquals(CAPACITY - 40, producer.free(), "not released yet");
            consumer.release();
            assertEquals(CAPACITY, producer.free());
            assertEquals(50, producer.write(src, 40, 50), "wraps around once the consumer freed the space");
            producer.publish();
            assertEquals(50, consumer.available());
            consumer.read(dst, 50);
            consumer.release();
            assertEquals(90, dst.readableBytes());
            for (int i = 0; i < 90; i++) {
                assertEquals((byte) i, dst.getByte(i), "byte " + i);
            }

            assertEquals(CAPACITY, producer.write(src, 90, 100), "no more than the capacity");
            assertEquals(0, producer.write(src, 90 + CAPACITY, 10), "full");
            producer.publish();
            consumer.read(dst, 16);
            assertEquals(0, producer.write(src, 90 + CAPACITY, 10), "read but not released");
            consumer.release();
            assertEquals(10, producer.write(src, 90 + CAPACITY, 10), "room again after the consumer released");
        } finally {
            src.release();
            dst.release();
        }
    }
}
