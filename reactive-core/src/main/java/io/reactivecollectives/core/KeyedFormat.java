package io.reactivecollectives.core;

import java.util.List;

/**
 * How {@link KeyedReduce} sees one kind of keyed map: its entries split by owner into runs of
 * bytes, runs combined, runs read back into the result. Runs are combined in list order (rank
 * order), so every rank combines each key's values alike.
 *
 * @param <R> the result's type
 */
interface KeyedFormat<R> {

    /** What every rank must agree on: the kind of map, its codecs or reduce op. */
    String descriptor();

    /** The local entries' count (known before {@link #partition}). */
    long entries();

    /**
     * The local entries as one run per owner rank of {@code n} (owner by {@link KeySketch#owner}
     * of the key's hash), every key added to {@code sketch}.
     *
     * @throws IllegalArgumentException for entries the format cannot take (a null key)
     */
    byte[][] partition(int n, KeySketch sketch);

    /** The partitions of {@link #partition} as one run (what a rank sends whole when every rank gets every entry). */
    byte[] whole(byte[][] partitions);

    /** One run of the runs' entries, each key's values combined in run order. */
    byte[] reduce(List<byte[]> runs);

    /** The result from runs in rank order; {@code disjoint} when no key is in two runs (nothing to combine). */
    R result(List<byte[]> runs, boolean disjoint);

    /** A run that could not be read, or whose values the user's function could not combine: which one, and why. */
    final class BadRun extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** The index of the run that could not be read (its rank, in rank order). */
        final int run;
        /** The user's combine function failed (the bytes were fine). */
        final boolean combining;

        BadRun(int run, Throwable cause) {
            this(run, cause, false);
        }

        BadRun(int run, Throwable cause, boolean combining) {
            super(combining ? cause.getMessage() : cause.toString(), cause);
            this.run = run;
            this.combining = combining;
        }
    }
}
