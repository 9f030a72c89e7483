package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.MalformedFrameException;

/**
 * The inbound end of an established connection: validates each frame (magic, version, known type,
 * this group, the peer's rank as source, no handshake after the handshake) and hands it to the
 * {@link FrameListener}. A bad or oversized frame closes the connection with an error naming the
 * peer; nothing is allocated for a frame before its length has been checked.
 */
final class FrameHandler extends ChannelInboundHandlerAdapter {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FrameHandler.class);

    private final int peer;
    private final int group;
    private final FrameListener listener;
    private Throwable cause;

    FrameHandler(int peer, int group, FrameListener listener) {
        this.peer = peer;
        this.group = group;
        this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        FrameType type;
        try {
            type = FrameCodec.validate(frame);
            if (type == FrameType.HELLO || type == FrameType.HELLO_ACK) {
                throw new MalformedFrameException("handshake frame on an established connection");
            }
            if (FrameCodec.group(frame) != group) {
                throw new MalformedFrameException("frame of another group (id " + FrameCodec.group(frame) + ")");
            }
            if (FrameCodec.source(frame) != peer) {
                throw new MalformedFrameException("frame names source rank " + FrameCodec.source(frame));
            }
        } catch (MalformedFrameException e) {
            frame.release();
            fail(ctx, e);
            return;
        }
        if (type == FrameType.HEARTBEAT) {
            frame.release();
            return;
        }
        listener.onFrame(peer, frame);
    }

    /** Records why the connection is about to be closed by this side (before {@code close()}). */
    void declareDead(Throwable why) {
        if (cause == null) {
            cause = why;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
        fail(ctx, t instanceof TooLongFrameException ? new MalformedFrameException("oversized frame: " + t.getMessage()) : t);
    }

    void fail(ChannelHandlerContext ctx, Throwable t) {
        if (!(t instanceof MalformedFrameException) && !(t instanceof java.io.IOException)) {
            log.warn("closing the connection to rank {} after an unexpected error", peer, t);
        }
        if (cause == null) {
            cause = new PeerProtocolException("rank " + peer + ": " + t.getMessage(), t);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        listener.onClosed(peer, cause);
        ctx.fireChannelInactive();
    }
}
