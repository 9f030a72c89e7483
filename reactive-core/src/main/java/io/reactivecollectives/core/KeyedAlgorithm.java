package io.reactivecollectives.core;

/**
 * How {@link ProcessGroup#allReduceMap} moves a keyed map's entries. Both give the same map on
 * every rank, combining each key's values in rank order.
 */
public enum KeyedAlgorithm {
    /**
     * Chosen per call from what every rank announces in a first small round (its entry count and
     * bytes, and a HyperLogLog sketch of its keys): {@link #PARTITIONED} when the estimated union
     * of keys is under {@code (N-1)/N} of all ranks' entries together (enough keys repeat across
     * ranks that reducing before gathering moves fewer bytes), {@link #GATHER_MERGE} otherwise.
     * Every rank sees the same announcements, so every rank chooses alike.
     */
    AUTO,
    /** Every rank's entries to every rank (an all-gather), merged on each: {@code (N-1)/N} of all entries received per rank. */
    GATHER_MERGE,
    /**
     * Keys partitioned by a hash of their encoding over the ranks; each rank's entries sent to
     * their keys' owners (an all-to-all), each owner combines its keys, and the reduced partitions
     * are all-gathered: {@code (N-1)/N} of (all entries / N + the union) received per rank, and the
     * combining shared by all ranks.
     */
    PARTITIONED
}
