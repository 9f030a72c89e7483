package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import reactor.core.publisher.Mono;

/**
 * The link to one peer over sockets ({@link PeerLink}): TCP, or a Unix domain socket between ranks
 * of one host; {@link FrameHandler} checks what arrives on each connection and delivers it to the
 * listener. A frame goes out as its header followed by the payload buffer itself (a retained slice of the tensor: no copy), both written in one event-loop
 * task so frames never interleave; payloads of up to {@link #INLINE_BYTES} are copied into the
 * header buffer instead (one small off-heap copy buys one write instead of two and lets the caller
 * reuse the memory at once).
 *
 * <p>Where the pair has several connections ({@link MeshOptions#connectionsPerPeer()}), a DATA frame
 * goes on stripe {@code chunk mod stripes}, so the segments of one step (numbered by their chunk)
 * spread over the connections and their event loops; the receiving mailbox keys DATA by (sequence,
 * tag, step, chunk, source) and does not care which arrives first. Every other frame goes on stripe
 * 0, in order: point-to-point fragments, ABORT, GROUP_ABORT, ACK (a DATA frame that arrives after
 * its collective's ABORT is released by the mailbox like any late frame). GOODBYE goes on every
 * stripe, after everything written there before it, and completes when written on all: the peer
 * then knows each stripe's end (see {@link FrameHandler}).
 */
public final class SocketLink implements PeerLink {

    /** Payloads up to this size are copied into the frame's header buffer. */
    public static final int INLINE_BYTES = 16 * 1024;

    private final int peer;
    private final int self;
    private final int group;
    private final Channel channel;
    private final Channel[] stripes;
    private final PeerStripes link;

    SocketLink(int peer, int self, int group, Channel[] stripes, PeerStripes link) {
        this.peer = peer;
        this.self = self;
        this.group = group;
        this.channel = stripes[0];
        this.stripes = stripes.clone();
        this.link = link;
        link.socketLink(this);
    }

    /** The stripes this link writes to, whose end is its end. */
    PeerStripes stripesOf() {
        return link;
    }

    @Override
    public int peer() {
        return peer;
    }

    /** The connection's channel (the first stripe's, where the pair has several connections). */
    public Channel channel() {
        return channel;
    }

    /** {@code "unix"} over a Unix domain socket, else {@code "tcp"}. */
    @Override
    public String transport() {
        return MeshSockets.isLocal(channel) ? "unix" : "tcp";
    }

    @Override
    public FrameListener listener() {
        return link.listener();
    }

    /**
     * The number of connections to the peer.
     *
     * @return 1, or the stripes of a pair with several connections
     */
    public int stripes() {
        return stripes.length;
    }

    /**
     * The channel of one connection to the peer.
     *
     * @param stripe which connection, from 0 to {@link #stripes()} - 1
     * @return its channel
     */
    public Channel channel(int stripe) {
        return stripes[stripe];
    }

    /** Whether the connection (every stripe of it) is open. */
    @Override
    public boolean isActive() {
        for (Channel c : stripes) {
            if (!c.isActive()) {
                return false;
            }
        }
        return true;
    }

    /** The connection a frame of {@code type} with {@code chunk} goes on. */
    private Channel route(FrameType type, int chunk) {
        return type == FrameType.DATA && stripes.length > 1 ? stripes[Math.floorMod(chunk, stripes.length)] : channel;
    }

