package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Splits the byte stream into frame bodies ({@code length:int32 body}), emitting each body as a
 * retained slice. A length below the header size or above the current limit fails with a
 * {@link StoreProtocolException} before any of the body is buffered; the limit starts at
 * {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} where authentication is required and is raised once
 * the peer is authenticated ({@link #maxFrameSize(int)}, event-loop only).
 *
 * <p>With a frame timeout (the server's), a frame that has begun to arrive must be complete within
 * it: a peer that sends part of a frame and stalls (a careless or hostile client holding the
 * connection) fails with a {@link StoreProtocolException} once the timeout has passed.
 */
final class StoreFrameDecoder extends ByteToMessageDecoder {

    static final String NAME = "rc.store.frameDecoder";
    /** How the error of a stalled frame begins. */
    static final String STALLED = "incomplete frame";

    private int maxFrameSize;
    private boolean failed;
    /** 0: no frame timeout. */
    private final long frameTimeoutNanos;
    /** When the partial frame now buffered began to arrive; 0 when none is. */
    private long partialSinceNanos;
    private ScheduledFuture<?> stallCheck;

    StoreFrameDecoder(int maxFrameSize) {
        this(maxFrameSize, 0);
    }

    /** A decoder whose partial frames must be complete within {@code frameTimeoutNanos} (0: no limit). */
    StoreFrameDecoder(int maxFrameSize, long frameTimeoutNanos) {
        this.maxFrameSize = maxFrameSize;
        this.frameTimeoutNanos = frameTimeoutNanos;
    }

    /** Ignores everything that arrives from now on (the connection is being closed). */
    void stop() {
        failed = true;
    }

    void maxFrameSize(int max) {
        this.maxFrameSize = max;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) { // the connection is being closed: ignore whatever else arrives
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= StoreFrameCodec.LENGTH_FIELD) {
            int length = in.getInt(in.readerIndex());
            if (length < StoreFrameCodec.HEADER || length > maxFrameSize) {
                in.skipBytes(in.readableBytes());
                failed = true;
                throw new StoreProtocolException("frame length " + length + " outside " + StoreFrameCodec.HEADER
                        + ".." + maxFrameSize);
            }
            if (in.readableBytes() < StoreFrameCodec.LENGTH_FIELD + length) {
                break;
            }
            in.skipBytes(StoreFrameCodec.LENGTH_FIELD);
            out.add(in.readRetainedSlice(length));
            partialSinceNanos = 0;
        }
        if (in.isReadable() && frameTimeoutNanos > 0 && partialSinceNanos == 0) {
            partialSinceNanos = System.nanoTime();
            if (stallCheck == null) {
                stallCheck = ctx.executor().schedule(() -> checkStall(ctx), frameTimeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Fails the connection if the partial frame it holds is older than the frame timeout. */
    private void checkStall(ChannelHandlerContext ctx) {
        stallCheck = null;
        if (failed || partialSinceNanos == 0 || !ctx.channel().isActive()) {
            return;
        }
        long waited = System.nanoTime() - partialSinceNanos;
        if (waited < frameTimeoutNanos) {
            stallCheck = ctx.executor().schedule(() -> checkStall(ctx), frameTimeoutNanos - waited, TimeUnit.NANOSECONDS);
            return;
        }
        failed = true;
        ctx.fireExceptionCaught(new StoreProtocolException(STALLED + ": " + actualReadableBytes()
                + " bytes of a frame and nothing more for " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms"));
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (stallCheck != null) {
            stallCheck.cancel(false);
            stallCheck = null;
        }
    }
}
