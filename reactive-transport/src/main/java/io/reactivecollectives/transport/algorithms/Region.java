package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ByteCopies;

import java.util.Objects;

/**
 * A byte range of a buffer that an algorithm reads from or writes into: bytes
 * {@code [index, index + length)} of {@code buf} (absolute indexes; reader and writer indexes are
 * not used). Regions do not own a reference of {@code buf}; the tensor they view outlives the
 * collective.
 *
 * @param buf    the memory
 * @param index  first byte
 * @param length number of bytes
 */
public record Region(ByteBuf buf, int index, int length) {

    public Region {
        Objects.requireNonNull(buf, "buf");
        if (index < 0 || length < 0) {
            throw new IllegalArgumentException("region [" + index + ", +" + length + ")");
        }
    }

    /**
     * A staging buffer of exactly {@code bytes} bytes (reference count 1, the caller releases it)
     * that several connections may fill at different offsets at the same time. It comes from the
     * pooled allocator, as tensors do: its absolute writes copy straight to the memory address.
     * Netty 4.2's default (adaptive) allocator is not safe for that: its {@code setBytes} goes
     * through one cached internal NIO buffer per {@code ByteBuf}, and two event loops writing
     * different ranges of the same buffer at once raced on its position and limit (pieces landed
     * at the wrong offset, or {@code BufferOverflowException}).
     */
    public static ByteBuf allocate(int bytes) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes, bytes);
    }

    /** All bytes of a CPU tensor. */
    public static Region of(Tensor t) {
        return new Region(t.buffer(), 0, Math.toIntExact(t.nbytes()));
    }

    /** Bytes {@code [from, from + len)} of this region, as a region of the same buffer. */
    public Region sub(int from, int len) {
        if (from < 0 || len < 0 || from + len > length) {
            throw new IndexOutOfBoundsException("sub-region [" + from + ", +" + len + ") of " + length + " bytes");
        }
        return new Region(buf, index + from, len);
    }

    /** Copies {@code src}'s bytes into this region (same length). */
    public void copyFrom(Region src) {
        if (src.length != length) {
            throw new IllegalArgumentException("copy of " + src.length + " bytes into a region of " + length);
        }
        if (length > 0) {
            ByteCopies.copy(src.buf, src.index, buf, index, length);
        }
    }
}
