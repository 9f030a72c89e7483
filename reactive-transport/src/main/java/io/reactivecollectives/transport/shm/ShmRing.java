package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One direction between two local ranks: a single-producer, single-consumer byte pipe in shared
 * memory, the same byte stream a socket would carry (length-prefixed frames), so a frame of any
 * size streams through a ring smaller than itself and frames keep the socket's order.
 *
 * <p>Control words, each on its own cache line: the producer's position ({@code tail}, written only
 * by the producer, with release), the consumer's ({@code head}, written only by the consumer, with
 * release), and {@code waiting}, set by a producer that found the ring full and cleared by the
 * consumer that freed space and woke it. Positions grow without wrapping (64 bits); the data index
 * is the position modulo the capacity, a power of two.
 *
 * <p>Each side keeps its own position in a field and a copy of the other side's last seen position,
 * so a small write reads no line the other process wrote unless the ring looked full, and a write
 * of several buffers (a header and its payload) is published once, as one store of {@code tail}.
 */
final class ShmRing {

    static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** Bytes of the control block in front of the data. */
    static final int CONTROL_BYTES = 4096;
    private static final int TAIL = 0;
    private static final int HEAD = 128;
    private static final int WAITING = 256;

    private final ByteBuffer map;
    private final int control;
    private final long data;
    private final int capacity;
    private final int mask;
    /** The producer's position, published or not, and the last one published (producer only). */
    private long tail;
    private long publishedTail;
    /** The consumer's position as the producer last read it (producer only). */
    private long seenHead;
    /** The consumer's position and the last one released (consumer only). */
    private long head;
    private long releasedHead;

    /**
     * @param map      the whole shared mapping
     * @param address  the mapping's address
     * @param offset   where this ring's control block starts in the mapping
     * @param capacity data bytes, a power of two
     */
    ShmRing(ByteBuffer map, long address, int offset, int capacity) {
        this.map = map;
        this.control = offset;
        this.data = address + offset + CONTROL_BYTES;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.tail = (long) LONGS.getOpaque(map, control + TAIL);
        this.publishedTail = tail;
        this.seenHead = (long) LONGS.getAcquire(map, control + HEAD);
        this.head = seenHead;
        this.releasedHead = head;
    }

    // ---- producer side ----

    /**
     * Copies up to {@code length} bytes of {@code src} from {@code index} into the ring, as many as
     * fit; they are visible to the consumer after {@link #publish()}.
     *
     * @return the bytes written (0 when the ring is full)
     */
    int write(ByteBuf src, int index, int length) {
        long t = tail;
        int n = Math.min(length, room(length));
        if (n <= 0) {
            return 0;
        }
        int pos = (int) (t & mask);
        int first = Math.min(n, capacity - pos);
        copyIn(src, index, data + pos, first);
        if (n > first) {
            copyIn(src, index + first, data, n - first);
        }
        tail = t + n;
        return n;
    }

    /** Whether {@code length} bytes fit in the ring now. */
    boolean fits(int length) {
        return room(length) >= length;
    }

    /**
     * The free space the producer may write to; reads the consumer's position only when the last
     * one seen leaves less than {@code wanted}.
     */
    private int room(int wanted) {
        int free = capacity - (int) (tail - seenHead);
        if (free < wanted) {
            seenHead = (long) LONGS.getAcquire(map, control + HEAD);
            free = capacity - (int) (tail - seenHead);
        }
        return free;
    }

    /** Drops what was written since the last {@link #publish()} (the consumer never saw it). */
    void unwrite() {
        tail = publishedTail;
    }

    /** Makes everything written so far visible to the consumer (one release store; none if nothing is new). */
    void publish() {
        if (publishedTail != tail) {
            publishedTail = tail;
            LONGS.setRelease(map, control + TAIL, tail);
        }
    }

    /** Bytes the producer could write now, from the shared positions (any thread). */
    int free() {
        return capacity - (int) ((long) LONGS.getOpaque(map, control + TAIL) - (long) LONGS.getAcquire(map, control + HEAD));
    }

