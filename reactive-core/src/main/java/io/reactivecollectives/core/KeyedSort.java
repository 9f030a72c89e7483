package io.reactivecollectives.core;

/** Sorts parallel key and value arrays by key (a merge sort: stable, no boxing, n log n). */
final class KeyedSort {

    private KeyedSort() {
    }

    static void sort(long[] keys, double[] values) {
        int n = keys.length;
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = keys[i - 1] <= keys[i];
        }
        if (sorted) {
            return;
        }
        long[] k2 = new long[n];
        double[] v2 = new double[n];
        long[] ks = keys;
        double[] vs = values;
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int o = lo; o < hi; o++) {
                    if (i < mid && (j >= hi || ks[i] <= ks[j])) {
                        k2[o] = ks[i];
                        v2[o] = vs[i++];
                    } else {
                        k2[o] = ks[j];
                        v2[o] = vs[j++];
                    }
                }
            }
            long[] tk = ks;
            ks = k2;
            k2 = tk;
            double[] tv = vs;
            vs = v2;
            v2 = tv;
        }
        if (ks != keys) {
            System.arraycopy(ks, 0, keys, 0, n);
            System.arraycopy(vs, 0, values, 0, n);
        }
    }
}
