package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.transport.wire.LentBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Frames lent where they lie in the ring ({@link ShmInbound} with a lending threshold): a large
 * frame reaches its receiver as the ring's own memory, whole or not at all, also when it wraps
 * around the ring's end (two pieces read as one); its space goes back to the producer only after
 * the receiver released it; a receiver that keeps one holds the ring (nothing after it is read, and
 * its bytes stay as they were) until it lets go; a receiver that throws has had its frame (it is
 * not delivered again); small frames are copied out as before.
 */
class ShmInboundLendingTest {

    private static final int RING = 64 << 10;
    private static final int LEND = 8 << 10;
    /** The producer's rank in the group, which the frames are heard from. */
    private static final int PEER = 5;

    private Path dir;
    private ShmSegment segment;
    private ShmRing producer;
    private ShmInbound inbound;
    private final List<byte[]> got = new ArrayList<>();
    private final List<Boolean> lent = new ArrayList<>();
    private final List<ByteBuf> kept = new ArrayList<>();
    private boolean keepNext;
    private boolean throwNext;

    @BeforeEach
    void setUp() throws Exception {
        dir = Files.createTempDirectory("rc-shm-lend");
        segment = ShmSegment.create(dir.resolve("seg"), 2, RING);
        segment.unlink();
        producer = segment.ring(0, 1);
        inbound = new ShmInbound(segment, 0, 1, PooledByteBufAllocator.DEFAULT, 1, 1 << 20, LEND, PEER,
                new ShmFrames() {
                    @Override
                    public void onFrame(int peer, ByteBuf frame) {
                        assertEquals(PEER, peer, "the producer's group rank");
                        lent.add(LentBuffer.isLent(frame));
                        byte[] bytes = new byte[frame.readableBytes()];
                        frame.getBytes(frame.readerIndex(), bytes);
                        got.add(bytes);
                        if (keepNext) {
                            keepNext = false;
                            kept.add(frame);
                        } else {
                            frame.release();
                        }
                        if (throwNext) {
                            throwNext = false;
                            throw new IllegalStateException("a receiver's bug");
                        }
                    }

                    @Override
                    public void onCorrupt(int peer, String why) {
                        throw new AssertionError(why);
                    }
                });
    }

    @AfterEach
    void tearDown() throws Exception {
        inbound.close();
        kept.forEach(ByteBuf::release);
        segment.release();
        Files.deleteIfExists(dir);
    }

    private static byte[] body(int seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Writes the length prefix and {@code body} (all of it, or its first {@code upTo} bytes), and publishes. */
    private void write(byte[] body, int upTo) {
        ByteBuf frame = Unpooled.buffer(4 + body.length).writeInt(body.length).writeBytes(body);
        assertEquals(4 + upTo, producer.write(frame, 0, 4 + upTo), "room in the ring");
        producer.publish();
    }

    private void writeRest(byte[] body, int from) {
        ByteBuf rest = Unpooled.wrappedBuffer(body, from, body.length - from);
        assertEquals(body.length - from, producer.write(rest, 0, body.length - from));
        producer.publish();
    }

    @Test
    void aLargeFrameIsLentWholeAndItsSpaceReturnsOnlyOnceReleased() {
        byte[] a = body(1, 20_000);
        write(a, 10_000);
        assertEquals(0, inbound.poll(1 << 20), "half a lendable frame: nothing read yet");
        assertTrue(got.isEmpty());
        writeRest(a, 10_000);
        assertEquals(4 + a.length, inbound.poll(1 << 20));
        assertEquals(List.of(true), lent, "lent where it lies");
        assertArrayEquals(a, got.get(0));
        assertEquals(RING, producer.free(), "released by the receiver: the space is the producer's again");
    }

    @Test
    void aFrameAcrossTheRingsEndIsLentAsTwoPiecesReadAsOne() {
        // move the positions close to the end, then write a frame that wraps
        for (int i = 0; i < 3; i++) {
            write(body(10 + i, 20_000), 20_000);
            inbound.poll(1 << 20);
        }
        byte[] wraps = body(99, 20_000);
        write(wraps, 20_000);
        assertEquals(4 + wraps.length, inbound.poll(1 << 20));
        assertEquals(List.of(true, true, true, true), lent);
        assertArrayEquals(wraps, got.get(3), "both pieces, in order");
        assertEquals(RING, producer.free());
    }

    @Test
    void aSmallFrameIsCopiedOut() {
        byte[] small = body(3, 1000);
        write(small, small.length);
        inbound.poll(1 << 20);
        assertEquals(List.of(false), lent);
        assertArrayEquals(small, got.get(0));
    }

    @Test
    void aReceiverThatKeepsALentFrameHoldsTheRingUntilItLetsGo() {
        byte[] first = body(5, 20_000);
        byte[] second = body(6, 20_000);
        keepNext = true;
        write(first, first.length);
        write(second, second.length);
        inbound.poll(1 << 20);
        assertEquals(1, got.size(), "nothing read past the frame still held");
        assertFalse(inbound.hasData(), "the poller has nothing to do meanwhile");
        assertEquals(0, inbound.poll(1 << 20));
        assertEquals(RING - 2 * (4 + 20_000), producer.free(), "the held frame's space is not the producer's");
        ByteBuf held = kept.remove(0);
        byte[] still = new byte[held.readableBytes()];
        held.getBytes(held.readerIndex(), still);
        assertArrayEquals(first, still, "its bytes stay as they were");
        held.release();
        assertTrue(inbound.poll(1 << 20) > 0);
        assertEquals(2, got.size());
        assertArrayEquals(second, got.get(1));
        assertEquals(RING, producer.free());
    }

    @Test
    void aFrameWhoseReceiverThrewIsNotDeliveredAgain() {
        byte[] first = body(7, 20_000);
        byte[] second = body(8, 20_000);
        write(first, first.length);
        write(second, second.length);
        throwNext = true;
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> inbound.poll(1 << 20));
        assertEquals(1, got.size());
        inbound.poll(1 << 20);
        assertEquals(2, got.size(), "the next frame, not the first again");
        assertArrayEquals(second, got.get(1));
        assertEquals(RING, producer.free());
    }
}