    /** Marks the producer as waiting for space (a full fence follows, so a recheck of the space is valid). */
    void markWaiting() {
        INTS.setVolatile(map, control + WAITING, 1);
    }

    private static void copyIn(ByteBuf src, int index, long dst, int n) {
        if (src.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.memoryAddress() + index, dst, n);
        } else if (src.hasArray()) {
            PlatformDependent.copyMemory(src.array(), src.arrayOffset() + index, dst, n);
        } else {
            long at = dst;
            for (ByteBuffer part : src.nioBuffers(index, n)) {
                int len = part.remaining();
                if (part.isDirect()) {
                    PlatformDependent.copyMemory(PlatformDependent.directBufferAddress(part) + part.position(), at, len);
                } else {
                    PlatformDependent.copyMemory(part.array(), part.arrayOffset() + part.position(), at, len);
                }
                at += len;
            }
        }
    }

    // ---- consumer side ----

    /** Bytes published and not yet consumed (consumer only). */
    int available() {
        return (int) ((long) LONGS.getAcquire(map, control + TAIL) - head);
    }

    /** The big-endian int at the consumer's position (at least four bytes must be available). */
    int peekInt() {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = (v << 8) | (PlatformDependent.getByte(data + ((head + i) & mask)) & 0xff);
        }
        return v;
    }

    /**
     * The {@code length} bytes that start {@code skip} bytes past the consumer's position, which lie
     * in one piece ({@link #contiguous}), as a view of the shared memory where they lie. Nothing is
     * consumed: the producer cannot overwrite them until they are.
     */
    ByteBuffer view(int skip, int length) {
        return slice(at(skip), length);
    }

    /**
     * {@link #view} of bytes that wrap around the ring's end: the piece up to the end ({@code part}
     * 0) or the rest from the start (1).
     */
    ByteBuffer wrappedView(int skip, int length, int part) {
        int first = capacity - at(skip);
        return part == 0 ? slice(capacity - first, first) : slice(0, length - first);
    }

    /** Whether the {@code length} bytes {@code skip} bytes past the consumer's position lie in one piece. */
    boolean contiguous(int skip, int length) {
        return at(skip) + length <= capacity;
    }

    /** The data offset {@code skip} bytes past the consumer's position. */
    private int at(int skip) {
        return (int) ((head + skip) & mask);
    }

    /** The mapping's {@code length} data bytes from data offset {@code pos}, as a buffer of their own. */
    private ByteBuffer slice(int pos, int length) {
        return map.slice(control + CONTROL_BYTES + pos, length);
    }

    /** Data bytes of the ring. */
    int capacity() {
        return capacity;
    }

    /** Copies {@code n} available bytes into {@code dst} (direct, with room) and consumes them. */
    void read(ByteBuf dst, int n) {
        int pos = at(0);
        int first = Math.min(n, capacity - pos);
        int w = dst.writerIndex();
        copyOut(pos, dst, w, first);
        if (n > first) {
            copyOut(0, dst, w + first, n - first);
        }
        dst.writerIndex(w + n);
        consume(n);
    }

    private void copyOut(int pos, ByteBuf dst, int index, int n) {
        if (dst.hasMemoryAddress()) {
            PlatformDependent.copyMemory(data + pos, dst.memoryAddress() + index, n);
        } else {
            dst.setBytes(index, slice(pos, n));
        }
    }

    /** Frees {@code n} bytes at the consumer's position, for the producer once {@link #release()}d. */
    void consume(int n) {
        head += n;
    }

    /** Hands the space consumed so far back to the producer (one release store; none if nothing is new). */
    void release() {
        if (releasedHead != head) {
            releasedHead = head;
            LONGS.setRelease(map, control + HEAD, head);
        }
    }

    /** After {@link #release()}: clears and answers the producer's waiting mark (with a full fence before the read). */
    boolean takeWaiting() {
        VarHandle.fullFence();
        return (int) INTS.getVolatile(map, control + WAITING) == 1
                && INTS.compareAndSet(map, control + WAITING, 1, 0);
    }
}
