package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;

/**
 * Copies into a tensor's buffer that are safe when several threads write disjoint ranges of the
 * same buffer at once (pieces arriving on different event loops, or reduced on parallel workers).
 *
 * <p>Netty's {@code ByteBuf.setBytes} on a direct buffer without a memory address (Netty running
 * without {@code sun.misc.Unsafe}, as on JDK 24 and later) goes through one cached NIO view per
 * buffer, whose position and limit concurrent writers overwrite: pieces land at wrong offsets or
 * fail with {@code newPosition > limit}. These copies use memory addresses when both sides have
 * them and otherwise a fresh NIO view of the destination range per call.
 */
public final class ByteCopies {

    private ByteCopies() {
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcIndex} into {@code dst} at {@code dstIndex};
     * indexes are absolute.
     *
     * @param src      the source
     * @param srcIndex the first source byte
     * @param dst      the destination
     * @param dstIndex the first destination byte (absolute)
     * @param length   the number of bytes
     */
    public static void copy(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (length == 0) {
            return;
        }
        // not dst.setBytes even when dst has a memory address: on JDK 24+ Netty reports the address
        // but copies through its cached NIO view (ByteCopiesTest fails on Temurin 25 that way)
        if (Memory.AVAILABLE && src.hasMemoryAddress() && dst.hasMemoryAddress()) {
            checkRange(src, srcIndex, length);
            checkRange(dst, dstIndex, length);
            Memory.copy(src.memoryAddress() + srcIndex, dst.memoryAddress() + dstIndex, length);
        } else {
            src.getBytes(srcIndex, dst.nioBuffer(dstIndex, length));
        }
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcIndex} into {@code dst} at {@code dstIndex}.
     *
     * @param src      the source
     * @param srcIndex the first source byte
     * @param dst      the destination
     * @param dstIndex the first destination byte (absolute)
     * @param length   the number of bytes
     */
    public static void copy(byte[] src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (length > 0) {
            dst.nioBuffer(dstIndex, length).put(src, srcIndex, length);
        }
    }

    private static void checkRange(ByteBuf b, int index, int length) {
        if (index < 0 || length < 0 || index > b.capacity() - length) {
            throw new IndexOutOfBoundsException("bytes [" + index + ", " + ((long) index + length)
                    + ") outside a buffer of capacity " + b.capacity());
        }
    }
}
