package io.reactivecollectives.store.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Splits the inbound byte stream into frames of the form {@code length:int32 body} and emits each
 * body without its length field, with at most one copy per byte and no re-copying:
 * <ul>
 *   <li>a frame that lies whole in one inbound read buffer is emitted as a retained slice of it
 *       (no copy);</li>
 *   <li>a large frame ({@link #SCATTER_MIN_BYTES} or more) that spans reads is emitted as a
 *       composite of retained slices of those reads (no copy);</li>
 *   <li>a smaller frame that spans reads gets one buffer of exactly its size from the channel's
 *       allocator, allocated once its length has been checked, and each read's bytes are copied
 *       into it once.</li>
 * </ul>
 * (Netty's {@code LengthFieldBasedFrameDecoder} re-copies its whole cumulation whenever a frame
 * sliced from it is still held, which large pipelined frames always are.)
 *
 * <p>A length under the minimum or over the current maximum fails the channel
 * ({@code exceptionCaught}) with the protocol's own exception from {@link Errors#badLength} before
 * anything is allocated for it, and the rest of the stream is dropped. The maximum may change
 * between frames ({@link #maxFrameLength(int)}, event loop only): a connection typically starts
 * with a handshake's limit and gets the full one once authenticated.
 *
 * <p>With a {@link FrameMemoryBudget} (a server facing untrusted clients), a frame that does not
 * arrive whole in one read reserves its declared length from the budget before anything is
 * allocated for it; when the budget cannot
 * cover it the connection stops reading until it can, so all that incomplete frames hold across the
 * server's connections stays within the budget whatever lengths clients announce. Large frames are
 * kept as copies of what arrived, so memory follows the bytes received, not those announced.
 *
 * <p>With a frame timeout, a frame that has begun to arrive must be complete within it: a peer
 * that sends part of a frame and stalls fails the channel with {@link Errors#stalled}.
 * Subclasses name the protocol's decoder (so a pipeline can look it up by class); the splitting
 * is all here.
 */
public class LengthPrefixedDecoder extends ChannelInboundHandlerAdapter {

    /** Frames from this length up that span reads are assembled without copying. */
    public static final int SCATTER_MIN_BYTES = 32 * 1024;

    /** Bytes of the length field. */
    public static final int LENGTH_FIELD = 4;

    /** The exceptions of a protocol for a bad length and for a stalled frame. */
    public interface Errors {
        /** The error of a frame length under {@code min} or over {@code max}. */
        RuntimeException badLength(int length, int min, int max);

        /** The error of a frame of which {@code buffered} bytes arrived and nothing more for {@code waitedMillis}. */
        default RuntimeException stalled(int buffered, long waitedMillis) {
            return new IllegalStateException("incomplete frame: " + buffered + " bytes of a frame and nothing more for "
                    + waitedMillis + " ms");
        }
    }

    private final int minFrameLength;
    private final Errors errors;
    /** 0: no frame timeout. */
    private final long frameTimeoutNanos;
    /** Null: frames are not budgeted (a mesh link's own peer, which is trusted after its handshake). */
    private final FrameMemoryBudget budget;
    private int maxFrameLength;
    /** The piece of a large budgeted frame being filled, added to {@link #current} once full. */
    private ByteBuf chunk;
    /** Bytes of {@link #budget} the frame now arriving holds. */
    private long reserved;
    /** Bytes that arrived while this connection waits for the budget (at most about two reads). */
    private ByteBuf held;
    /** The retry queued at the budget while this connection waits for it, else null. */
    private Runnable budgetRetry;
    private int lengthBytes;
    private int length;
    private ByteBuf current;
    private boolean failed;
    /** When the partial frame now buffered began to arrive; 0 when none is. */
    private long partialSinceNanos;
    private ScheduledFuture<?> stallCheck;

    /**
     * @param minFrameLength    the shortest body a length may announce
     * @param maxFrameLength    the longest body a length may announce, until changed
     * @param frameTimeoutNanos how long a begun frame may take to arrive whole (0: no limit)
     * @param errors            the protocol's exceptions
     */
    public LengthPrefixedDecoder(int minFrameLength, int maxFrameLength, long frameTimeoutNanos, Errors errors) {
        this(minFrameLength, maxFrameLength, frameTimeoutNanos, null, errors);
    }

    /**
     * A decoder whose incomplete frames hold memory of {@code budget} (null: none), shared with the
     * other connections of a server: a frame that does not arrive whole in one read first reserves its
     * declared length, and the connection stops reading until it can.
     */
    public LengthPrefixedDecoder(int minFrameLength, int maxFrameLength, long frameTimeoutNanos,
                                 FrameMemoryBudget budget, Errors errors) {
        if (budget != null && maxFrameLength > budget.limit()) {
            throw new IllegalArgumentException("frames of up to " + maxFrameLength + " bytes cannot fit a frame memory"
                    + " budget of " + budget.limit() + " bytes");
        }
        this.budget = budget;
        this.minFrameLength = minFrameLength;
        this.maxFrameLength = maxFrameLength;
        this.frameTimeoutNanos = frameTimeoutNanos;
        this.errors = errors;
    }

    /** Changes the longest body accepted from the next frame on (call on the channel's event loop). */
    public final void maxFrameLength(int max) {
        this.maxFrameLength = max;
    }

    /** Ignores everything that arrives from now on (the connection is being closed; event loop only). */
    public final void stop() {
        failed = true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        if (budgetRetry != null) {
            hold(ctx, in); // a read already under way when reading stopped
            return;
        }
        try {
            decode(ctx, in);
        } finally {
            in.release();
        }
        if (!failed) {
            awaiting(ctx, current == null ? 0 : length - bodyBytesHere());
        }
    }

    /**
     * Called after each inbound buffer has been split, with the bytes still missing of the frame now
     * arriving (0 when no frame is partly here): a subclass may ask its socket to wake it only once
     * more of them have arrived (the mesh's {@code SO_RCVLOWAT}). Event loop only; does nothing here.
     *
     * @param ctx          the decoder's context
     * @param missingBytes bytes of the partial frame still to come, or 0
     */
    protected void awaiting(ChannelHandlerContext ctx, int missingBytes) {
    }

    private void decode(ChannelHandlerContext ctx, ByteBuf in) {
        while (!failed && in.isReadable()) {
            if (partialSinceNanos == 0 && frameTimeoutNanos > 0) {
                startStallClock(ctx);
            }
            if (current == null) {
                while (lengthBytes < LENGTH_FIELD && in.isReadable()) {
                    length = (length << 8) | in.readUnsignedByte();
                    lengthBytes++;
                }
                if (lengthBytes < LENGTH_FIELD) {
                    return;
                }
                if (length < minFrameLength || length > maxFrameLength) {
                    failed = true;
                    ctx.fireExceptionCaught(errors.badLength(length, minFrameLength, maxFrameLength));
                    return;
                }
                if (in.readableBytes() >= length) {
                    ByteBuf frame = in.retainedSlice(in.readerIndex(), length);
                    in.skipBytes(length);
                    emit(ctx, frame);
                    continue;
                }
                if (budget != null) {
                    if (!budget.tryReserve(length)) {
                        waitForBudget(ctx, in);
                        return;
                    }
                    reserved = length;
                    current = budgeted(ctx);
                } else {
                    current = length >= SCATTER_MIN_BYTES ? ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE)
                            : ctx.alloc().directBuffer(length, length);
                }
            }
            int n = Math.min(length - current.writerIndex(), in.readableBytes());
            if (budget != null && current instanceof CompositeByteBuf) {
                copyInChunks(ctx, (CompositeByteBuf) current, in);
            } else if (current instanceof CompositeByteBuf) {
                ((CompositeByteBuf) current).addComponent(true, in.retainedSlice(in.readerIndex(), n));
                in.skipBytes(n);
            } else {
                current.writeBytes(in, n);
            }
            if (current.writerIndex() == length) {
                ByteBuf frame = current;
                current = null;
                emit(ctx, frame);
            }
        }
    }

    /**
     * Copies what {@code in} holds of a large budgeted frame into the budget's chunks
     * ({@link FrameMemoryBudget#chunk}, the last one exact), each added to {@code frame} once full:
     * memory grows with the bytes received, never past the reservation, and the chunks a closed
     * connection held serve the next one, whatever its event loop.
     */
    private void copyInChunks(ChannelHandlerContext ctx, CompositeByteBuf frame, ByteBuf in) {
        int n = Math.min(length - frame.writerIndex() - (chunk == null ? 0 : chunk.readableBytes()), in.readableBytes());
        while (n > 0) {
            if (chunk == null) {
                chunk = budget.chunk(ctx.alloc(), Math.min(FrameMemoryBudget.CHUNK, length - frame.writerIndex()));
            }
            int k = Math.min(n, chunk.writableBytes());
            chunk.writeBytes(in, k);
            n -= k;
            if (!chunk.isWritable()) {
                frame.addComponent(true, chunk);
                chunk = null;
            }
        }
    }

    /**
     * The buffer of a budgeted frame: small ones at once (one exact buffer), large ones as the copies
     * of what arrives (so a client that announces much and sends little gets little memory).
     */
    private ByteBuf budgeted(ChannelHandlerContext ctx) {
        return length >= SCATTER_MIN_BYTES ? Unpooled.compositeBuffer(Integer.MAX_VALUE)
                : ctx.alloc().directBuffer(length, length);
    }

    /** The budget cannot cover the frame just announced: stop reading, keep what came, wait in line. */
    private void waitForBudget(ChannelHandlerContext ctx, ByteBuf in) {
        ctx.channel().config().setAutoRead(false);
        hold(ctx, in.retain());
        queueRetry(ctx);
    }

    private void queueRetry(ChannelHandlerContext ctx) {
        budgetRetry = () -> ctx.executor().execute(() -> retryBudget(ctx));
        budget.await(length, budgetRetry);
    }

    private void retryBudget(ChannelHandlerContext ctx) {
        if (budgetRetry == null || failed || !ctx.channel().isActive()) {
            return;
        }
        if (!budget.tryReserve(length)) {
            queueRetry(ctx);
            return;
        }
        budgetRetry = null;
        reserved = length;
        current = budgeted(ctx);
        partialSinceNanos = System.nanoTime(); // the frame's time starts now: the wait was the server's
        ByteBuf h = held;
        held = null;
        try {
            decode(ctx, h);
        } finally {
            h.release();
        }
        if (budgetRetry == null) { // not waiting again for a later frame of what was held
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Keeps {@code in}'s unread bytes (releasing {@code in}) while waiting for the budget. */
    private void hold(ChannelHandlerContext ctx, ByteBuf in) {
        try {
            if (held == null) {
                held = ctx.alloc().heapBuffer(Math.max(in.readableBytes(), 256));
            }
            held.writeBytes(in);
        } finally {
            in.release();
        }
    }

    private void emit(ChannelHandlerContext ctx, ByteBuf frame) {
        lengthBytes = 0;
        length = 0;
        partialSinceNanos = 0;
        long r = reserved;
        reserved = 0;
        try {
            ctx.fireChannelRead(frame); // handled, and released, before this returns
        } finally {
            if (r > 0) {
                budget.release(r);
            }
        }
    }

    private void startStallClock(ChannelHandlerContext ctx) {
        partialSinceNanos = System.nanoTime();
        if (stallCheck == null) {
            stallCheck = ctx.executor().schedule(() -> checkStall(ctx), frameTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Fails the connection if the partial frame it holds is older than the frame timeout. */
    private void checkStall(ChannelHandlerContext ctx) {
        stallCheck = null;
        if (failed || partialSinceNanos == 0 || !ctx.channel().isActive()) {
            return;
        }
        long waited = System.nanoTime() - partialSinceNanos;
        if (waited < frameTimeoutNanos || budgetRetry != null) { // waiting for the budget is the server's wait
            stallCheck = ctx.executor().schedule(() -> checkStall(ctx), Math.max(frameTimeoutNanos - waited,
                    frameTimeoutNanos / 4), TimeUnit.NANOSECONDS);
            return;
        }
        failed = true;
        int buffered = lengthBytes + bodyBytesHere();
        ctx.fireExceptionCaught(errors.stalled(buffered, TimeUnit.NANOSECONDS.toMillis(waited)));
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

    /** Bytes of the partial frame's body received so far (in {@link #current} and the chunk being filled). */
    private int bodyBytesHere() {
        return (current == null ? 0 : current.writerIndex()) + (chunk == null ? 0 : chunk.readableBytes());
    }

    private void releasePartial() {
        if (stallCheck != null) {
            stallCheck.cancel(false);
            stallCheck = null;
        }
        if (current != null) {
            ReferenceCountUtil.safeRelease(current);
            current = null;
        }
        if (held != null) {
            ReferenceCountUtil.safeRelease(held);
            held = null;
        }
        if (chunk != null) {
            ReferenceCountUtil.safeRelease(chunk);
            chunk = null;
        }
        if (budgetRetry != null) {
            budget.cancel(budgetRetry);
            budgetRetry = null;
        }
        if (reserved > 0) {
            long r = reserved;
            reserved = 0;
            budget.release(r);
        }
    }
}
