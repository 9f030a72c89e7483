package io.reactivecollectives.core;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link KeyedDoubles} as runs: {@code [int subruns] ([int count] [count keys] [count values])*},
 * little-endian, each subrun sorted by key; runs are combined by a k-way merge that takes equal
 * keys in run order.
 */
final class KeyedDoublesFormat implements KeyedFormat<KeyedDoubles> {

    private final KeyedDoubles local;
    private final ReduceOp op;

    KeyedDoublesFormat(KeyedDoubles local, ReduceOp op) {
        this.local = local;
        this.op = op;
    }

    @Override
    public String descriptor() {
        return "doubles<" + (op == null ? "null" : op.kind()) + ">";
    }

    @Override
    public long entries() {
        return local == null ? 0 : local.size();
    }

    @Override
    public byte[][] partition(int n, KeySketch sketch) {
        if (local == null) {
            throw new IllegalArgumentException("the map is null");
        }
        if (op == null || !(op.kind() == ReduceOp.Kind.SUM || op.kind() == ReduceOp.Kind.PRODUCT
                || op.kind() == ReduceOp.Kind.MIN || op.kind() == ReduceOp.Kind.MAX)) {
            throw new IllegalArgumentException("reduce op " + op + " is not one of SUM, PRODUCT, MIN, MAX");
        }
        long[] keys = local.keysArray();
        double[] values = local.valuesArray();
        int[] owner = new int[keys.length];
        int[] counts = new int[n];
        for (int i = 0; i < keys.length; i++) {
            long m = KeySketch.mix(keys[i]);
            sketch.add(m);
            owner[i] = KeySketch.owner(m, n);
            counts[owner[i]]++;
        }
        ByteBuffer[] out = new ByteBuffer[n];
        for (int q = 0; q < n; q++) {
            out[q] = ByteBuffer.allocate(8 + 16 * counts[q]).order(ByteOrder.LITTLE_ENDIAN).putInt(1).putInt(counts[q]);
        }
        int[] at = new int[n];
        for (int i = 0; i < keys.length; i++) {
            int q = owner[i];
            out[q].putLong(8 + 8 * at[q], keys[i]).putDouble(8 + 8 * counts[q] + 8 * at[q], values[i]);
            at[q]++;
        }
        byte[][] runs = new byte[n][];
        for (int q = 0; q < n; q++) {
            runs[q] = out[q].array();
        }
        return runs;
    }

    @Override
    public byte[] reduce(List<byte[]> runs) {
        KeyedDoubles m = merge(runs);
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * m.size()).order(ByteOrder.LITTLE_ENDIAN).putInt(1).putInt(m.size());
        b.asLongBuffer().put(m.keysArray());
        ByteBuffer values = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(8 + 8 * m.size());
        values.asDoubleBuffer().put(m.valuesArray());
        return b.array();
    }

    @Override
    public KeyedDoubles result(List<byte[]> runs, boolean disjoint) {
        return merge(runs);
    }

    private KeyedDoubles merge(List<byte[]> runs) {
        List<long[]> ks = new ArrayList<>();
        List<double[]> vs = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            try {
                read(runs.get(r), ks, vs);
            } catch (RuntimeException e) {
                throw new BadRun(r, e);
            }
        }
        return KeyedMerge.merge(ks, vs, op);
    }

    private static void read(byte[] run, List<long[]> ks, List<double[]> vs) {
        ByteBuffer b = ByteBuffer.wrap(run).order(ByteOrder.LITTLE_ENDIAN);
        int subruns = b.getInt();
        for (int s = 0; s < subruns; s++) {
            int count = b.getInt();
            if (count < 0 || count > b.remaining() / 16) {
                throw new IllegalArgumentException("a subrun of " + count + " entries in " + b.remaining() + " bytes");
            }
            long[] k = new long[count];
            double[] v = new double[count];
            b.asLongBuffer().get(k);
            b.position(b.position() + 8 * count);
            b.asDoubleBuffer().get(v);
            b.position(b.position() + 8 * count);
            for (int i = 1; i < count; i++) {
                if (k[i - 1] >= k[i]) {
                    throw new IllegalArgumentException("a subrun's keys are not ascending at " + i);
                }
            }
            ks.add(k);
            vs.add(v);
        }
    }

    /** Runs of several owners' partitions in one: what a rank sends whole when every rank gets every entry. */
    @Override
    public byte[] whole(byte[][] runs) {
        int len = 4;
        for (byte[] r : runs) {
            len += r.length - 4;
        }
        ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN).putInt(runs.length);
        for (byte[] r : runs) {
            b.put(r, 4, r.length - 4);
        }
        return b.array();
    }
}
