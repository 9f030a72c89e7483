package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.Future;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.shm.ShmLinks;
import io.reactivecollectives.transport.shm.ShmSegment;
import io.reactivecollectives.transport.shm.ShmSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shared-memory link ({@link SharedMemoryLink}) between two ranks of this JVM over one segment,
 * each over the socket link it replaces (as {@link MeshSharedMemory} makes them): frames go through
 * the ring with every header field and arrive on the reader's poller thread at the same listener as
 * the socket's; a small frame is in the ring when the call returns; the shared-memory checks
 * ({@link SharedMemoryFrames}) close the link with a {@link PeerProtocolException} naming the peer
 * for a frame of another source, a heartbeat (never carried by the ring) and a corrupt length; a
 * close with a cause fails the writes queued behind a full ring with that cause, after the listener
 * heard it.
 */
class SharedMemoryLinkTest {

    private static final int RING = 4096;

    private Path dir;
    private LinkPair pair;
    private ShmLinks links0;
    private ShmLinks links1;
    private SharedMemoryLink shm0;
    private SharedMemoryLink shm1;

    @BeforeEach
    void setUp() throws Exception {
        String unavailable = ShmSettings.fromSystemProperties().unavailableReason();
        assumeTrue(unavailable == null, "shared memory unavailable: " + unavailable);
        dir = Files.createTempDirectory("rc-shm-link-test");
        Path file = dir.resolve("seg");
        ShmSegment a = ShmSegment.create(file, 2, RING);
        ShmSegment b = ShmSegment.attach(file, 2, RING);
        a.unlink();
        pair = new LinkPair(false);
        SharedMemoryFrames frames0 = new SharedMemoryFrames(2, LinkPair.GROUP, "test rank 0", pair.link0.listener());
        SharedMemoryFrames frames1 = new SharedMemoryFrames(2, LinkPair.GROUP, "test rank 1", pair.link1.listener());
        links0 = open(a, 0, frames0);
        links1 = open(b, 1, frames1);
        shm0 = new SharedMemoryLink(pair.link0, links0, 0, LinkPair.GROUP);
        shm1 = new SharedMemoryLink(pair.link1, links1, 1, LinkPair.GROUP);
        frames0.add(shm0);
        frames1.add(shm1);
        pair.heard0.deferClose = shm0::afterFrames;
        pair.heard1.deferClose = shm1::afterFrames;
        links0.startPolling();
        links1.startPolling();
        a.release();
        b.release();
    }

