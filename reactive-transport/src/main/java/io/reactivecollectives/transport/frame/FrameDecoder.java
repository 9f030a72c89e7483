package io.reactivecollectives.transport.frame;

import io.netty.channel.ChannelHandlerContext;
import io.reactivecollectives.store.wire.LengthPrefixedDecoder;

/**
 * Splits the inbound byte stream of a rank connection into frames (emitted without their length
 * field): the shared {@link LengthPrefixedDecoder} with this protocol's limits and errors. A large
 * frame that spans reads is emitted as a composite of the reads themselves (the consumer reduces or
 * copies each region where it lies, see {@code ReduceKernels.reduceIntoScattered}). A length under
 * the header size or over the limit fails the channel with a {@link MalformedFrameException} before
 * anything is allocated for it, and the rest of the stream is dropped.
 */
public final class FrameDecoder extends LengthPrefixedDecoder {

    /** Frames from this length up that span reads are assembled without copying. */
    public static final int SCATTER_MIN_BYTES = LengthPrefixedDecoder.SCATTER_MIN_BYTES;

    /** Null until {@link #wakeForFrames} (the handshake's frames are small). */
    private ReceiveLowWater lowWater;

    private static final Errors ERRORS = (length, min, max) -> new MalformedFrameException("frame length " + length
            + (length < min ? " is shorter than the header" : " is over the limit of " + max + " bytes"));

    /** @param maxPayload the largest payload a frame may carry */
    public FrameDecoder(int maxPayload) {
        super(FrameCodec.HEADER, FrameCodec.HEADER + maxPayload, 0, ERRORS);
    }

    /**
     * Changes the largest payload accepted from the next frame on (call on the channel's event loop):
     * a connection starts with the small {@link Handshake#MAX_PAYLOAD} limit and gets the group's
     * limit once its handshake passed, so an unauthenticated peer can make a rank buffer no more than
     * a handshake's worth of bytes.
     */
    public void limitPayload(int maxPayload) {
        maxFrameLength(FrameCodec.HEADER + maxPayload);
    }

    /**
     * From now on, while a large frame arrives, the socket wakes the event loop only once up to
     * {@code maxBytes} of its missing bytes have arrived (see {@link ReceiveLowWater}; native epoll
     * TCP without TLS only). Call on the channel's event loop, once the connection carries collectives.
     *
     * @param maxBytes the most bytes to gather before a wake-up; under 64 KiB: never set
     */
    public void wakeForFrames(int maxBytes) {
        lowWater = new ReceiveLowWater(maxBytes);
    }

    @Override
    protected void awaiting(ChannelHandlerContext ctx, int missingBytes) {
        if (lowWater != null) {
            lowWater.await(ctx.channel(), missingBytes);
        }
    }
}
