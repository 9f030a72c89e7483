package io.reactivecollectives.core.rendezvous;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The append-only log of a {@link FileStore} and the values replayed from it: records
 * {@code [magic][type][keyLength][valueLength][key][value][crc32]} (types: set, delete, append),
 * read through a window, stopping before an incomplete or corrupt record (cut off by a
 * {@link #replay(boolean) repairing replay}). Not thread-safe: the {@link FileStore} calls it under
 * its monitor, and writes under its file lock.
 */
final class FileStoreLog {

    private static final Logger LOG = LoggerFactory.getLogger(FileStore.class);

    static final int MAGIC = 0x52435331; // "RCS1"
    static final byte SET = 1;
    static final byte DELETE = 2;
    static final byte APPEND = 3;
    /** magic, type, key length, value length. */
    static final int HEADER = 4 + 1 + 4 + 4;
    static final int TRAILER = 4;
    static final int MAX_KEY_BYTES = 1 << 16;
    private static final int READ_WINDOW = 1 << 20;

    private final FileChannel channel;
    private final Path path;
    private final Map<String, byte[]> values = new HashMap<>();
    /** Where the next record to replay starts. */
    private long offset;

    FileStoreLog(FileChannel channel, Path path) {
        this.channel = channel;
        this.path = path;
    }

    /** The values as of the last replay or append (stored arrays: copy what goes out). */
    Map<String, byte[]> values() {
        return values;
    }

    /** The length of the valid records read so far. */
    long offset() {
        return offset;
    }

    /**
     * Applies the records written since {@link #offset}, reading the file through a window of
     * {@value #READ_WINDOW} bytes (grown only for a larger record). Stops at the first incomplete or
     * corrupt record; with {@code repair} (only while holding the file lock, so no live writer is at
     * work) cuts such a torn tail off the file.
     */
    void replay(boolean repair) throws IOException {
        long size = channel.size();
        if (size < offset) {
            // cannot happen unless someone rewrote the file: start over from its beginning
            LOG.warn("FileStore {}: file shrank below what was read ({} < {}), replaying from the start", path, size, offset);
            values.clear();
            offset = 0;
        }
        Window window = new Window(size);
        while (true) {
            long remaining = size - offset;
            if (remaining < HEADER + TRAILER || !window.load(offset, HEADER)) {
                break;
            }
            ByteBuffer buf = window.buf;
            int at = window.index(offset);
            if (buf.getInt(at) != MAGIC) {
                break;
            }
            byte type = buf.get(at + 4);
            int keyLength = buf.getInt(at + 5);
            int valueLength = buf.getInt(at + 9);
            long total = (long) HEADER + keyLength + valueLength + TRAILER;
            if (type < SET || type > APPEND || keyLength < 0 || keyLength > MAX_KEY_BYTES || valueLength < 0
                    || total > remaining || total > Integer.MAX_VALUE - 64 || !window.load(offset, (int) total)) {
                break;
            }
            buf = window.buf;
            at = window.index(offset);
            int bodyEnd = at + HEADER + keyLength + valueLength;
            CRC32 crc = new CRC32();
            crc.update(buf.slice(at + 4, bodyEnd - at - 4));
            if ((int) crc.getValue() != buf.getInt(bodyEnd)) {
                break;
            }
            byte[] keyBytes = new byte[keyLength];
            buf.get(at + HEADER, keyBytes);
            byte[] value = new byte[valueLength];
            buf.get(at + HEADER + keyLength, value);
            apply(new Record(type, new String(keyBytes, StandardCharsets.UTF_8), value));
            offset += total;
        }
        if (repair && offset < size) {
            LOG.warn("FileStore {}: cutting {} bytes of a torn record (a writer died mid-write) at offset {}",
                    path, size - offset, offset);
            channel.truncate(offset);
        }
    }

    /** A window onto the file [start, start + buf.limit()). */
    private final class Window {
        private final long size;
        ByteBuffer buf = ByteBuffer.allocate(0);
        long start;

        Window(long size) {
            this.size = size;
        }

        int index(long position) {
            return (int) (position - start);
        }

        /** Makes [position, position + length) readable in {@link #buf}; false if the file ends first. */
        boolean load(long position, int length) throws IOException {
            if (position >= start && position + length <= start + buf.limit()) {
                return true;
            }
            if (position + length > size) {
                return false;
            }
            int want = (int) Math.min(Math.max(length, READ_WINDOW), size - position);
            if (buf.capacity() < want) {
                buf = ByteBuffer.allocate(want);
            }
            buf.clear().limit(want);
            long at = position;
            while (buf.hasRemaining()) {
                int n = channel.read(buf, at);
                if (n < 0) {
                    break;
                }
                at += n;
            }
            buf.flip();
            start = position;
            return buf.limit() >= length;
        }
    }

    private void apply(Record r) {
        switch (r.type) {
            case SET -> values.put(r.key, r.value);
            case DELETE -> values.remove(r.key);
            case APPEND -> values.merge(r.key, r.value, (old, add) -> {
                byte[] joined = Arrays.copyOf(old, old.length + add.length);
                System.arraycopy(add, 0, joined, old.length, add.length);
                return joined;
            });
            default -> throw new IllegalStateException("unknown record type " + r.type);
        }
    }

    /** Writes {@code records} at the end of the log in one write and applies them (caller holds the lock, after replay). */
    void appendRecords(List<Record> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(records.stream().mapToInt(Record::encodedLength).sum());
        for (Record r : records) {
            r.encode(out);
        }
        out.flip();
        long pos = offset;
        while (out.hasRemaining()) {
            pos += channel.write(out, pos);
        }
        offset = pos;
        for (Record r : records) {
            apply(r);
        }
    }

    /** Encodes one record (for tests that plant torn records). */
    static byte[] encode(byte type, String key, byte[] value) {
        Record r = new Record(type, key, value);
        ByteBuffer out = ByteBuffer.allocate(r.encodedLength());
        r.encode(out);
        return out.array();
    }

    static final class Record {
        final byte type;
        final String key;
        final byte[] keyBytes;
        final byte[] value;

        Record(byte type, String key, byte[] value) {
            this.type = type;
            this.key = key;
            this.keyBytes = key.getBytes(StandardCharsets.UTF_8);
            this.value = value;
            if (keyBytes.length > MAX_KEY_BYTES) {
                throw new IllegalArgumentException("FileStore: key of " + keyBytes.length + " bytes, more than "
                        + MAX_KEY_BYTES);
            }
        }

        int encodedLength() {
            return HEADER + keyBytes.length + value.length + TRAILER;
        }

        void encode(ByteBuffer out) {
            int start = out.position();
            out.putInt(MAGIC).put(type).putInt(keyBytes.length).putInt(value.length).put(keyBytes).put(value);
            CRC32 crc = new CRC32();
            crc.update(out.duplicate().position(start + 4).limit(out.position()));
            out.putInt((int) crc.getValue());
        }
    }

}
