package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.reactivecollectives.transport.shm.ShmOutbound;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import reactor.core.publisher.Mono;

/**
 * The outbound end of the connection to one peer. A frame goes out as its header followed by the
 * payload buffer itself (a retained slice of the tensor: no copy), both written in one event-loop
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
public final class PeerLink {

    /** Payloads up to this size are copied into the frame's header buffer. */
    public static final int INLINE_BYTES = 16 * 1024;

    private final int peer;
    private final int self;
    private final int group;
    private final Channel channel;
    private final Channel[] stripes;
    private final PeerStripes link;
    /** The ring to the peer when it shares this host's memory ({@link MeshSharedMemory}), else null. */
    private volatile ShmOutbound shm;

    PeerLink(int peer, int self, int group, Channel[] stripes, PeerStripes link) {
        this.peer = peer;
        this.self = self;
        this.group = group;
        this.channel = stripes[0];
        this.stripes = stripes.clone();
        this.link = link;
    }

    /** The peer's rank. */
    public int peer() {
        return peer;
    }

    /** The connection's channel (the first stripe's, where the pair has several connections). */
    public Channel channel() {
        return channel;
    }

    /** From now on frames go through {@code out} (shared memory); the connection stays open. */
    void useSharedMemory(ShmOutbound out) {
        shm = out;
    }

    /** Whether frames go through shared memory. */
    boolean viaSharedMemory() {
        return shm != null;
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

    /**
     * Writes one frame with {@code payload} (ownership taken); completes when the frame was written
     * to the socket, errors when the write fails.
     */
    public Mono<Void> send(FrameType type, long seq, int tag, int step, int chunk, ByteBuf payload) {
        return send(type, seq, tag, step, chunk, 0L, 0L, payload);
    }

    /** {@link #send(FrameType, long, int, int, int, ByteBuf)} with the header's agreement fields. */
    public Mono<Void> send(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                           long agreementCount, ByteBuf payload) {
        if (type == FrameType.GOODBYE && stripes.length > 1) {
            Mono<?>[] all = new Mono<?>[stripes.length];
            for (int i = 0; i < stripes.length; i++) {
                all[i] = send(stripes[i], type, seq, tag, step, chunk, agreementWord, agreementCount,
                        i == stripes.length - 1 ? payload : payload.retainedSlice());
            }
            return Mono.when(all);
        }
        return send(route(type, chunk), type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    private Mono<Void> send(Channel ch, FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                            long agreementCount, ByteBuf payload) {
        return Mono.create(sink -> {
            ChannelFuture promise;
            try {
                promise = write(ch, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
            } catch (Throwable t) {
                sink.error(t);
                return;
            }
            listen(promise, sink);
        });
    }

    /**
     * Writes one frame with {@code payload} (ownership taken) and returns the write's future, for a
     * caller that listens itself instead of subscribing to {@link #send}; the future's cause goes
     * through {@link #writeFailure} for the error to report.
     *
     * @param type           the frame type
     * @param seq            the collective's sequence number
     * @param tag            the sub-operation
     * @param step           the algorithm's step
     * @param chunk          the piece of the step
     * @param agreementWord  the header's agreement word
     * @param agreementCount the header's agreement count
     * @param payload        the payload, released once written or on failure
     * @return the write's future
     * @throws RuntimeException when the header cannot be made ({@code payload} released)
     */
    public ChannelFuture writeFrame(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                                    long agreementCount, ByteBuf payload) {
        return write(route(type, chunk), type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    /**
     * Why a write of {@link #writeFrame} failed, as {@link #send} reports it.
     *
     * @param error the write future's cause
     * @return the error to report
     */
    public Throwable writeFailure(Throwable error) {
        return failure(error);
    }

    /** Writes one frame without waiting for it (abort notices); ownership of {@code payload} taken. */
    public void sendAndForget(FrameType type, long seq, int tag, int step, int chunk, ByteBuf payload) {
        try {
            write(route(type, chunk), type, seq, tag, step, chunk, 0L, 0L, payload);
        } catch (Throwable ignored) {
            // the connection is gone; the peer learns of the failure from that
        }
    }

    /**
     * Writes a message as {@code count} consecutive fragment frames (P2P) in one event-loop task.
     * {@code fragments[i]} ownership taken. Completes when the last was written.
     */
    public Mono<Void> sendFragments(int tag, ByteBuf[] fragments) {
        return Mono.create(sink -> {
            ShmOutbound ring = shm;
            ChannelPromise last = ring != null ? new DefaultChannelPromise(channel, ImmediateEventExecutor.INSTANCE)
                    : channel.newPromise();
            if (ring != null) {
                ByteBuf[] parts = new ByteBuf[2 * fragments.length];
                for (int i = 0; i < fragments.length; i++) {
                    parts[2 * i] = FrameCodec.encodeHeader(channel.alloc(), FrameType.P2P, group, 0, tag,
                            fragments.length, i, self, fragments[i].readableBytes(), 0);
                    parts[2 * i + 1] = fragments[i];
                }
                ring.write(parts, last);
                listen(last, sink);
                return;
            }
            Runnable task = () -> {
                for (int i = 0; i < fragments.length; i++) {
                    ByteBuf p = fragments[i];
                    ByteBuf h = FrameCodec.encodeHeader(channel.alloc(), FrameType.P2P, group, 0, tag, fragments.length,
                            i, self, p.readableBytes(), 0);
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
            listen(last, sink);
        });
    }

    private void listen(ChannelFuture written, reactor.core.publisher.MonoSink<Void> sink) {
        if (written.isDone()) {
            settle(written, sink);   // in the shared-memory ring already: no listener to run on the event loop
        } else {
            written.addListener(f -> settle(written, sink));
        }
    }

    private void settle(ChannelFuture written, reactor.core.publisher.MonoSink<Void> sink) {
        if (written.isSuccess()) {
            sink.success();
        } else {
            sink.error(failure(written.cause()));
        }
    }

    private ChannelFuture write(Channel ch, FrameType type, long seq, int tag, int step, int chunk,
                                long agreementWord, long agreementCount, ByteBuf payload) {
        ShmOutbound ring = shm;
        if (ring != null) {
            return writeShared(ring, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
        }
        int len = payload.readableBytes();
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
     * A frame into the shared-memory ring: copied in at once where nothing waits on the ring and it
     * fits (done when this returns), else queued behind what waits; completes on the writing thread,
     * with no hop through the socket's event loop.
     */
    private ChannelFuture writeShared(ShmOutbound ring, FrameType type, long seq, int tag, int step, int chunk,
                                      long agreementWord, long agreementCount, ByteBuf payload) {
        if (ring.tryWriteFrame(type, group, seq, tag, step, chunk, self, agreementWord, agreementCount, payload)) {
            return channel.newSucceededFuture();
        }
        ByteBuf header;
        try {
            header = FrameCodec.encodeHeaderOnHeap(type, group, seq, tag, step, chunk, self, agreementWord,
                    agreementCount, payload.readableBytes());
        } catch (Throwable t) {
            payload.release();
            throw t;
        }
        ChannelPromise written = new DefaultChannelPromise(channel, ImmediateEventExecutor.INSTANCE);
        ring.write(new ByteBuf[] {header, payload}, written);
        return written;
    }

    /** Closes the connection from this side (the mesh is closing); the listener hears why. */
    void closeHere() {
        closeWith(PeerClosedException.closedHere(peer));
    }

    /**
     * Ends the connection from this side after everything written to it (see
     * {@link PeerStripes#endGracefully}); completes once the peer closed every stripe in turn.
     */
    Mono<Void> endGracefully() {
        return link.endGracefully(PeerClosedException.closedHere(peer));
    }

    /** Closes the connection (every stripe) from this side for {@code why}, which the listener hears (any thread). */
    void closeWith(Throwable why) {
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
        return "PeerLink[" + self + "->" + peer + " " + channel + (stripes.length > 1 ? " +" + (stripes.length - 1)
                + " stripes" : "") + "]";
    }
}
