package io.reactivecollectives.transport.mesh;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameDecoders;
import io.reactivecollectives.transport.frame.FrameType;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Ranks 0 and 1 of a test group joined by one in-JVM socket connection (Netty's local transport on
 * an event loop of their own), each end made as the mesh makes it after the handshake: the frame
 * decoder, a {@link FrameHandler} and a {@link SocketLink} sharing one {@link PeerStripes}, the
 * frames delivered to a {@link Recorder}. Rank 0's end can hold its writes ({@link #holdWrites}), as a
 * socket whose peer reads nothing holds them in its outbound buffer until the close fails them.
 */
final class LinkPair implements AutoCloseable {

    static final int GROUP = "link-test".hashCode();

    /** What a listener heard: the frames (header fields and payload copied, buffer released) and the end. */
    static final class Recorder implements FrameListener {
        record Frame(FrameType type, long seq, int tag, int step, int chunk, int source, long word, long count,
                     byte[] payload, String thread) {
        }

        final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
        final CompletableFuture<Throwable> closed = new CompletableFuture<>();
        /** Runs the report of the end, where set: a shared-memory link reports it after the ring's frames. */
        volatile java.util.function.Consumer<Runnable> deferClose;

        @Override
        public void onFrame(int peer, ByteBuf frame) {
            try {
                ByteBuf p = frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
                frames.add(new Frame(FrameCodec.type(frame), FrameCodec.sequence(frame), FrameCodec.tag(frame),
                        FrameCodec.step(frame), FrameCodec.chunk(frame), FrameCodec.source(frame),
                        FrameCodec.agreementWord(frame), FrameCodec.agreementCount(frame), ByteBufUtil.getBytes(p),
                        Thread.currentThread().getName()));
            } finally {
                frame.release();
            }
        }

        @Override
        public void onClosed(int peer, Throwable cause) {
            Runnable report = () -> closed.complete(cause == null ? new AssertionError("closed without a cause") : cause);
            java.util.function.Consumer<Runnable> defer = deferClose;
            if (defer != null) {
                defer.accept(report);
            } else {
                report.run();
            }
        }

        Frame next() throws InterruptedException {
            Frame f = frames.poll(10, TimeUnit.SECONDS);
            if (f == null) {
                throw new AssertionError("no frame within 10 s");
            }
            return f;
        }

        Throwable closedWith() throws Exception {
            return closed.get(10, TimeUnit.SECONDS);
        }
    }

    /** Holds the writes that reach it; on close fails them as a socket's outbound buffer does. */
    static final class HoldWrites extends ChannelDuplexHandler {
        private final List<Object> held = new ArrayList<>();
        private final List<ChannelPromise> promises = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (!ctx.channel().isActive()) {
                ctx.write(msg, promise);   // closed: the channel fails it
                return;
            }
            held.add(msg);
            promises.add(promise);
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            held.forEach(ReferenceCountUtil::release);
            promises.forEach(p -> p.tryFailure(new java.nio.channels.ClosedChannelException()));
            held.clear();
            promises.clear();
            ctx.close(promise);
        }
    }

    final DefaultEventLoopGroup loop = new DefaultEventLoopGroup(1);
    final Recorder heard0 = new Recorder();
    final Recorder heard1 = new Recorder();
    final Channel channel0;
    final Channel channel1;
    final SocketLink link0;
    final SocketLink link1;

    LinkPair(boolean holdWrites) throws Exception {
        LocalAddress address = new LocalAddress("link-pair-" + UUID.randomUUID());
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        new ServerBootstrap().group(loop).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<LocalChannel>() {
                    @Override
                    protected void initChannel(LocalChannel ch) {
                        accepted.complete(ch);
                    }
                }).bind(address).sync();
        channel0 = new Bootstrap().group(loop).channel(LocalChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
        channel1 = accepted.get(10, TimeUnit.SECONDS);
        if (holdWrites) {
            channel0.pipeline().addFirst(new HoldWrites());
        }
        link0 = end(channel0, 0, 1, heard0);
        link1 = end(channel1, 1, 0, heard1);
    }

    /** Rank {@code self}'s end of the connection to {@code peer}, as the handshake leaves it. */
    private static SocketLink end(Channel ch, int self, int peer, FrameListener listener) throws Exception {
        PeerStripes stripes = new PeerStripes(peer, 1, listener);
        ch.eventLoop().submit(() -> {
            ch.pipeline().addLast(FrameDecoders.create(1 << 20), new FrameHandler(peer, GROUP, 0, stripes));
        }).sync();
        Channel[] all = stripes.add(0, ch);
        return new SocketLink(peer, self, GROUP, all, stripes);
    }

    /** A whole frame as rank {@code source} would write it: length, header, payload. */
    static ByteBuf frame(FrameType type, int group, int source, long seq, byte[] payload) {
        ByteBuf header = FrameCodec.encodeHeaderOnHeap(type, group, seq, 0, 0, 0, source, 0L, 0L, payload.length);
        return io.netty.buffer.Unpooled.wrappedBuffer(header, io.netty.buffer.Unpooled.wrappedBuffer(payload));
    }

    @Override
    public void close() {
        channel0.close();
        channel1.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** {@code n} bytes of a pattern that differs with {@code seed}, for payloads to compare. */
    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }
}
