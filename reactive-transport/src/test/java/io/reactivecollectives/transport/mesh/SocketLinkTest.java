package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.transport.frame.FrameType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket link ({@link SocketLink}) between two ranks over one connection: frames sent with
 * every header field arrive intact at the peer's listener, small ones inline and large ones as
 * header and payload; fragments arrive in order; a frame that breaks the rules closes the link with
 * a {@link PeerProtocolException} naming the peer; a close with a cause fails the sends still
 * pending with that cause.
 */
class SocketLinkTest {

    @Test
    void framesArriveWithEveryFieldAndPayload() throws Exception {
        try (LinkPair pair = new LinkPair(false)) {
            assertEquals("tcp", pair.link0.transport());
            assertEquals(1, pair.link0.peer());
            assertSame(pair.heard0, pair.link0.listener());
            assertTrue(pair.link0.isActive());
            byte[] small = LinkPair.bytes(100, 1);
            byte[] large = LinkPair.bytes(SocketLink.INLINE_BYTES + 5000, 2);
            pair.link0.send(FrameType.DATA, 7, 3, 2, 1, 0xABCL, 55L, Unpooled.wrappedBuffer(small))
                    .block(Duration.ofSeconds(10));
            ByteBuf big = Unpooled.directBuffer(large.length).writeBytes(large);
            pair.link0.writeFrame(FrameType.DATA, 8, 4, 5, 6, 1L, 2L, big).get(10, TimeUnit.SECONDS);
            // released by the write; Netty may complete the write's future just before it lets go of
            // the buffer (with many event loops, on another thread), so give it a moment
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (big.refCnt() != 0 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertEquals(0, big.refCnt(), "the payload was released once written");

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
            LinkPair.Recorder.Frame g = pair.heard1.next();
            assertEquals(8, g.seq());
            assertEquals(6, g.chunk());
            assertArrayEquals(large, g.payload());

            pair.link0.sendFragments(9, 0L, new ByteBuf[] {Unpooled.wrappedBuffer(LinkPair.bytes(10, 3)),
                    Unpooled.wrappedBuffer(LinkPair.bytes(20, 4))}).block(Duration.ofSeconds(10));
            LinkPair.Recorder.Frame first = pair.heard1.next();
            LinkPair.Recorder.Frame second = pair.heard1.next();
            assertEquals(FrameType.P2P, first.type());
            assertEquals(9, first.tag());
            assertEquals(0, first.chunk());
            assertEquals(1, second.chunk());
            assertArrayEquals(LinkPair.bytes(20, 4), second.payload());

            pair.link1.sendAndForget(FrameType.ACK, 12, 0, 0, 0, Unpooled.EMPTY_BUFFER);
            LinkPair.Recorder.Frame ack = pair.heard0.next();
            assertEquals(FrameType.ACK, ack.type());
            assertEquals(1, ack.source());
            assertTrue(ack.thread().startsWith("defaultEventLoop"), "delivered on the event loop: " + ack.thread());
        }
    }

    @Test
    void aFrameNamingAnotherSourceClosesTheLinkNamingThePeer() throws Exception {
        try (LinkPair pair = new LinkPair(false)) {
            pair.channel1.writeAndFlush(LinkPair.frame(FrameType.DATA, LinkPair.GROUP, 2, 1, LinkPair.bytes(8, 0))).sync();
            Throwable why = pair.heard0.closedWith();
            assertInstanceOf(PeerProtocolException.class, why);
            assertTrue(why.getMessage().contains("rank 1") && why.getMessage().contains("source rank 2"),
                    why.getMessage());
            assertTrue(pair.heard0.frames.isEmpty(), "the bad frame was not delivered");
            pair.channel0.closeFuture().await(10, TimeUnit.SECONDS);
            assertFalse(pair.link0.isActive());
        }
    }

    @Test
    void aFrameOfAnotherGroupClosesTheLink() throws Exception {
        try (LinkPair pair = new LinkPair(false)) {
            pair.channel1.writeAndFlush(LinkPair.frame(FrameType.DATA, LinkPair.GROUP + 1, 1, 1, LinkPair.bytes(8, 0))).sync();
            Throwable why = pair.heard0.closedWith();
            assertInstanceOf(PeerProtocolException.class, why);
            assertTrue(why.getMessage().startsWith("rank 1: frame of another group"), why.getMessage());
        }
    }

    @Test
    void aCloseWithACauseFailsThePendingSendsWithIt() throws Exception {
        try (LinkPair pair = new LinkPair(true)) {
            CompletableFuture<Throwable> failed = new CompletableFuture<>();
            ByteBuf payload = Unpooled.directBuffer(64).writeBytes(LinkPair.bytes(64, 5));
            pair.link0.send(FrameType.DATA, 1, 0, 0, 0, payload)
                    .subscribe(v -> { }, failed::complete, () -> failed.completeExceptionally(new AssertionError("sent")));
            Thread.sleep(50);
            assertFalse(failed.isDone(), "the write is held, still pending");
            PeerSilentException why = new PeerSilentException(1, 5000, 3);
            pair.link0.closeWith(why);
            assertSame(why, pair.heard0.closedWith(), "the listener hears the cause");
            assertSame(why, failed.get(10, TimeUnit.SECONDS), "the pending send fails with the cause");
            assertSame(why, pair.link0.send(FrameType.DATA, 2, 0, 0, 0, Unpooled.wrappedBuffer(new byte[1]))
                    .materialize().block(Duration.ofSeconds(10)).getThrowable(), "and so does a send after the close");
            assertEquals(0, payload.refCnt(), "the payload was released");
        }
    }
}
