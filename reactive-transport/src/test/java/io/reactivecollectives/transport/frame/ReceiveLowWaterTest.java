package io.reactivecollectives.transport.frame;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The receive low-water mark on real epoll TCP sockets: a large frame sent in small pieces with
 * pauses wakes its reader a few times instead of once per piece, the mark never stalls a frame whose
 * sender stops with less than the mark queued, and it is back at 1 between frames.
 */
class ReceiveLowWaterTest {

    private static final IntegerUnixChannelOption SO_RCVLOWAT = new IntegerUnixChannelOption("SO_RCVLOWAT", 1, 18);
    private static final int FRAME = 512 * 1024;
    private static final int PIECE = 8 * 1024;

    private EventLoopGroup group;
    private Channel server;
    private Channel client;
    private final CompletableFuture<Channel> accepted = new CompletableFuture<>();
    private final BlockingQueue<ByteBuf> frames = new LinkedBlockingQueue<>();
    private final AtomicInteger reads = new AtomicInteger();

    private void start(int lowWater) throws InterruptedException {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(ReceiveLowWater.kernelAtLeast(System.getProperty("os.name"), System.getProperty("os.version"), 4, 18),
                "Linux 4.18 or later is needed");
        group = new MultiThreadIoEventLoopGroup(2, EpollIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 * 1024, 1 << 20))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        FrameDecoder decoder = FrameDecoders.create(2 * FRAME);
                        decoder.wakeForFrames(lowWater);
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                reads.incrementAndGet();
                                ctx.fireChannelRead(msg);
                            }
                        }, decoder, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf frame = (ByteBuf) msg;
                                frames.add(Unpooled.copiedBuffer(frame));
                                frame.release();
                            }
                        });
                        accepted.complete(ch);
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        client = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.close().sync();
        }
        if (server != null) {
            server.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        ByteBuf f;
        while ((f = frames.poll()) != null) {
            f.release();
        }
    }

    /** Sends the length field and {@code bytes} bytes of the body, {@code from} onwards, in pieces {@code pauseMillis} apart. */
    private void send(byte[] body, int from, int bytes, long pauseMillis, boolean header) throws InterruptedException {
        if (header) {
            client.writeAndFlush(Unpooled.buffer(4).writeInt(body.length)).sync();
        }
        for (int off = from; off < from + bytes; off += PIECE) {
            client.writeAndFlush(Unpooled.wrappedBuffer(body, off, Math.min(PIECE, from + bytes - off))).sync();
            if (pauseMillis > 0) {
                Thread.sleep(pauseMillis);
            }
        }
    }

    private static byte[] body() {
        byte[] b = new byte[FRAME];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    private int serverMark() throws Exception {
        Channel ch = accepted.get(10, TimeUnit.SECONDS);
        return ch.eventLoop().submit(() -> ch.config().getOption(SO_RCVLOWAT)).get(10, TimeUnit.SECONDS);
    }

    /** The server's mark once it left 1 (the first part of a frame read), or 1 after 10 s. */
    private int markOnceSet() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int mark;
        while ((mark = serverMark()) == 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return mark;
    }

    @Test
    void aFrameInPiecesWithPausesIsGatheredBeforeTheReaderWakes() throws Exception {
        start(1 << 20);
        byte[] body = body();
        send(body, 0, 64 * 1024, 0, true);
        // the mark follows the frame's missing bytes once its first part is read
        int mark = markOnceSet();
        assertTrue(mark > 1 && mark <= FRAME, "mark " + mark + " follows the frame's missing bytes");
        int readsBefore = reads.get();
        // the rest in 8 KiB pieces 1 ms apart: each would wake the reader without the mark
        send(body, 64 * 1024, FRAME - 64 * 1024, 1, false);
        ByteBuf got = frames.poll(20, TimeUnit.SECONDS);
        assertNotNull(got, "the frame arrived whole");
        assertEquals(Unpooled.wrappedBuffer(body), got);
        got.release();
        int wakeups = reads.get() - readsBefore;
        assertTrue(wakeups <= 8, "the last 448 KiB (56 pieces) woke the reader " + wakeups + " times");
        assertEquals(1, serverMark(), "the mark is back to 1 between frames");
    }

    @Test
    void aSenderThatStopsShortOfTheMarkStillGetsItsFrameDelivered() throws Exception {
        start(1 << 20);
        byte[] body = body();
        send(body, 0, 100 * 1024, 0, true);
        assertTrue(markOnceSet() > 1, "the mark follows the frame");
        // all but the last 8 KiB: fewer bytes queued than the mark, so no wake-up, and no frame
        send(body, 100 * 1024, FRAME - 100 * 1024 - PIECE, 0, false);
        assertNull(frames.poll(300, TimeUnit.MILLISECONDS), "the frame is not complete yet");
        // the frame's last bytes reach the mark exactly
        send(body, FRAME - PIECE, PIECE, 0, false);
        ByteBuf got = frames.poll(10, TimeUnit.SECONDS);
        assertNotNull(got, "the frame's own last bytes woke the reader");
        assertEquals(Unpooled.wrappedBuffer(body), got);
        got.release();
    }

    @Test
    void offBelowTheMinimumLeavesTheSocketAlone() throws Exception {
        start(ReceiveLowWater.MIN_BYTES - 1);
        byte[] body = body();
        send(body, 0, 128 * 1024, 0, true);
        Thread.sleep(100);
        assertEquals(1, serverMark());
        send(body, 128 * 1024, FRAME - 128 * 1024, 0, false);
        ByteBuf got = frames.poll(10, TimeUnit.SECONDS);
        assertNotNull(got);
        assertEquals(Unpooled.wrappedBuffer(body), got);
        got.release();
    }

    @Test
    void kernelVersionsAreReadAsLinuxMajorMinor() {
        assertTrue(ReceiveLowWater.kernelAtLeast("Linux", "6.18.44-fc-v669", 4, 18));
        assertTrue(ReceiveLowWater.kernelAtLeast("Linux", "4.18.0-553.el8.x86_64", 4, 18));
        assertFalse(ReceiveLowWater.kernelAtLeast("Linux", "4.14.35", 4, 18));
        assertFalse(ReceiveLowWater.kernelAtLeast("Linux", "3.10.0", 4, 18));
        assertFalse(ReceiveLowWater.kernelAtLeast("Mac OS X", "14.1", 4, 18));
        assertFalse(ReceiveLowWater.kernelAtLeast("Linux", "weird", 4, 18));
    }
}
