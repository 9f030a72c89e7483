package io.reactivecollectives.transport.decision;

import io.reactivecollectives.transport.algorithms.AlgorithmChoice;
import io.reactivecollectives.transport.algorithms.Topology;

/**
 * What every decision of one group reads besides the call's own bytes: the world size, where the
 * ranks run, and the switch points measured at 2 ranks. Immutable; a group replaces its shape once it
 * learns the topology while connecting. What the decisions derive from these (the topology's flags,
 * the switch points scaled to the world size by {@link AlgorithmChoice}) is worked out once, here, so
 * that a call's decision reads fields.
 */
public final class GroupShape {

    private final int size;
    private final Topology topology;
    private final long smallAllReduceBytes;
    private final long smallBroadcastBytes;
    private final boolean multiHost;
    private final boolean multiHostMultiRank;
    private final long recursiveDoublingLimit;
    private final long binomialTreeLimit;
    private final boolean sparseMesh;

    /**
     * The shape of {@code size} ranks placed as {@code topology} says.
     *
     * @param size                world size
     * @param topology            which host each rank runs on
     * @param smallAllReduceBytes all-reduce: recursive doubling up to this many bytes at 2 ranks; the
     *                            coalesced all-reduce flattens lists up to this many bytes in all
     * @param smallBroadcastBytes broadcast: binomial tree up to this many bytes at 2 ranks; gather and
     *                            scatter: binomial tree up to this many bytes in all
     */
    public GroupShape(int size, Topology topology, long smallAllReduceBytes, long smallBroadcastBytes) {
        this.size = size;
        this.topology = topology;
        this.smallAllReduceBytes = smallAllReduceBytes;
        this.smallBroadcastBytes = smallBroadcastBytes;
        this.multiHost = topology.hosts() > 1;
        this.multiHostMultiRank = topology.multiHostMultiRank();
        this.recursiveDoublingLimit = AlgorithmChoice.recursiveDoublingLimit(smallAllReduceBytes, size);
        this.binomialTreeLimit = AlgorithmChoice.binomialTreeLimit(smallBroadcastBytes, size);
        this.sparseMesh = size > io.reactivecollectives.transport.settings.TransportSettings.MESH_FULL_UP_TO.get();
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

    /** {@return the world size} */
    public int size() {
        return size;
    }

    /** {@return which host each rank runs on} */
    public Topology topology() {
        return topology;
    }

    /** {@return the all-reduce's switch point at 2 ranks, and the coalesced all-reduce's flattening limit} */
    public long smallAllReduceBytes() {
        return smallAllReduceBytes;
    }

    /** {@return the broadcast's switch point at 2 ranks, and gather's and scatter's in all} */
    public long smallBroadcastBytes() {
        return smallBroadcastBytes;
    }

    /** {@return whether the ranks run on more than one host} */
    public boolean multiHost() {
        return multiHost;
    }

    /** {@return whether a two-level schedule applies ({@link Topology#multiHostMultiRank()})} */
    public boolean multiHostMultiRank() {
        return multiHostMultiRank;
    }

    /** {@return the largest all-reduce recursive doubling runs at this world size} */
    public long recursiveDoublingLimit() {
        return recursiveDoublingLimit;
    }

    /** {@return the largest broadcast the binomial tree runs at this world size} */
    public long binomialTreeLimit() {
        return binomialTreeLimit;
    }

    /**
     * {@return whether the group is larger than {@code rc.mesh.fullUpTo}: its data mesh connects each
     * rank to the ranks a power of two away only, and the decisions keep to algorithms among those}
     */
    public boolean sparseMesh() {
        return sparseMesh;
    }

    @Override
    public String toString() {
        return "GroupShape[size=" + size + ", topology=" + topology + ", smallAllReduceBytes=" + smallAllReduceBytes
                + ", smallBroadcastBytes=" + smallBroadcastBytes + "]";
    }
}
