package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * The fixed {@value #BYTES}-byte header every rank sends at the start of the first round of an
 * object collective: what it called, with which codec and limits, and how many bytes it has. One
 * stateless codec (write, and named accessors over a buffer), so no caller reads raw offsets.
 *
 * <pre>
 *  0 int  magic 'RCOB'      16 long sequence         48 long limit (maxBytes)
 *  4 byte version           24 long codec id hash    56 int  round bytes
 *  5 byte op                32 long length           60 int  bytes of data after the header
 *  6 byte status            40 long largest piece    64 96 bytes: codec id (UTF-8, zero-padded)
 *  8 int  root              12 int world size       160 224 bytes: status detail (UTF-8, zero-padded)
 * </pre>
 */
final class ObjectHeader {

    static final int BYTES = 384;
    static final int MAGIC = 0x52434F42;   // "RCOB"
    static final byte VERSION = 1;
    private static final int ID_TEXT = 96;
    private static final int DETAIL_TEXT = 224;

    /** What a rank says of its own part before any of its bytes travel. */
    enum Status {
        /** Encoded; its length follows. */
        OK,
        /** Its codec threw; the detail says what. */
        ENCODE_FAILED,
        /** Its encoding outgrew its limit. */
        OVER_LIMIT,
        /** Its arguments were wrong (a scatter list of the wrong size, a root out of range, no codec). */
        BAD_ARGUMENT,
        /** Its subscriber cancelled it before its turn came: it sends only its header. */
        CANCELLED
    }

    private ObjectHeader() {
    }

    /** One header's fields, as written. */
    record Fields(ObjectOp op, Status status, int root, int worldSize, long sequence, long codecHash,
                  String codecId, long length, long largest, long limit, int roundBytes, int firstBytes,
                  String detail) {

        /** A header of this rank's, the codec's hash taken from its whole id. */
        static Fields of(ObjectOp op, Status status, int root, int worldSize, long sequence, String codecId,
                         long length, long largest, long limit, int roundBytes, int firstBytes, String detail) {
            return new Fields(op, status, root, worldSize, sequence, hash(codecId), codecId, length, largest,
                    limit, roundBytes, firstBytes, detail);
        }
    }

    static void write(ByteBuf buf, int at, Fields f) {
        buf.setInt(at, MAGIC);
        buf.setByte(at + 4, VERSION);
        buf.setByte(at + 5, f.op().ordinal());
        buf.setByte(at + 6, f.status().ordinal());
        buf.setByte(at + 7, 0);
        buf.setInt(at + 8, f.root());
        buf.setInt(at + 12, f.worldSize());
        buf.setLong(at + 16, f.sequence());
        buf.setLong(at + 24, f.codecHash());
        buf.setLong(at + 32, f.length());
        buf.setLong(at + 40, f.largest());
        buf.setLong(at + 48, f.limit());
        buf.setInt(at + 56, f.roundBytes());
        buf.setInt(at + 60, f.firstBytes());
        text(buf, at + 64, f.codecId(), ID_TEXT);
        text(buf, at + 160, f.detail(), DETAIL_TEXT);
    }

    /**
     * Reads the header at {@code at}; null when it is not one (wrong magic or version, an op or
     * status out of range): the sender is not running this protocol.
     */
    static Fields read(ByteBuf buf, int at) {
        if (buf.getInt(at) != MAGIC || buf.getByte(at + 4) != VERSION) {
            return null;
        }
        int op = buf.getByte(at + 5);
        int status = buf.getByte(at + 6);
        if (op < 0 || op >= ObjectOp.values().length || status < 0 || status >= Status.values().length) {
            return null;
        }
        return new Fields(ObjectOp.values()[op], Status.values()[status], buf.getInt(at + 8), buf.getInt(at + 12),
                buf.getLong(at + 16), buf.getLong(at + 24), text(buf, at + 64, ID_TEXT), buf.getLong(at + 32), buf.getLong(at + 40),
                buf.getLong(at + 48), buf.getInt(at + 56), buf.getInt(at + 60), text(buf, at + 160, DETAIL_TEXT));
    }

    /** The codec id's hash as the header carries it ({@link KeySketch#fnv1a} of its UTF-8 bytes, the whole id). */
    static long hash(String s) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        return KeySketch.fnv1a(b, 0, b.length);
    }

    private static void text(ByteBuf buf, int at, String s, int room) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, room);
        while (n > 0 && n < b.length && (b[n] & 0xc0) == 0x80) {
            n--;   // never cut a character in two
        }
        buf.setBytes(at, b, 0, n);
        buf.setZero(at + n, room - n);
    }

    private static String text(ByteBuf buf, int at, int room) {
        int n = 0;
        while (n < room && buf.getByte(at + n) != 0) {
            n++;
        }
        return buf.toString(at, n, StandardCharsets.UTF_8);
    }
}
