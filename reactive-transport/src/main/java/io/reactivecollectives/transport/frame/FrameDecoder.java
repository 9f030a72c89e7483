package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Splits the inbound byte stream into frames (emitted without their length field) with at most
 * one copy per byte and no re-copying:
 * <ul>
 *   <li>a frame that lies whole in one inbound read buffer is emitted as a retained slice of it
 *       (no copy);</li>
 *   <li>a large frame ({@link #SCATTER_MIN_BYTES} or more) that spans reads is emitted as a
 *       composite of retained slices of those reads (no copy: the consumer reduces or copies each
 *       region where it lies, see {@code ReduceKernels.reduceIntoScattered});</li>
 *   <li>a smaller frame that spans reads gets one buffer of exactly its size from the channel's
 *       allocator, allocated once its length has been checked, and each read's bytes are copied
 *       into it once.</li>
 * </ul>
 * (Netty's {@code LengthFieldBasedFrameDecoder} re-copies its whole cumulation whenever a frame
 * sliced from it is still held, which large pipelined frames always are.) A length under the
 * header size or over the limit fails the channel with a {@link MalformedFrameException} before
 * anything is allocated for it, and the rest of the stream is dropped.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {

    /** Frames from this length up that span reads are assembled without copying. */
    public static final int SCATTER_MIN_BYTES = 32 * 1024;

    private int maxFrameLength;
    private int lengthBytes;
    private int length;
    private ByteBuf current;
    private boolean failed;

    /** @param maxPayload the largest payload a frame may carry */
    public FrameDecoder(int maxPayload) {
        this.maxFrameLength = FrameCodec.HEADER + maxPayload;
    }

    /**
     * Changes the largest payload accepted from the next frame on (call on the channel's event loop):
     * a connection starts with the small {@link Handshake#MAX_PAYLOAD} limit and gets the group's
     * limit once its handshake passed, so an unauthenticated peer can make a rank buffer no more than
     * a handshake's worth of bytes.
     */
    public void limitPayload(int maxPayload) {
        this.maxFrameLength = FrameCodec.HEADER + maxPayload;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        try {
            while (!failed && in.isReadable()) {
                if (current == null) {
                    while (lengthBytes < FrameCodec.LENGTH_FIELD && in.isReadable()) {
                        length = (length << 8) | in.readUnsignedByte();
                        lengthBytes++;
                    }
                    if (lengthBytes < FrameCodec.LENGTH_FIELD) {
                        return;
                    }
                    if (length < FrameCodec.HEADER || length > maxFrameLength) {
                        failed = true;
                        ctx.fireExceptionCaught(new MalformedFrameException("frame length " + length
                                + (length < FrameCodec.HEADER ? " is shorter than the header" : " is over the limit of "
                                + maxFrameLength + " bytes")));
                        return;
                    }
                    if (in.readableBytes() >= length) {
                        ByteBuf frame = in.retainedSlice(in.readerIndex(), length);
                        in.skipBytes(length);
                        lengthBytes = 0;
                        length = 0;
                        ctx.fireChannelRead(frame);
                        continue;
                    }
                    current = length >= SCATTER_MIN_BYTES ? ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE)
                            : ctx.alloc().directBuffer(length, length);
                }
                int n = Math.min(length - current.writerIndex(), in.readableBytes());
                if (current instanceof CompositeByteBuf) {
                    ((CompositeByteBuf) current).addComponent(true, in.retainedSlice(in.readerIndex(), n));
                    in.skipBytes(n);
                } else {
                    current.writeBytes(in, n);
                }
                if (current.writerIndex() == length) {
                    ByteBuf frame = current;
                    current = null;
                    lengthBytes = 0;
                    length = 0;
                    ctx.fireChannelRead(frame);
                }
            }
        } finally {
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePartial();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePartial();
    }

    private void releasePartial() {
        if (current != null) {
            ReferenceCountUtil.safeRelease(current);
            current = null;
        }
    }
}
