package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The segment takes memory only for what is touched: 64 local ranks' 4,032 rings of 2 MiB (an
 * 8.5 GB file, more than one mapping of the JDK holds) cost their control blocks, a ring in the
 * last mapped part carries bytes from one mapping of the file to another, and the host's budget
 * refuses the ring it cannot hold.
 */
class ShmSegmentTest {

    private static final Path DEV_SHM = Path.of("/dev/shm");

    @Test
    void sixtyFourLocalRanksMapEveryRingWithoutTakingTheirMemory() throws Exception {
        assumeTrue(Files.isDirectory(DEV_SHM) && Files.isWritable(DEV_SHM), "no /dev/shm here");
        long freeBefore = Files.getFileStore(DEV_SHM).getUsableSpace();
        assumeTrue(freeBefore > (256L << 20), "/dev/shm has too little room for the fixed part");
        int ring = 2 << 20;
        long size = ShmSegment.sizeFor(64, ring);
        assertTrue(size > 8_000_000_000L, "an 8.5 GB file: " + size);
        Path file = DEV_SHM.resolve(ShmRendezvous.PREFIX + ProcessHandle.current().pid() + "-test-" + System.nanoTime());
        ShmSegment a = ShmSegment.create(file, 64, ring, 4L * ring);
        ShmSegment b = null;
        ByteBuf src = Unpooled.buffer(64);
        ByteBuf dst = Unpooled.directBuffer(64);
        try {
            assertEquals(size, Files.size(file));
            long taken = freeBefore - Files.getFileStore(DEV_SHM).getUsableSpace();
            assertTrue(taken < ShmSegment.fixedBytes(64) + (64L << 20),
                    "only the header and the control blocks are taken, not the rings: " + (taken >> 20) + " MiB");

            b = ShmSegment.attach(file, 64, ring);
            for (int i = 0; i < 64; i++) {
                src.writeByte(i * 3);
            }
            ShmRing producer = a.ring(63, 62);   // the last ring, in the last mapped part
            ShmRing consumer = b.ring(63, 62);
            assertEquals(64, producer.write(src, 0, 64));
            producer.publish();
            assertEquals(64, consumer.available());
            consumer.read(dst, 64);
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) (i * 3), dst.getByte(i), "byte " + i);
            }
            assertEquals(0, b.ring(62, 63).available(), "the reverse ring is another ring");
            assertEquals(0, b.ring(0, 1).available(), "and so is the first");
        } finally {
            src.release();
            dst.release();
            a.unlink();
            a.release();
            if (b != null) {
                b.release();
            }
        }
    }

    @Test
    void theBudgetRefusesTheRingItCannotHoldAndEveryRankSeesWhatIsTaken() throws Exception {
        assumeTrue(Files.isDirectory(DEV_SHM) && Files.isWritable(DEV_SHM), "no /dev/shm here");
        Path file = DEV_SHM.resolve(ShmRendezvous.PREFIX + ProcessHandle.current().pid() + "-test-" + System.nanoTime());
        ShmSegment a = ShmSegment.create(file, 3, 4096, 2 * 4096);
        ShmSegment b = ShmSegment.attach(file, 3, 4096);
        try {
            assertEquals(2 * 4096, b.budgetBytes());
            ShmOutbound first = new ShmOutbound(a, 0, 1);
            assertTrue(first.reserve());
            assertTrue(first.reserve(), "asked again: the same ring, nothing more taken");
            assertEquals(4096, b.takenBytes());
            assertTrue(new ShmOutbound(b, 1, 2).reserve());
            ShmOutbound third = new ShmOutbound(a, 2, 0);
            assertFalse(third.refused(), "not asked yet");
            assertFalse(third.reserve(), "the budget holds two rings");
            assertTrue(third.refused());
            assertEquals(2 * 4096, a.takenBytes());
        } finally {
            a.unlink();
            a.release();
            b.release();
        }
    }
}
