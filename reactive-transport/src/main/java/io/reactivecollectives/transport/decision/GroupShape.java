package io.reactivecollectives.transport.decision;

import io.reactivecollectives.transport.algorithms.Topology;

/**
 * What every decision of one group reads besides the call's own bytes: the world size, where the
 * ranks run, and the switch points measured at 2 ranks (scaled by world size through
 * {@link io.reactivecollectives.transport.algorithms.AlgorithmChoice}). Immutable; a group replaces
 * its shape once it learns the topology while connecting.
 *
 * @param size                world size
 * @param topology            which host each rank runs on
 * @param smallAllReduceBytes all-reduce: recursive doubling up to this many bytes at 2 ranks; the
 *                            coalesced all-reduce flattens lists up to this many bytes in all
 * @param smallBroadcastBytes broadcast: binomial tree up to this many bytes at 2 ranks; gather and
 *                            scatter: binomial tree up to this many bytes in all
 */
public record GroupShape(int size, Topology topology, long smallAllReduceBytes, long smallBroadcastBytes) {

    /**
     * A group of {@code size} ranks on one host (a group's shape until it has connected).
     *
     * @param size                world size
     * @param smallAllReduceBytes see {@link #smallAllReduceBytes()}
     * @param smallBroadcastBytes see {@link #smallBroadcastBytes()}
     * @return the shape
     */
    public static GroupShape singleHost(int size, long smallAllReduceBytes, long smallBroadcastBytes) {
        return new GroupShape(size, Topology.singleHost(size), smallAllReduceBytes, smallBroadcastBytes);
    }

    /**
     * This shape with the ranks on the hosts {@code t} says.
     *
     * @param t the topology learnt while connecting
     * @return the new shape
     */
    public GroupShape withTopology(Topology t) {
        return new GroupShape(size, t, smallAllReduceBytes, smallBroadcastBytes);
    }
}
