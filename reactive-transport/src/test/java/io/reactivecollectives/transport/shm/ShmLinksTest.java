package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two ranks' shared-memory links over one segment in this JVM: length-prefixed frames of every
 * size up to 16 times the ring stream through it in order and intact, from several writer threads
 * at once; a paused reader stalls the writer, which goes on once it resumes; a corrupt length is
 * reported and nothing after it is read; the file can be unlinked while both are mapped. Frames
 * written at once ({@link ShmOutbound#tryWriteFrame}) and queued ones keep one order per writer, and
 * one is written at once only when nothing waits before it and all of it fits.
 */
class ShmLinksTest {

    private static final int RING = 4096;
    private Path dir;
    private final List<ShmLinks> opened = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(NativeWaits.isAvailable(), "needs the native futex waits: " + NativeWaits.unavailableReason());
        dir = Files.createTempDirectory("rc-shm-test");
    }

    @AfterEach
    void tearDown() throws Exception {
        opened.forEach(l -> l.close(new IllegalStateException("test over")));
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** Frames the reader of rank 1 got, as byte arrays. */
    private final List<byte[]> received = new CopyOnWriteArrayList<>();
    private final List<String> corrupt = new CopyOnWriteArrayList<>();
    private volatile boolean throwOnce;
    /** Whether the thread that delivered the last frame gets Netty's allocator cache. */
    private volatile boolean readerHasAllocatorCache;

    private ShmLinks[] pair() throws Exception {
        Path file = dir.resolve("seg");
        ShmSegment a = ShmSegment.create(file, 2, RING);
        ShmSegment b = ShmSegment.attach(file, 2, RING);
        a.unlink();
        assertFalse(Files.exists(file), "unlinked while mapped");
        ShmFrames sink = new ShmFrames() {
            @Override
            public void onFrame(int peer, ByteBuf frame) {
                readerHasAllocatorCache = FastThreadLocalThread.currentThreadHasFastThreadLocal();
                if (throwOnce) {
                    throwOnce = false;
                    frame.release();
                    throw new IllegalStateException("a receiver's bug");
                }
                byte[] bytes = new byte[frame.readableBytes()];
                frame.readBytes(bytes);
                frame.release();
                received.add(bytes);
            }

            @Override
            public void onCorrupt(int peer, String why) {
                corrupt.add(peer + ": " + why);
            }
        };
        ShmLinks l0 = ShmLinks.start(a, new int[] {0, 1}, 2, 0, PooledByteBufAllocator.DEFAULT, 1, 1 << 20, 20_000,
                sink, "shm-test-0");
        ShmLinks l1 = ShmLinks.start(b, new int[] {0, 1}, 2, 1, PooledByteBufAllocator.DEFAULT, 1, 1 << 20, 20_000,
                sink, "shm-test-1");
        a.release();
        b.release();
        opened.add(l0);
        opened.add(l1);
        return new ShmLinks[] {l0, l1};
    }

    private static ByteBuf[] frame(byte[] body) {
        ByteBuf prefix = PooledByteBufAllocator.DEFAULT.directBuffer(4).writeInt(body.length);
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(body.length).writeBytes(body);
        return new ByteBuf[] {prefix, payload};
    }

    private static byte[] body(int writer, int i, int length) {
        byte[] b = new byte[length];
        new Random(writer * 100_003L + i).nextBytes(b);
        b[0] = (byte) writer;
        return b;
    }

    @Test
    void eachPollerRunsOnAProcessorOfItsOwnWhenTheHostHasOnePerLocalRank() throws Exception {
        int cpu0 = PollerPlacement.cpuFor(0);
        int cpu1 = PollerPlacement.cpuFor(1);
        assumeTrue(cpu0 != PollerPlacement.NONE, "no native library: nothing bound");
        assumeTrue(cpu0 != cpu1, "one processor: both pollers share it");
        pair();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String a = null;
        String b = null;
        while ((a == null || b == null || !a.equals(String.valueOf(cpu0)) || !b.equals(String.valueOf(cpu1)))
                && System.nanoTime() < end) {
            Thread.sleep(10);
            a = allowedCpusOf("shm-test-0");
            b = allowedCpusOf("shm-test-1");
        }
        assertEquals(String.valueOf(cpu0), a, "rank 0's poller");
        assertEquals(String.valueOf(cpu1), b, "rank 1's poller");
    }

    @Test
    void placementGivesEachLocalRankTheNextProcessorAndWrapsAroundWithMoreRanksThanProcessors() {
        assertEquals(3, PollerPlacement.cpuFor(0, new int[] {3, 5}));
        assertEquals(5, PollerPlacement.cpuFor(1, new int[] {3, 5}));
        int[] four = {PollerPlacement.cpuFor(0, new int[] {0, 1}), PollerPlacement.cpuFor(1, new int[] {0, 1}),
                PollerPlacement.cpuFor(2, new int[] {0, 1}), PollerPlacement.cpuFor(3, new int[] {0, 1})};
        assertArrayEquals(new int[] {0, 1, 0, 1}, four, "4 ranks on 2 processors: neighbours apart");
        assertEquals(4, PollerPlacement.cpuFor(4, new int[] {2, 4, 6}), "local rank 4 of 5 on the second of 3");
        assertEquals(PollerPlacement.NONE, PollerPlacement.cpuFor(0, new int[0]), "no set known");
        assertEquals(PollerPlacement.NONE, PollerPlacement.cpuFor(-1, new int[] {0, 1}), "no local index");
    }

    /** The Cpus_allowed_list of this JVM's thread named {@code name} (Linux /proc), or null. */
    private static String allowedCpusOf(String name) throws java.io.IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    if (Files.readString(t.resolve("comm")).trim().equals(name)) {
                        for (String line : Files.readAllLines(t.resolve("status"))) {
                            if (line.startsWith("Cpus_allowed_list:")) {
                                return line.substring(line.indexOf(':') + 1).trim();
                            }
                        }
                    }
                } catch (java.nio.file.NoSuchFileException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return null;
    }

    /** Writes frame {@code i} of writer {@code w}, completing {@code written} when it is in the ring. */
    private interface WriteOne {
        void write(int w, int i, Promise<Void> written);
    }

    /** {@code writers} threads each write {@code perWriter} frames; returns once all of them arrived. */
    private void writeConcurrently(int writers, int perWriter, WriteOne one) throws InterruptedException {
        CountDownLatch written = new CountDownLatch(writers * perWriter);
        for (int w = 0; w < writers; w++) {
            int writer = w;
            new Thread(() -> {
                for (int i = 0; i < perWriter; i++) {
                    Promise<Void> p = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
                    p.addListener(f -> written.countDown());
                    one.write(writer, i, p);
                }
            }).start();
        }
        assertTrue(written.await(30, TimeUnit.SECONDS), "every write completed");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.size() < writers * perWriter && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(writers * perWriter, received.size(), "every frame arrived");
    }

    @Test
    void framesUpToSixteenRingsStreamThroughInOrderFromConcurrentWriters() throws Exception {
        ShmLinks[] links = pair();
        int writers = 3;
        int perWriter = 60;
        Random sizes = new Random(7);
        int[][] lengths = new int[writers][perWriter];
        for (int[] row : lengths) {
            for (int i = 0; i < perWriter; i++) {
                row[i] = 1 + sizes.nextInt(i % 5 == 0 ? 16 * RING : 300);
            }
        }
        writeConcurrently(writers, perWriter,
                (writer, i, p) -> links[0].outbound(1).write(frame(body(writer, i, lengths[writer][i])), p));
        int[] next = new int[writers];
        for (byte[] got : received) {
            int writer = got[0];
            int i = next[writer]++;
            assertArrayEquals(body(writer, i, lengths[writer][i]), got, "writer " + writer + " frame " + i);
        }
        assertEquals(List.of(), corrupt);
    }

    @Test
    void aPausedReaderStallsTheWriterUntilItResumes() throws Exception {
        ShmLinks[] links = pair();
        links[1].pause();
        Promise<Void> big = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        CountDownLatch done = new CountDownLatch(1);
        big.addListener(f -> done.countDown());
        links[0].outbound(1).write(frame(body(0, 0, 8 * RING)), big);
        Thread.sleep(200);
        assertFalse(big.isDone(), "a frame of 8 rings cannot be written while nobody reads");
        assertEquals(0, received.size());
        links[1].resume();
        assertTrue(done.await(10, TimeUnit.SECONDS) && big.isSuccess(), "written once the reader resumed");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertArrayEquals(body(0, 0, 8 * RING), received.get(0));
    }

    @Test
    void aLengthOutOfBoundsIsReportedAndStopsTheRing() throws Exception {
        ShmLinks[] links = pair();
        ByteBuf bad = PooledByteBufAllocator.DEFAULT.directBuffer(8).writeInt(2 << 20).writeInt(0);
        links[0].outbound(1).write(new ByteBuf[] {bad}, null);
        links[0].outbound(1).write(frame(body(0, 1, 10)), null);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (corrupt.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(1, corrupt.size(), "reported once");
        assertTrue(corrupt.get(0).contains("a frame of 2097152 bytes"), corrupt.get(0));
        Thread.sleep(100);
        assertEquals(0, received.size(), "nothing after a corrupt length is read");
    }

    /**
     * The reading thread allocates the buffer of every frame it reads (and frees it when a
     * collective ends there): it must be a thread that Netty's pooled allocator gives a thread
     * cache to (its {@code PoolThreadLocalCache} asks this), or each of those takes an arena's lock.
     */
    @Test
    void theReadingThreadGetsTheAllocatorsThreadCache() throws Exception {
        ShmLinks[] links = pair();
        links[0].outbound(1).write(frame(body(0, 0, 10)), null);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(1, received.size());
        assertTrue(readerHasAllocatorCache, "the poller is not a thread Netty's allocator caches for");
    }

    @Test
    void aReceiverThatThrowsDoesNotStopTheReadingThread() throws Exception {
        ShmLinks[] links = pair();
        throwOnce = true;
        links[0].outbound(1).write(frame(body(0, 0, 10)), null);
        links[0].outbound(1).write(frame(body(0, 1, 10)), null);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(1, received.size(), "the frame after the one whose receiver threw arrived");
        assertArrayEquals(body(0, 1, 10), received.get(0));
    }

    @Test
    void writesAfterTheLinkFailedFailAtOnceAndReleaseTheirBuffers() throws Exception {
        ShmLinks[] links = pair();
        links[0].outbound(1).fail(new IllegalStateException("peer gone"));
        ByteBuf[] parts = frame(body(0, 0, 100));
        Promise<Void> p = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        links[0].outbound(1).write(parts, p);
        assertTrue(p.isDone() && !p.isSuccess());
        assertEquals("peer gone", p.cause().getMessage());
        for (ByteBuf b : parts) {
            assertEquals(0, b.refCnt(), "released");
        }
    }

    /** Sends a DATA frame (sequence {@code i}, tag {@code writer}) at once where it can, else queued: as a link does. */
    private static void send(ShmOutbound out, int writer, int i, byte[] payload, Promise<Void> written) {
        ByteBuf body = Unpooled.wrappedBuffer(payload);
        if (out.tryWriteFrame(FrameType.DATA, 7, i, writer, 0, 0, writer, 0L, 0L, body)) {
            assertEquals(0, body.refCnt(), "released once written");
            written.trySuccess(null);
            return;
        }
        ByteBuf header = FrameCodec.encodeHeaderOnHeap(FrameType.DATA, 7, i, writer, 0, 0, writer, 0L, 0L, payload.length);
        out.write(new ByteBuf[] {header, body}, written);
    }

    /** Whether {@code p} completed within 10 s (a promise of the immediate executor cannot be awaited). */
    private static boolean done(Promise<Void> p) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!p.isDone() && System.nanoTime() < end) {
            Thread.sleep(2);
        }
        return p.isDone();
    }

    /** The (tag, sequence, payload) of a received frame's bytes (without its length field). */
    private static Object[] decode(byte[] frame) {
        ByteBuf f = Unpooled.wrappedBuffer(frame);
        assertEquals(FrameType.DATA, FrameCodec.validate(f));
        byte[] payload = new byte[frame.length - FrameCodec.HEADER];
        f.getBytes(FrameCodec.HEADER, payload);
        return new Object[] {FrameCodec.tag(f), FrameCodec.sequence(f), payload};
    }

    @Test
    void framesWrittenAtOnceAndQueuedOnesKeepEachWritersOrderFromConcurrentWriters() throws Exception {
        ShmLinks[] links = pair();
        int writers = 3;
        int perWriter = 300;
        // mostly small frames (written at once when the ring is free), every 7th larger than the ring
        writeConcurrently(writers, perWriter, (writer, i, p) -> send(links[0].outbound(1), writer, i,
                body(writer, i, i % 7 == 0 ? 3 * RING : 1 + i % 200), p));
        int[] next = new int[writers];
        for (byte[] got : received) {
            Object[] f = decode(got);
            int writer = (Integer) f[0];
            int i = next[writer]++;
            assertEquals((long) i, f[1], "writer " + writer + "'s frames in order");
            assertArrayEquals(body(writer, i, i % 7 == 0 ? 3 * RING : 1 + i % 200), (byte[]) f[2],
                    "writer " + writer + " frame " + i);
        }
        assertEquals(List.of(), corrupt);
    }

    @Test
    void aFrameIsWrittenAtOnceOnlyWhenNothingWaitsBeforeItAndAllOfItFits() throws Exception {
        ShmLinks[] links = pair();
        ShmOutbound out = links[0].outbound(1);
        ByteBuf tooLarge = Unpooled.wrappedBuffer(new byte[RING]);
        assertFalse(out.tryWriteFrame(FrameType.DATA, 7, 0, 0, 0, 0, 0, 0L, 0L, tooLarge), "a frame over the ring");
        assertEquals(1, tooLarge.refCnt(), "left to the caller");
        tooLarge.release();

        links[1].pause();
        Promise<Void> big = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        send(out, 0, 0, body(0, 0, 8 * RING), big);
        assertFalse(big.isDone(), "stalled: nobody reads");
        ByteBuf small = Unpooled.wrappedBuffer(body(0, 1, 10));
        assertFalse(out.tryWriteFrame(FrameType.DATA, 7, 1, 0, 0, 0, 0, 0L, 0L, small), "not past a stalled write");
        assertEquals(1, small.refCnt());
        small.release();
        Promise<Void> after = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        send(out, 0, 1, body(0, 1, 10), after);
        links[1].resume();
        assertTrue(done(after) && big.isSuccess() && after.isSuccess());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.size() < 2 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(2, received.size());
        assertEquals(0L, decode(received.get(0))[1], "the stalled frame first");
        assertEquals(1L, decode(received.get(1))[1]);

        out.fail(new IllegalStateException("peer gone"));
        ByteBuf late = Unpooled.wrappedBuffer(new byte[4]);
        assertFalse(out.tryWriteFrame(FrameType.DATA, 7, 2, 0, 0, 0, 0, 0L, 0L, late), "a failed link writes nothing at once");
        assertEquals(1, late.refCnt());
        late.release();
    }

    @Test
    void aPayloadThatCannotBeCopiedLeavesNothingOfItsFrameInTheRing() throws Exception {
        ShmLinks[] links = pair();
        ShmOutbound out = links[0].outbound(1);
        ByteBuf gone = Unpooled.buffer(16).writeZero(16);
        gone.release();   // the caller's bug: a payload released before it was sent
        assertThrows(io.netty.util.IllegalReferenceCountException.class,
                () -> out.tryWriteFrame(FrameType.DATA, 7, 0, 0, 0, 0, 0, 0L, 0L, gone));
        Promise<Void> next = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        send(out, 0, 1, body(0, 1, 10), next);
        assertTrue(done(next) && next.isSuccess());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        Thread.sleep(50);
        assertEquals(1, received.size(), "only the next frame: no header of the failed one");
        assertEquals(1L, decode(received.get(0))[1]);
        assertArrayEquals(body(0, 1, 10), (byte[]) decode(received.get(0))[2]);
        assertEquals(List.of(), corrupt);
    }
}
