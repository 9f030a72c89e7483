package io.reactivecollectives.core;

import java.util.Arrays;
import java.util.List;

/**
 * The k-way merge of sorted runs of {@code long} keys into one, combining equal keys' values with
 * a reduce op in run order (a binary heap of runs ordered by their next key, ties by run index).
 */
final class KeyedMerge {

    private KeyedMerge() {
    }

    static KeyedDoubles merge(List<long[]> ks, List<double[]> vs, ReduceOp op) {
        int runs = ks.size();
        int total = 0;
        for (long[] k : ks) {
            total = Math.addExact(total, k.length);
        }
        long[] outK = new long[total];
        double[] outV = new double[total];
        int[] pos = new int[runs];
        int[] heap = new int[runs];
        int size = 0;
        for (int r = 0; r < runs; r++) {
            if (ks.get(r).length > 0) {
                heap[size] = r;
                up(heap, size++, ks, pos);
            }
        }
        int n = 0;
        while (size > 0) {
            int r = heap[0];
            long key = ks.get(r)[pos[r]];
            double value = vs.get(r)[pos[r]];
            if (n > 0 && outK[n - 1] == key) {
                outV[n - 1] = combine(op, outV[n - 1], value);
            } else {
                outK[n] = key;
                outV[n++] = value;
            }
            if (++pos[r] == ks.get(r).length) {
                heap[0] = heap[--size];
            }
            if (size > 0) {
                down(heap, size, ks, pos);
            }
        }
        return KeyedDoubles.sortedUnique(n == total ? outK : Arrays.copyOf(outK, n), n == total ? outV : Arrays.copyOf(outV, n));
    }

    static double combine(ReduceOp op, double a, double b) {
        return switch (op.kind()) {
            case SUM -> a + b;
            case PRODUCT -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalArgumentException("reduce op " + op + " on keyed doubles");
        };
    }

    private static boolean less(int a, int b, List<long[]> ks, int[] pos) {
        long ka = ks.get(a)[pos[a]];
        long kb = ks.get(b)[pos[b]];
        return ka < kb || ka == kb && a < b;
    }

    private static void up(int[] heap, int i, List<long[]> ks, int[] pos) {
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (!less(heap[i], heap[parent], ks, pos)) {
                return;
            }
            int t = heap[i];
            heap[i] = heap[parent];
            heap[parent] = t;
            i = parent;
        }
    }

    private static void down(int[] heap, int size, List<long[]> ks, int[] pos) {
        int i = 0;
        while (true) {
            int l = 2 * i + 1;
            int smallest = i;
            if (l < size && less(heap[l], heap[smallest], ks, pos)) {
                smallest = l;
            }
            if (l + 1 < size && less(heap[l + 1], heap[smallest], ks, pos)) {
                smallest = l + 1;
            }
            if (smallest == i) {
                return;
            }
            int t = heap[i];
            heap[i] = heap[smallest];
            heap[smallest] = t;
            i = smallest;
        }
    }
}
