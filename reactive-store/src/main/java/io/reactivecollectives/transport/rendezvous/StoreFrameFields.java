package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The field encodings of {@link StoreFrameCodec}: {@code string := n:int32 UTF-8[n]},
 * {@code bytes := n:int32 byte[n]}, {@code strings := count:int32 string[count]}, their sizes, and
 * readers that check every length against the bytes left in the frame ({@link StoreProtocolException}
 * otherwise), so a hostile frame can neither allocate more than its own size nor be misread.
 */
final class StoreFrameFields {

    private StoreFrameFields() {
    }

    static int size(String s) {
        return 4 + ByteBufUtil.utf8Bytes(s);
    }

    static int size(byte[] b) {
        return 4 + b.length;
    }

    static int size(List<String> keys) {
        int n = 4;
        for (String k : keys) {
            n += size(k);
        }
        return n;
    }

    static void put(ByteBuf buf, String s) {
        int lengthAt = buf.writerIndex();
        buf.writeInt(0);
        int n = buf.writeCharSequence(s, StandardCharsets.UTF_8);
        buf.setInt(lengthAt, n);
    }

    static void put(ByteBuf buf, byte[] b) {
        buf.writeInt(b.length);
        buf.writeBytes(b);
    }

    static void put(ByteBuf buf, List<String> keys) {
        buf.writeInt(keys.size());
        for (String k : keys) {
            put(buf, k);
        }
    }

    // --- primitives ----------------------------------------------------------------------------

    static void need(ByteBuf body, int n, String what) {
        if (n < 0 || body.readableBytes() < n) {
            throw new StoreProtocolException(what + " of " + n + " bytes runs past the frame ("
                    + body.readableBytes() + " bytes left)");
        }
    }

    static int readU8(ByteBuf body) {
        need(body, 1, "byte");
        return body.readUnsignedByte();
    }

    static long readLong(ByteBuf body) {
        need(body, 8, "int64");
        return body.readLong();
    }

    /** A count of elements each at least {@code minElement} bytes: bounded by the bytes left. */
    static int readCount(ByteBuf body, int minElement) {
        need(body, 4, "count");
        int n = body.readInt();
        if (n < 0 || (long) n * minElement > body.readableBytes()) {
            throw new StoreProtocolException("count " + n + " does not fit the " + body.readableBytes()
                    + " bytes left in the frame");
        }
        return n;
    }

    static byte[] readBytes(ByteBuf body) {
        need(body, 4, "length");
        int n = body.readInt();
        need(body, n, "field");
        byte[] b = new byte[n];
        body.readBytes(b);
        return b;
    }

    static String readString(ByteBuf body) {
        need(body, 4, "length");
        int n = body.readInt();
        need(body, n, "string");
        String s = body.toString(body.readerIndex(), n, StandardCharsets.UTF_8);
        body.skipBytes(n);
        return s;
    }

    static List<String> readStrings(ByteBuf body) {
        int n = readCount(body, 4);
        List<String> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(readString(body));
        }
        return keys;
    }

    static void end(ByteBuf body) {
        if (body.isReadable()) {
            throw new StoreProtocolException(body.readableBytes() + " trailing bytes after the frame's fields");
        }
    }
}