    /** A GOODBYE goes on every stripe, after everything written there, and completes when written on all. */
    @Override
    public Mono<Void> send(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                           long agreementCount, ByteBuf payload) {
        if (type == FrameType.GOODBYE && stripes.length > 1) {
            Mono<?>[] all = new Mono<?>[stripes.length];
            for (int i = 0; i < stripes.length; i++) {
                ByteBuf p = i == stripes.length - 1 ? payload : payload.retainedSlice();
                Channel ch = stripes[i];
                all[i] = Mono.<Void>create(sink -> {
                    ChannelFuture written;
                    try {
                        written = write(ch, group, type, seq, tag, step, chunk, agreementWord, agreementCount, p);
                    } catch (Throwable t) {
                        sink.error(t);
                        return;
                    }
                    settleWhenDone(written, sink);
                });
            }
            return Mono.when(all);
        }
        return PeerLink.super.send(type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    /** On the stripe of the frame's chunk for DATA, else on the first. */
    @Override
    public ChannelFuture writeFrame(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                                    long agreementCount, ByteBuf payload) {
        return write(route(type, chunk), group, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    @Override
    public ChannelFuture writeFrameAs(int group, FrameType type, long seq, int tag, int step, int chunk,
                                      long agreementWord, long agreementCount, ByteBuf payload) {
        return write(route(type, chunk), group, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    @Override
    public Throwable writeFailure(Throwable error) {
        return failure(error);
    }

    /** The fragments go on the first stripe in one event-loop task. */
    @Override
    public Mono<Void> sendFragments(int tag, long kind, ByteBuf[] fragments) {
        return sendFragmentsAs(group, tag, kind, fragments);
    }

    @Override
    public Mono<Void> sendFragmentsAs(int group, int tag, long kind, ByteBuf[] fragments) {
        return Mono.create(sink -> {
            ChannelPromise last = channel.newPromise();
            Runnable task = () -> {
                for (int i = 0; i < fragments.length; i++) {
                    ByteBuf p = fragments[i];
                    ByteBuf h = FrameCodec.encodeHeader(channel.alloc(), FrameType.P2P, group, 0, tag, fragments.length,
                            i, self, kind, 0L, p.readableBytes(), 0);
                    channel.write(h, channel.voidPromise());
                    if (i == fragments.length - 1) {
                        channel.write(p, last);
                    } else {
                        channel.write(p, channel.voidPromise());
                    }
                }
                channel.flush();
            };
            try {
                if (channel.eventLoop().inEventLoop()) {
                    task.run();
                } else {
                    channel.eventLoop().execute(task);
                }
            } catch (Throwable t) {
                for (ByteBuf f : fragments) {
                    ReferenceCountUtil.safeRelease(f);
                }
                sink.error(t);
                return;
            }
            settleWhenDone(last, sink);
        });
    }

    private ChannelFuture write(Channel ch, int group, FrameType type, long seq, int tag, int step, int chunk,
                                long agreementWord, long agreementCount, ByteBuf payload) {
        int len = payload.readableBytes();
        link.touch();
        ByteBuf header;
        try {
            header = FrameCodec.encodeHeader(ch.alloc(), type, group, seq, tag, step, chunk, self, agreementWord,
                    agreementCount, len, len <= INLINE_BYTES ? len : 0);
        } catch (Throwable t) {
            payload.release();
            throw t;
        }
        ChannelPromise promise = ch.newPromise();
        if (len <= INLINE_BYTES) {
            header.writeBytes(payload, payload.readerIndex(), len);
            payload.release();
            ch.writeAndFlush(header, promise);
            return promise;
        }
        if (ch.eventLoop().inEventLoop()) {
            ch.write(header, ch.voidPromise());
            ch.writeAndFlush(payload, promise);
        } else {
            CompositeByteBuf frame = ch.alloc().compositeDirectBuffer(2);
            frame.addComponents(true, header, payload);
            ChannelFuture ignored = ch.writeAndFlush(frame, promise);
        }
        return promise;
    }

    /**
     * Ends the connection from this side after everything written to it (see
     * {@link PeerStripes#endGracefully}); completes once the peer closed every stripe in turn.
     */
    @Override
    public Mono<Void> endGracefully() {
        return link.endGracefully(PeerClosedException.closedHere(peer));
    }

    /** Closes the connection (every stripe) from this side for {@code why}, which the listener hears (any thread). */
    @Override
    public void closeWith(Throwable why) {
        link.closeWith(why);
    }

    /**
     * Why a write failed: the cause the connection was closed for when this side closed it (a
     * silent peer, a protocol error), else a {@link PeerClosedException} for a connection the peer
     * closed or reset, else {@code error} itself.
     */
    private Throwable failure(Throwable error) {
        Throwable why = link.cause();
        if (why != null) {
            return why;
        }
        if (error instanceof java.nio.channels.ClosedChannelException) {
            return PeerClosedException.closed(peer);
        }
        return error instanceof java.io.IOException io ? PeerClosedException.reset(peer, io) : error;
    }

    @Override
    public String toString() {
        return "SocketLink[" + self + "->" + peer + " " + channel + (stripes.length > 1 ? " +" + (stripes.length - 1)
                + " stripes" : "") + "]";
    }
}
