package io.reactivecollectives.transport.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;

import java.nio.ByteBuffer;

/**
 * A frame's bytes where the transport received them (a shared-memory ring), lent to whoever the
 * frame is delivered to for the duration of that one call: the receiver either finishes with it,
 * releasing it, before the call returns, or {@link #keep keeps} a copy. The transport reuses the
 * memory as soon as the call has returned and the buffer is released; until then it waits (a
 * receiver that holds on by mistake stalls its peer's stream, it never sees the bytes change).
 *
 * <p>Receivers that cannot promise that (a mailbox slot, a point-to-point queue, work handed to
 * another thread) call {@link #keep} on every buffer they store; for any other buffer it is the
 * identity, so callers need not know where a frame came from. Releasing a lent buffer frees nothing.
 */
public final class LentBuffer extends UnpooledUnsafeDirectByteBuf {

    /**
     * @param alloc the allocator that {@link #keep} and derived buffers use
     * @param view  the lent bytes (a direct buffer, position to limit); not freed on release
     */
    public LentBuffer(ByteBufAllocator alloc, ByteBuffer view) {
        super(alloc, view, view.remaining());
    }

    /**
     * A lent frame in two pieces (it wraps around the end of a ring): {@code first}'s bytes, then
     * {@code second}'s, as one composite buffer that is itself lent.
     *
     * @param alloc  the allocator that {@link #keep} and derived buffers use
     * @param first  the frame's first bytes
     * @param second the rest
     * @return the frame
     */
    public static ByteBuf of(ByteBufAllocator alloc, ByteBuffer first, ByteBuffer second) {
        return new Wrapped(alloc, new LentBuffer(alloc, first), new LentBuffer(alloc, second));
    }

    /** Whether {@code buf} (or the buffer it is a view of) is lent. */
    public static boolean isLent(ByteBuf buf) {
        ByteBuf b = buf;
        while (b != null) {
            if (b instanceof LentBuffer || b instanceof Wrapped) {
                return true;
            }
            b = b.unwrap();
        }
        return false;
    }

    /**
     * {@code buf} itself, or, when it is lent, a pooled copy of its readable bytes (reader index 0 of
     * the copy) with {@code buf} released: what a receiver stores beyond the call that handed it over.
     *
     * @param buf a buffer whose ownership passes here
     * @return a buffer the caller owns, independent of any transport memory
     */
    public static ByteBuf keep(ByteBuf buf) {
        if (!isLent(buf)) {
            return buf;
        }
        try {
            int n = buf.readableBytes();
            ByteBuf copy = buf.alloc().directBuffer(n, n);
            copy.writeBytes(buf, buf.readerIndex(), n);
            return copy;
        } finally {
            buf.release();
        }
    }

    @Override
    protected void freeDirect(ByteBuffer buffer) {
        // the memory belongs to the transport: nothing to free
    }

    /** Two lent pieces read as one (reduced and copied from where they lie, as socket reads are). */
    private static final class Wrapped extends CompositeByteBuf {
        Wrapped(ByteBufAllocator alloc, ByteBuf first, ByteBuf second) {
            super(alloc, true, 2, first, second);
        }
    }
}
