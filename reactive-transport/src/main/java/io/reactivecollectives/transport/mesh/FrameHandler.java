package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.MalformedFrameException;

/**
 * The inbound end of an established socket connection ({@link SocketLink}): validates each frame
 * (magic, version, known type, this group, the peer's rank as source, no handshake after the
 * handshake: {@link FrameCodec#validateEstablished}, the rules every link shares; its length bounded
 * by the decoder before it) and hands it, with the type the check decoded, straight to the
 * mesh's {@link FrameListener} ({@link PeerStripes#listener()}; only the end of the connection goes
 * through {@link MeshSharedMemory#closesAfterFrames}). A bad or oversized frame closes the connection with an error naming the
 * peer; nothing is allocated for a frame before its length has been checked. The listener hears of
 * the end of the connection exactly once, with a typed cause: the one this side closed it for
 * ({@link PeerSilentException}, {@link PeerProtocolException}, ...), reported before the close, or
 * else a {@link PeerClosedException} (orderly close or reset by the peer).
 *
 * <p>One handler per connection; where a pair of ranks has several (stripes), their handlers share
 * one {@link PeerStripes}, which reports the end once for the whole link and closes the other
 * stripes with it. A GOODBYE marks the peer's orderly departure on its stripe: the peer sends one on
 * every stripe after everything it wrote there, and only stripe 0's reaches the listener (after the
 * point-to-point fragments, which travel on stripe 0 alone); a stripe the peer closes after its
 * GOODBYE ends alone, leaving the others to deliver what they still hold (see {@link PeerStripes}).
 */
final class FrameHandler extends ChannelInboundHandlerAdapter {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FrameHandler.class);

    private final int peer;
    private final int group;
    private final int stripe;
    private final PeerStripes link;
    private final FrameListener listener;
    /** The subgroups' ids the mesh carries besides its own. */
    private final java.util.function.IntPredicate carried;
    /** The peer said GOODBYE on this connection: its close is an orderly departure. */
    private boolean departing;
    private ChannelHandlerContext ctx;

    FrameHandler(int peer, int group, int stripe, PeerStripes link) {
        this.peer = peer;
        this.group = group;
        this.stripe = stripe;
        this.link = link;
        this.listener = link.listener();
        this.carried = listener::carries;
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
            type = FrameCodec.validateEstablished(frame, group, carried, peer);
        } catch (MalformedFrameException e) {
            frame.release();
            fail(ctx, e);
            return;
        }
        if (type == FrameType.HEARTBEAT) {
            frame.release();
            return;
        }
        link.touch();
        if (type == FrameType.RETIRE) {
            int step = FrameCodec.step(frame);
            frame.release();
            try {
                link.retireFrame(step);
            } catch (MalformedFrameException e) {
                fail(ctx, e);
            }
            return;
        }
        if (type == FrameType.GOODBYE && FrameCodec.group(frame) == group) {   // a carried subgroup's is its own affair
            departing = true;
            if (stripe != 0) {
                frame.release();  // the end of this stripe's frames; the listener hears stripe 0's
                return;
            }
        }
        listener.onFrame(peer, type, frame);
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
        link.fail(why);
        ctx.close();
    }

    /** Why the connection (or another stripe of its link) closed or is closing, or null while open (any thread). */
    Throwable closeCause() {
        return link.cause();
    }

    /**
     * Keeps a TLS peer's close_notify from closing the connection at once: Reactor Netty's bridge
     * closes the channel on {@link SslCloseCompletionEvent}, while frames the TLS handler decrypted
     * from the same read may still be on their way here. The connection ends on the TCP end of
     * stream that follows the peer's close_notify, after every frame before it was read.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslCloseCompletionEvent) {
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
        fail(ctx, t instanceof TooLongFrameException ? new MalformedFrameException("oversized frame: " + t.getMessage()) : t);
    }

    void fail(ChannelHandlerContext ctx, Throwable t) {
        if (t instanceof java.io.IOException io) {
            if (departing) {
                // after its GOODBYE the peer may reset this stripe (its socket closed with bytes unread,
                // e.g. a TLS close_notify answer): the end of this stripe alone, as an orderly close
                link.departed(stripe, PeerClosedException.reset(peer, io));
                ctx.close();
                return;
            }
            closeWith(ctx, PeerClosedException.reset(peer, io));
            return;
        }
        if (!(t instanceof MalformedFrameException)) {
            log.warn("closing the connection to rank {} after an unexpected error", peer, t);
        }
        closeWith(ctx, new PeerProtocolException("rank " + peer + ": " + t.getMessage(), t));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (departing) {
            link.departed(stripe, PeerClosedException.closed(peer));
        } else {
            link.fail(PeerClosedException.closed(peer));
        }
        ctx.fireChannelInactive();
    }
}
