package io.reactivecollectives.core;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map from {@code long} keys to {@code double} values held as two sorted arrays: the
 * primitive-keyed form of {@link ProcessGroup#allReduceMap(KeyedDoubles, ReduceOp)} for sparse
 * features (a feature id and its weight or count). Immutable; keys are unique and ascending.
 */
public final class KeyedDoubles {

    private static final KeyedDoubles EMPTY = new KeyedDoubles(new long[0], new double[0]);

    private final long[] keys;
    private final double[] values;

    private KeyedDoubles(long[] keys, double[] values) {
        this.keys = keys;
        this.values = values;
    }

    /**
     * The entries {@code keys[i] -> values[i]}, copied and sorted by key.
     *
     * @param keys   the keys, each at most once
     * @param values the values, as many as keys
     * @return the map
     * @throws IllegalArgumentException when the lengths differ or a key appears twice
     * @throws NullPointerException     for null arrays
     */
    public static KeyedDoubles of(long[] keys, double[] values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException("KeyedDoubles: " + keys.length + " keys but " + values.length + " values");
        }
        long[] k = keys.clone();
        double[] v = values.clone();
        KeyedSort.sort(k, v);
        for (int i = 1; i < k.length; i++) {
            if (k[i] == k[i - 1]) {
                throw new IllegalArgumentException("KeyedDoubles: key " + k[i] + " appears more than once");
            }
        }
        return new KeyedDoubles(k, v);
    }

    /**
     * The map with no entries.
     *
     * @return the empty map
     */
    public static KeyedDoubles empty() {
        return EMPTY;
    }

    /** Arrays already sorted and unique, taken as they are (the library's own results). */
    static KeyedDoubles sortedUnique(long[] keys, double[] values) {
        return new KeyedDoubles(keys, values);
    }

    /**
     * The number of entries.
     *
     * @return the size
     */
    public int size() {
        return keys.length;
    }

    /**
     * The {@code i}-th smallest key.
     *
     * @param i the index, 0 to {@code size() - 1}
     * @return the key
     */
    public long key(int i) {
        return keys[i];
    }

    /**
     * The value of the {@code i}-th smallest key.
     *
     * @param i the index, 0 to {@code size() - 1}
     * @return the value
     */
    public double value(int i) {
        return values[i];
    }

    /**
     * The value of {@code key}, or {@code otherwise} when it has none.
     *
     * @param key       the key
     * @param otherwise the value for a missing key
     * @return the value
     */
    public double get(long key, double otherwise) {
        int i = Arrays.binarySearch(keys, key);
        return i >= 0 ? values[i] : otherwise;
    }

    /**
     * Whether {@code key} has a value.
     *
     * @param key the key
     * @return true when it has
     */
    public boolean containsKey(long key) {
        return Arrays.binarySearch(keys, key) >= 0;
    }

    /**
     * The keys, ascending (a copy).
     *
     * @return the keys
     */
    public long[] keys() {
        return keys.clone();
    }

    /**
     * The values in key order (a copy).
     *
     * @return the values
     */
    public double[] values() {
        return values.clone();
    }

    /**
     * The entries as a boxed map, in key order.
     *
     * @return a new map
     */
    public Map<Long, Double> toMap() {
        Map<Long, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            m.put(keys[i], values[i]);
        }
        return m;
    }

    long[] keysArray() {
        return keys;
    }

    double[] valuesArray() {
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyedDoubles k && Arrays.equals(keys, k.keys) && Arrays.equals(values, k.values);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(keys) + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("KeyedDoubles{");
        for (int i = 0; i < Math.min(8, keys.length); i++) {
            sb.append(i == 0 ? "" : ", ").append(keys[i]).append('=').append(values[i]);
        }
        return sb.append(keys.length > 8 ? ", ... (" + keys.length + " entries)}" : "}").toString();
    }
}
