package io.reactivecollectives.core;

/**
 * The algorithm a collective runs. {@link #AUTO} lets the group choose by message size and world
 * size; the others force one (an algorithm that does not implement the op is an
 * {@link IllegalArgumentException}).
 */
public enum Algorithm {
    /** Let the group choose. */
    AUTO,
    /** Chunked, pipelined ring (all-reduce as reduce-scatter then all-gather; ring all-gather, reduce-scatter). */
    RING,
    /** Recursive doubling / halving-doubling, for small messages. */
    RECURSIVE_DOUBLING,
    /** Binomial tree (broadcast, reduce, gather, scatter). */
    BINOMIAL_TREE,
    /** Pipelined chain (large broadcasts). */
    PIPELINED_CHAIN,
    /** Pairwise exchange (all-to-all). */
    PAIRWISE,
    /** Every rank sends to or receives from one root directly. */
    DIRECT,
    /**
     * Two levels for ranks on several hosts (all-reduce: reduce-scatter inside each host, all-reduce
     * of the shards between hosts, all-gather inside each host); the ring where all ranks share a host
     * or hosts run different numbers of ranks.
     */
    HIERARCHICAL,
    /**
     * Bruck's store-and-forward all-to-all: {@code ceil(log2 N)} rounds, each with the ranks a power
     * of two away, every piece forwarded up to {@code log2 N} times. What a group larger than
     * {@code rc.mesh.fullUpTo} runs, so that its ranks connect to a few peers, not to all.
     */
    BRUCK
}
