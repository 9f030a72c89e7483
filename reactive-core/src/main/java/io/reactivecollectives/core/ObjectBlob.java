package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A sequence of bytes held as a list of arrays of {@code unit} bytes each (the last may be
 * shorter), so that a large object's encoding never needs one contiguous array (nor a doubling
 * copy as a {@code ByteArrayOutputStream} grows). Written once ({@link #writer}, or filled at known
 * offsets with {@link #ofLength} and {@link #copyFrom}), or lent a caller's array
 * ({@link #lent}); then read as a stream or copied out in ranges.
 */
final class ObjectBlob {

    /** The size of every piece but the last. */
    static final int PIECE = 1 << 20;
    /** The longest blob of known length held in one array (so that a codec can take it whole). */
    static final int ONE_ARRAY = 1 << 30;

    private final List<byte[]> pieces;
    private final int unit;
    /** The array is the caller's: read it, never hand it over. */
    private final boolean borrowed;
    private long length;

    private ObjectBlob(List<byte[]> pieces, int unit, long length, boolean borrowed) {
        this.pieces = pieces;
        this.unit = unit;
        this.length = length;
        this.borrowed = borrowed;
    }

    /** An empty blob that grows as {@link #writer} writes to it. */
    static ObjectBlob empty() {
        return new ObjectBlob(new ArrayList<>(), PIECE, 0, false);
    }

    /** A zero-filled blob of {@code length} bytes, filled later with {@link #put}: one array up to {@link #ONE_ARRAY}. */
    static ObjectBlob ofLength(long length) {
        int unit = length <= ONE_ARRAY ? (int) Math.max(1, length) : ONE_ARRAY;
        List<byte[]> pieces = new ArrayList<>((int) ((length + unit - 1) / unit));
        for (long off = 0; off < length; off += unit) {
            pieces.add(new byte[(int) Math.min(unit, length - off)]);
        }
        return new ObjectBlob(pieces, unit, length, false);
    }

    /** A blob over the caller's {@code bytes}, not copied (nor ever handed on as a result). */
    static ObjectBlob lent(byte[] bytes) {
        return new ObjectBlob(new ArrayList<>(List.of(bytes)), Math.max(1, bytes.length), bytes.length, true);
    }

    long length() {
        return length;
    }

    /**
     * A stream that appends to this blob and fails with {@link LimitExceeded} once more than
     * {@code limit} bytes have been written (nothing past the limit is kept).
     */
    OutputStream writer(long limit) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                if (length + len > limit) {
                    throw new LimitExceeded(length + len, limit);
                }
                while (len > 0) {
                    int last = pieces.size() - 1;
                    int used = (int) (length - (long) last * PIECE);
                    if (last < 0 || used == PIECE) {   // no piece yet, or every piece full: a new one
                        pieces.add(new byte[last < 0 ? Math.min(PIECE, Math.max(256, len)) : PIECE]);
                        last++;
                        used = 0;
                    } else if (used == pieces.get(last).length) {   // the first piece grows to PIECE by doubling
                        pieces.set(last, Arrays.copyOf(pieces.get(last), Math.min(PIECE, Math.max(2 * used, used + len))));
                    }
                    int n = Math.min(len, pieces.get(last).length - used);
                    System.arraycopy(b, off, pieces.get(last), used, n);
                    length += n;
                    off += n;
                    len -= n;
                }
            }

            @Override
            public void close() {
                trim();
            }
        };
    }

    /** Cuts the last piece to the bytes written (after the writer is done). */
    void trim() {
        if (!pieces.isEmpty()) {
            int used = (int) (length - (long) (pieces.size() - 1) * unit);
            byte[] last = pieces.get(pieces.size() - 1);
            if (used < last.length) {
                byte[] cut = new byte[used];
                System.arraycopy(last, 0, cut, 0, used);
                pieces.set(pieces.size() - 1, cut);
            }
        }
    }

    /**
     * Writes {@code block} bytes at {@code at} of {@code dst}: this blob's bytes from {@code offset},
     * zeros past its end (so no stale buffer contents travel).
     */
    void copyTo(ByteBuf dst, int at, long offset, int block) {
        int n = (int) Math.max(0, Math.min(block, length - offset));
        walk(offset, n, (piece, from, len, k) -> dst.setBytes(at + k, piece, from, len));
        dst.setZero(at + n, block - n);
    }

    /** Fills this blob from {@code offset} with what of it lies in the {@code block} bytes at {@code at} of {@code src}. */
    void copyFrom(ByteBuf src, int at, long offset, int block) {
        int n = (int) Math.max(0, Math.min(block, length - offset));
        walk(offset, n, (piece, from, len, k) -> src.getBytes(at + k, piece, from, len));
    }

    private void walk(long offset, int len, Range range) {
        int done = 0;
        while (done < len) {
            long at = offset + done;
            byte[] p = pieces.get((int) (at / unit));
            int in = (int) (at % unit);
            int n = Math.min(len - done, p.length - in);
            range.on(p, in, n, done);
            done += n;
        }
    }

    /**
     * The bytes as one stream, piece after piece (nothing is copied); it knows its length, so
     * {@code available()} is exact and {@code readAllBytes()} fills one array of the right size.
     */
    InputStream reader() {
        List<InputStream> streams = new ArrayList<>(pieces.size());
        for (byte[] p : pieces) {
            streams.add(new ByteArrayInputStream(p));
        }
        return new SequenceInputStream(Collections.enumeration(streams)) {
            private long left = length;

            @Override
            public int read() throws IOException {
                int b = super.read();
                left -= b < 0 ? 0 : 1;
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                left -= Math.max(0, n);
                return n;
            }

            @Override
            public int available() {
                return (int) Math.min(Integer.MAX_VALUE, left);
            }

            @Override
            public byte[] readAllBytes() throws IOException {
                if (!borrowed && left == length && pieces.size() == 1 && pieces.get(0).length == length) {
                    left = 0;
                    return pieces.get(0);   // the one array, handed over: a blob is read once
                }
                if (left > Integer.MAX_VALUE - 8) {
                    throw new IOException("a blob of " + left + " bytes does not fit one array");
                }
                byte[] all = new byte[(int) left];
                int n = readNBytes(all, 0, all.length);
                return n == all.length ? all : Arrays.copyOf(all, n);
            }
        };
    }

    /** Every byte in one new array (for tests). */
    byte[] toArray() {
        byte[] all = new byte[Math.toIntExact(length)];
        walk(0, all.length, (src, from, n, at) -> System.arraycopy(src, from, all, at, n));
        return all;
    }

    /** One piece's part of a range: {@code n} bytes of {@code piece} from {@code from}, at {@code at} of the range. */
    @FunctionalInterface
    interface Range {
        void on(byte[] piece, int from, int n, int at);
    }

    /** An encoding grew past the call's limit. */
    static final class LimitExceeded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LimitExceeded(long reached, long limit) {
            super("the encoding reached " + reached + " bytes, over the limit of " + limit, null, false, false);
        }
    }
}
