package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.kernels.ByteCopies;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link ByteCopies}: pieces written by several threads at once into disjoint ranges of one
 * buffer all land where they belong, whether the buffers have memory addresses (direct pooled,
 * through Unsafe) or not (heap and composite sources, through a fresh NIO view per call).
 */
class ByteCopiesTest {

    private static final int PIECES = 64;
    private static final int PIECE = 4096 + 3;   // odd: pieces do not start on aligned offsets

    private static ByteBuf piece(int k, boolean direct) {
        ByteBuf b = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(PIECE) : Unpooled.buffer(PIECE);
        for (int i = 0; i < PIECE; i++) {
            b.writeByte((k * 31 + i) & 0xff);
        }
        return b;
    }

    private static void concurrentPieces(ByteBuf dst, boolean directPieces, boolean compositePieces) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<ByteBuf> pieces = new ArrayList<>();
        try {
            for (int k = 0; k < PIECES; k++) {
                ByteBuf p = piece(k, directPieces);
                if (compositePieces) {   // a piece split in two regions, as frames spanning socket reads arrive
                    CompositeByteBuf c = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(2);
                    c.addComponent(true, p.retainedSlice(0, 1000));
                    c.addComponent(true, p.retainedSlice(1000, PIECE - 1000));
                    p.release();
                    p = c;
                }
                pieces.add(p);
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int k = 0; k < PIECES; k++) {
                ByteBuf p = pieces.get(k);
                int at = k * PIECE;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int rep = 0; rep < 50; rep++) {
                        ByteCopies.copy(p, p.readerIndex(), dst, at, PIECE);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
            for (int k = 0; k < PIECES; k++) {
                for (int i = 0; i < PIECE; i++) {
                    assertEquals((byte) ((k * 31 + i) & 0xff), dst.getByte(k * PIECE + i), "piece " + k + " byte " + i);
                }
            }
        } finally {
            pool.shutdownNow();
            pieces.forEach(ByteBuf::release);
        }
    }

    @Test
    void concurrentWritersIntoOneDirectBufferFromDirectPieces() throws Exception {
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(PIECES * PIECE, PIECES * PIECE);
        try {
            concurrentPieces(dst, true, false);
        } finally {
            dst.release();
        }
    }

    @Test
    void concurrentWritersFromCompositeAndHeapPieces() throws Exception {
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(PIECES * PIECE, PIECES * PIECE);
        try {
            concurrentPieces(dst, true, true);
            concurrentPieces(dst, false, false);
        } finally {
            dst.release();
        }
    }

    @Test
    void aHeapDestinationAndByteArraysToo() throws Exception {
        ByteBuf dst = Unpooled.buffer(PIECES * PIECE, PIECES * PIECE);
        try {
            concurrentPieces(dst, true, false);
        } finally {
            dst.release();
        }
        ByteBuf d = PooledByteBufAllocator.DEFAULT.directBuffer(16, 16);
        try {
            ByteCopies.copy(new byte[] {1, 2, 3, 4, 5}, 1, d, 10, 3);
            assertEquals(2, d.getByte(10));
            assertEquals(4, d.getByte(12));
        } finally {
            d.release();
        }
    }

    @Test
    void rangesOutsideEitherBufferAreRejected() {
        ByteBuf src = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        try {
            assertThrows(IndexOutOfBoundsException.class, () -> ByteCopies.copy(src, 0, dst, 60, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> ByteCopies.copy(src, 60, dst, 0, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> ByteCopies.copy(src, -1, dst, 0, 8));
        } finally {
            src.release();
            dst.release();
        }
    }
}
