package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Tensor;

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
            buf.setBytes(index, src.buf, src.index, length);
        }
    }
}