    private static ShmLinks open(ShmSegment segment, int rank, SharedMemoryFrames frames) {
        return ShmLinks.open(segment, new int[] {0, 1}, 2, rank, PooledByteBufAllocator.DEFAULT, FrameCodec.HEADER,
                FrameCodec.HEADER + (1 << 20), 20_000, frames, "shm-link-test-" + rank);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (links0 != null) {
            links0.close(new IllegalStateException("test over"));
            links1.close(new IllegalStateException("test over"));
        }
        if (pair != null) {
            pair.close();
        }
        if (dir != null) {
            Files.deleteIfExists(dir.resolve("seg"));
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void framesGoThroughTheRingToTheSameListener() throws Exception {
        assertEquals("shm", shm0.transport());
        assertSame(pair.link0.listener(), shm0.listener(), "the socket's listener");
        assertTrue(shm0.isActive());
        byte[] small = LinkPair.bytes(100, 1);
        ByteBuf payload = Unpooled.directBuffer(100).writeBytes(small);
        Future<Void> written = shm0.writeFrame(FrameType.DATA, 7, 3, 2, 1, 0xABCL, 55L, payload);
        assertTrue(written.isDone() && written.isSuccess(), "a small frame is in the ring on return");
        assertEquals(0, payload.refCnt(), "and its payload released");
        byte[] large = LinkPair.bytes(3 * RING, 2);   // larger than the ring: streams through it
        shm0.send(FrameType.DATA, 8, 4, 5, 6, 1L, 2L, Unpooled.wrappedBuffer(large)).block(Duration.ofSeconds(10));

        LinkPair.Recorder.Frame f = pair.heard1.next();
        assertEquals(FrameType.DATA, f.type());
        assertEquals(7, f.seq());
        assertEquals(3, f.tag());
        assertEquals(2, f.step());
        assertEquals(1, f.chunk());
        assertEquals(0, f.source());
        assertEquals(0xABCL, f.word());
        assertEquals(55L, f.count());
        assertArrayEquals(small, f.payload());
        assertEquals("shm-link-test-1", f.thread(), "delivered on the reader's poller thread");
        LinkPair.Recorder.Frame g = pair.heard1.next();
        assertEquals(8, g.seq());
        assertArrayEquals(large, g.payload());

        shm0.sendFragments(9, 0L, new ByteBuf[] {Unpooled.wrappedBuffer(LinkPair.bytes(10, 3)), Unpooled.wrappedBuffer(LinkPair.bytes(20, 4))})
                .block(Duration.ofSeconds(10));
        LinkPair.Recorder.Frame first = pair.heard1.next();
        LinkPair.Recorder.Frame second = pair.heard1.next();
        assertEquals(FrameType.P2P, first.type());
        assertEquals(0, first.chunk());
        assertEquals(1, second.chunk());
        assertArrayEquals(LinkPair.bytes(20, 4), second.payload());

        shm1.sendAndForget(FrameType.ACK, 12, 0, 0, 0, Unpooled.EMPTY_BUFFER);
        assertEquals(FrameType.ACK, pair.heard0.next().type());
    }

    private void writeRaw(ByteBuf frame) {
        links1.outbound(0).write(new ByteBuf[] {frame}, null);
    }

    @Test
    void aFrameNamingAnotherSourceClosesTheLinkNamingThePeer() throws Exception {
        writeRaw(LinkPair.frame(FrameType.DATA, LinkPair.GROUP, 2, 1, LinkPair.bytes(8, 0)));
        Throwable why = pair.heard0.closedWith();
        assertInstanceOf(PeerProtocolException.class, why);
        assertEquals("rank 1 (shared memory): frame names source rank 2", why.getMessage());
        assertTrue(pair.heard0.frames.isEmpty(), "the bad frame was not delivered");
        pair.channel0.closeFuture().await(10, TimeUnit.SECONDS);
        assertFalse(shm0.isActive(), "the socket underneath is closed");
    }

    @Test
    void aHeartbeatInTheRingIsRejected() throws Exception {
        writeRaw(LinkPair.frame(FrameType.HEARTBEAT, LinkPair.GROUP, 1, 0, new byte[0]));
        Throwable why = pair.heard0.closedWith();
        assertInstanceOf(PeerProtocolException.class, why);
        assertTrue(why.getMessage().startsWith("rank 1 (shared memory): heartbeat in shared memory"), why.getMessage());
    }

    @Test
    void aCorruptLengthClosesTheLink() throws Exception {
        writeRaw(Unpooled.buffer(4).writeInt(2));
        Throwable why = pair.heard0.closedWith();
        assertInstanceOf(PeerProtocolException.class, why);
        assertTrue(why.getMessage().startsWith("rank 1 (shared memory): a frame of 2 bytes"), why.getMessage());
    }

    @Test
    void aCloseWithACauseFailsTheWritesQueuedBehindAFullRing() throws Exception {
        links1.pause();   // rank 1 reads nothing: the ring fills
        Future<Void> queued = shm0.writeFrame(FrameType.DATA, 1, 0, 0, 0, 0L, 0L,
                Unpooled.wrappedBuffer(LinkPair.bytes(2 * RING, 6)));
        Thread.sleep(50);
        assertFalse(queued.isDone(), "waits for ring space");
        PeerSilentException why = new PeerSilentException(1, 5000, 3);
        shm0.closeWith(why);
        assertSame(why, pair.heard0.closedWith(), "the listener hears the cause");
        // not await(): the write's promise runs on ImmediateEventExecutor, whose await() refuses to wait
        // (BlockingOperationException) when the failure has not arrived yet
        java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
        queued.addListener(f -> ended.complete(null));
        ended.get(10, TimeUnit.SECONDS);
        assertSame(why, shm0.writeFailure(queued.cause()), "the queued write fails with the cause");
        Throwable later = shm0.send(FrameType.DATA, 2, 0, 0, 0, Unpooled.wrappedBuffer(new byte[1]))
                .materialize().block(Duration.ofSeconds(10)).getThrowable();
        assertSame(why, later, "and so does a send after the close");
    }
}
