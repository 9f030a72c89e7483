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
 * peer; nothing is allocated for a frame before its length has been checked. The listener hears of
 * the end of the connection exactly once, with a typed cause: the one this side closed it for
 * ({@link PeerSilentException}, {@link PeerProtocolException}, ...), reported before the close, or
 * else a {@link PeerClosedException} (orderly close or reset by the peer).
 */
final class FrameHandler extends ChannelInboundHandlerAdapter {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FrameHandler.class);

    private final int peer;
    private final int group;
    private final FrameListener listener;
    /** Written on the event loop, read by senders whose write failed. */
    private volatile Throwable cause;
    private boolean reported;
    private ChannelHandlerContext ctx;

    FrameHandler(int peer, int group, FrameListener listener) {
        this.peer = peer;
        this.group = group;
        this.listener = listener;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
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
            type = check(frame, group, peer);
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

    /**
     * Checks a frame of an established connection from {@code peer}: magic, version, a known type
     * that is not a handshake's, this group, the peer as source.
     *
     * @return the frame's type
     * @throws MalformedFrameException when a check fails
     */
    static FrameType check(ByteBuf frame, int group, int peer) {
        FrameType type = FrameCodec.validate(frame);
        if (type == FrameType.HELLO || type == FrameType.HELLO_ACK) {
            throw new MalformedFrameException("handshake frame on an established connection");
        }
        if (FrameCodec.group(frame) != group) {
            throw new MalformedFrameException("frame of another group (id " + FrameCodec.group(frame) + ")");
        }
        if (FrameCodec.source(frame) != peer) {
            throw new MalformedFrameException("frame names source rank " + FrameCodec.source(frame));
        }
        return type;
    }

    /**
     * Closes the connection because of {@code why} (this side's decision: silence, a protocol
     * error, a local close), telling the listener at once, before the close fails the pending
     * writes: the first, precise cause is what the group sees. On the channel's event loop.
     */
    void closeWith(Throwable why) {
        ChannelHandlerContext c = ctx;
        if (c == null) {
            return;
        }
        closeWith(c, why);
    }

    private void closeWith(ChannelHandlerContext ctx, Throwable why) {
        if (cause == null) {
            cause = why;
        }
        report();
        ctx.close();
    }

    /** Why the connection closed or is closing, or null while it is open (any thread). */
    Throwable closeCause() {
        return cause;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
        fail(ctx, t instanceof TooLongFrameException ? new MalformedFrameException("oversized frame: " + t.getMessage()) : t);
    }

    void fail(ChannelHandlerContext ctx, Throwable t) {
        if (t instanceof java.io.IOException io) {
            closeWith(ctx, PeerClosedException.reset(peer, io));
            return;
        }
        if (!(t instanceof MalformedFrameException)) {
            log.warn("closing the connection to rank {} after an unexpected error", peer, t);
        }
        closeWith(ctx, new PeerProtocolException("rank " + peer + ": " + t.getMessage(), t));
    }

    private void report() {
        if (!reported) {
            reported = true;
            listener.onClosed(peer, cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (cause == null) {
            cause = PeerClosedException.closed(peer);
        }
        report();
        ctx.fireChannelInactive();
    }
}
