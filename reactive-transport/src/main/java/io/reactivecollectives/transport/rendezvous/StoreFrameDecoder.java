package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the byte stream into frame bodies ({@code length:int32 body}), emitting each body as a
 * retained slice. A length below the header size or above the current limit fails with a
 * {@link StoreProtocolException} before any of the body is buffered; the limit starts at
 * {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} where authentication is required and is raised once
 * the peer is authenticated ({@link #maxFrameSize(int)}, event-loop only).
 */
final class StoreFrameDecoder extends ByteToMessageDecoder {

    static final String NAME = "rc.store.frameDecoder";

    private int maxFrameSize;
    private boolean failed;

    StoreFrameDecoder(int maxFrameSize) {
        this.maxFrameSize = maxFrameSize;
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
                return;
            }
            in.skipBytes(StoreFrameCodec.LENGTH_FIELD);
            out.add(in.readRetainedSlice(length));
        }
    }
}
