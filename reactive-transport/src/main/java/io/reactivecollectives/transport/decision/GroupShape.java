package io.reactivecollectives.transport.decision;

import io.reactivecollectives.transport.algorithms.Topology;

/**
 * What every decision of one group reads besides the call's own bytes: the world size, where the
 * ranks run, and the switch points measured at 2 ranks (scaled by world size through
 * {@link io.reactivecollectives.transport.algorithms.AlgorithmChoice}). Immutable; a group replaces
 * its shape once it learns the topology while connecting. What the decisions ask of the topology
 * ({@link #multiHost}, {@link #multiHostMultiRank}) is computed once here, when the topology is set,
 * so that a call's decision does not consult the {@link Topology} again.
 *
 * @param size                world size
 * @param topology            which host each rank runs on
 * @param smallAllReduceBytes all-reduce: recursive doubling up to this many bytes at 2 ranks; the
 *                            coalesced all-reduce flattens lists up to this many bytes in all
 * @param smallBroadcastBytes broadcast: binomial tree up to this many bytes at 2 ranks; gather and
 *                            scatter: binomial tree up to this many bytes in all
 * @param multiHost           the ranks run on more than one host ({@link Topology#hosts()} over 1)
 * @param multiHostMultiRank  a two-level schedule applies ({@link Topology#multiHostMultiRank()})
 */
public record GroupShape(int size, Topology topology, long smallAllReduceBytes, long smallBroadcastBytes,
                         boolean multiHost, boolean multiHostMultiRank) {

    /**
     * The shape, its flags as {@code topology} says.
     *
     * @throws IllegalArgumentException when the flags differ from the topology's
     */
    public GroupShape {
        if (multiHost != topology.hosts() > 1 || multiHostMultiRank != topology.multiHostMultiRank()) {
            throw new IllegalArgumentException("flags (multiHost " + multiHost + ", multiHostMultiRank "
                    + multiHostMultiRank + ") differ from the topology " + topology);
        }
    }

    /**
     * The shape of {@code size} ranks placed as {@code topology} says, its flags computed from it.
     *
     * @param size                world size
     * @param topology            which host each rank runs on
     * @param smallAllReduceBytes see {@link #smallAllReduceBytes()}
     * @param smallBroadcastBytes see {@link #smallBroadcastBytes()}
     */
    public GroupShape(int size, Topology topology, long smallAllReduceBytes, long smallBroadcastBytes) {
        this(size, topology, smallAllReduceBytes, smallBroadcastBytes, topology.hosts() > 1,
                topology.multiHostMultiRank());
    }

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
