package io.reactivecollectives.core;


import java.util.Objects;

/**
 * Limits and sizes of one object collective.
 *
 * @param maxBytes   the most encoded bytes a rank may hold for one call: the sum of the objects
 *                   it receives (all-gather, the gather's root), the object it receives
 *                   (broadcast, scatter), or what it encodes itself. Every rank announces its
 *                   limit with its first bytes and the call keeps to the smallest, so a call over
 *                   it fails on every rank, after the first round and before any more is sent.
 *                   Default 1 GiB; at most {@link #MAX_BYTES}.
 * @param roundBytes the bytes one round moves to each rank after the first (the chunks of large
 *                   objects): every rank holds two rounds' buffers at most. Default 16 MiB; at least
 *                   64 KiB.
 * @param collective the options (timeout, algorithm) of each tensor collective the call runs
 * @param keyed      how {@link ProcessGroup#allReduceMap} moves entries; {@link KeyedAlgorithm#AUTO} by default
 */
public record ObjectOptions(long maxBytes, int roundBytes, CollectiveOptions collective, KeyedAlgorithm keyed) {

    /** The largest {@link #maxBytes}: 64 GiB. */
    public static final long MAX_BYTES = 64L << 30;

    /** 1 GiB per call, 16 MiB rounds, default collective options. */
    public static final ObjectOptions DEFAULT = new ObjectOptions(1L << 30, 16 << 20, CollectiveOptions.DEFAULT,
            KeyedAlgorithm.AUTO);

    /**
     * Checks the values.
     *
     * @param maxBytes   the most encoded bytes a rank may hold for one call, 1 to {@link #MAX_BYTES}
     * @param roundBytes the bytes one round moves to each rank after the first, at least 64 KiB
     * @param collective the options of each tensor collective the call runs
     * @param keyed      how keyed-map all-reduce moves entries
     * @throws IllegalArgumentException for a limit outside 1 byte to {@link #MAX_BYTES}, rounds under 64 KiB
     * @throws NullPointerException     for null collective options or keyed algorithm
     */
    public ObjectOptions {
        Objects.requireNonNull(collective, "collective");
        Objects.requireNonNull(keyed, "keyed");
        if (maxBytes < 1 || maxBytes > MAX_BYTES) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " is outside 1.." + MAX_BYTES);
        }
        if (roundBytes < (64 << 10)) {
            throw new IllegalArgumentException("roundBytes " + roundBytes + " is under 64 KiB");
        }
    }

    /**
     * These options with another limit.
     *
     * @param bytes the limit
     * @return the new options
     */
    public ObjectOptions withMaxBytes(long bytes) {
        return new ObjectOptions(bytes, roundBytes, collective, keyed);
    }

    /**
     * These options with another round size.
     *
     * @param bytes the bytes per round
     * @return the new options
     */
    public ObjectOptions withRoundBytes(int bytes) {
        return new ObjectOptions(maxBytes, bytes, collective, keyed);
    }

    /**
     * These options with other collective options.
     *
     * @param options the tensor collectives' options
     * @return the new options
     */
    public ObjectOptions withCollective(CollectiveOptions options) {
        return new ObjectOptions(maxBytes, roundBytes, options, keyed);
    }

    /**
     * These options with another algorithm for keyed-map all-reduce.
     *
     * @param algorithm the algorithm
     * @return the new options
     */
    public ObjectOptions withKeyed(KeyedAlgorithm algorithm) {
        return new ObjectOptions(maxBytes, roundBytes, collective, algorithm);
    }
}
