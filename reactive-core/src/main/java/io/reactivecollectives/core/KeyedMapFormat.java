package io.reactivecollectives.core;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;

/**
 * A {@code Map<K, V>} as runs of entries {@code [int key length][key][int value length][value]}
 * (big-endian lengths, each part in its codec's bytes); the owner of a key is a hash of its
 * encoding, so equal keys must encode to equal bytes on every rank. Runs are read into a
 * {@link LinkedHashMap} in run order, equal keys combined with the user's function as
 * {@code combine(earlier ranks' value, later rank's value)}.
 */
final class KeyedMapFormat<K, V> implements KeyedFormat<Map<K, V>> {

    private final Map<K, V> local;
    private final BinaryOperator<V> combine;
    private final Codec<K> keys;
    private final Codec<V> values;

    KeyedMapFormat(Map<K, V> local, BinaryOperator<V> combine, Codec<K> keys, Codec<V> values) {
        this.local = local;
        this.combine = combine;
        this.keys = keys;
        this.values = values;
    }

    @Override
    public String descriptor() {
        return "map<" + idOf(keys) + "," + idOf(values) + ">";
    }

    /** A codec's id; {@code null} or {@code ?} (its id() failed: the ranks then differ, and fail, instead of one throwing alone). */
    private static String idOf(Codec<?> c) {
        try {
            return c == null ? "null" : c.id();
        } catch (RuntimeException | LinkageError | AssertionError e) {
            return "? (id() failed: " + e + ")";
        }
    }

    @Override
    public long entries() {
        return local == null ? 0 : local.size();
    }

    @Override
    public byte[][] partition(int n, KeySketch sketch) {
        if (local == null || combine == null || keys == null || values == null) {
            throw new IllegalArgumentException((local == null ? "the map" : combine == null ? "the combine function"
                    : keys == null ? "the key codec" : "the value codec") + " is null");
        }
        Scratch[] out = new Scratch[n];
        for (int q = 0; q < n; q++) {
            out[q] = new Scratch();
        }
        Scratch key = new Scratch();
        Scratch value = new Scratch();
        try {
            for (Map.Entry<K, V> e : local.entrySet()) {
                if (e.getKey() == null || e.getValue() == null) {
                    throw new IllegalArgumentException("a null " + (e.getKey() == null ? "key" : "value for key " + e.getKey()));
                }
                key.reset();
                keys.encode(e.getKey(), key);
                value.reset();
                values.encode(e.getValue(), value);
                long m = KeySketch.hash(key.array(), 0, key.size());
                sketch.add(m);
                Scratch run = out[KeySketch.owner(m, n)];
                run.writeInt(key.size());
                key.writeTo(run);
                run.writeInt(value.size());
                value.writeTo(run);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[][] runs = new byte[n][];
        for (int q = 0; q < n; q++) {
            runs[q] = out[q].toByteArray();
        }
        return runs;
    }

    @Override
    public byte[] reduce(List<byte[]> runs) {
        Map<K, V> m = read(runs, false);
        Scratch out = new Scratch();
        Scratch part = new Scratch();
        try {
            for (Map.Entry<K, V> e : m.entrySet()) {
                part.reset();
                keys.encode(e.getKey(), part);
                out.writeInt(part.size());
                part.writeTo(out);
                part.reset();
                values.encode(e.getValue(), part);
                out.writeInt(part.size());
                part.writeTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    @Override
    public Map<K, V> result(List<byte[]> runs, boolean disjoint) {
        return read(runs, disjoint);
    }

    private Map<K, V> read(List<byte[]> runs, boolean disjoint) {
        Map<K, V> m = new LinkedHashMap<>();
        for (int r = 0; r < runs.size(); r++) {
            byte[] run = runs.get(r);
            ByteBuffer b = ByteBuffer.wrap(run);
            try {
                while (b.hasRemaining()) {
                    K k = keys.decode(part(b));
                    V v = values.decode(part(b));
                    if (k == null || v == null) {
                        throw new IOException("a null " + (k == null ? "key" : "value"));
                    }
                    V before = m.putIfAbsent(k, v);
                    if (before != null) {
                        if (disjoint) {     // one owner per key: the same key from two means other bytes for it
                            throw new BadRun(r, new IOException("key " + k + " came from two owners: equal keys must encode"
                                    + " to equal bytes on every rank (the key codec '" + keys.id() + "' did not)"), false);
                        }
                        m.put(k, combined(k, before, v, r));
                    }
                }
            } catch (IOException | RuntimeException e) {
                throw e instanceof BadRun bad ? bad : new BadRun(r, e);
            }
        }
        return m;
    }

    /** {@code combine(before, v)} for key {@code k} of run {@code r}: a failure or a null names the combine function. */
    private V combined(K k, V before, V v, int r) {
        V c;
        try {
            c = combine.apply(before, v);
        } catch (RuntimeException e) {
            throw new BadRun(r, new IllegalStateException("the combine function failed for key " + k + ": " + e, e), true);
        }
        if (c == null) {
            throw new BadRun(r, new IllegalStateException("the combine function returned null for key " + k
                    + " (null values are refused)"), true);
        }
        return c;
    }

    private static ByteArrayInputStream part(ByteBuffer b) throws IOException {
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) {
            throw new IOException("an entry part of " + len + " bytes with " + b.remaining() + " left");
        }
        ByteArrayInputStream in = new ByteArrayInputStream(b.array(), b.position(), len);
        b.position(b.position() + len);
        return in;
    }

    /** Whole runs of several owners in one (entries need no framing beyond their own). */
    @Override
    public byte[] whole(byte[][] runs) {
        Scratch out = new Scratch();
        for (byte[] r : runs) {
            out.write(r, 0, r.length);
        }
        return out.toByteArray();
    }

    /** A reusable buffer whose array the hash reads in place. */
    private static final class Scratch extends ByteArrayOutputStream {
        byte[] array() {
            return buf;
        }

        void writeInt(int v) {
            write(v >>> 24);
            write(v >>> 16);
            write(v >>> 8);
            write(v);
        }
    }
}
