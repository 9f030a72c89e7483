package io.reactivecollectives.transport.algorithms;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;

/**
 * Every algorithm choice of a group in one place (as Open MPI's {@code coll_tuned_*_decision.c}):
 * per collective, the forced algorithm when it implements the collective, else the automatic
 * choice by size and world size ({@link AlgorithmChoice}'s cost model), else an
 * {@link IllegalArgumentException} naming what the collective implements. Stateless apart from the
 * group's thresholds.
 */
public final class AlgorithmSelector {

    private final int size;
    private final long smallAllReduceBytes;
    private final long smallBroadcastBytes;
    private volatile Topology topology;

    /**
     * @param size                world size
     * @param smallAllReduceBytes all-reduce: recursive doubling up to this many bytes at 2 ranks
     * @param smallBroadcastBytes broadcast: binomial tree up to this many bytes at 2 ranks; gather and
     *                            scatter: binomial tree up to this many bytes in all
     */
    public AlgorithmSelector(int size, long smallAllReduceBytes, long smallBroadcastBytes) {
        this.size = size;
        this.smallAllReduceBytes = smallAllReduceBytes;
        this.smallBroadcastBytes = smallBroadcastBytes;
        this.topology = Topology.singleHost(size);
    }

    /** Which host each rank runs on, once the group learnt it while connecting. */
    public void topology(Topology t) {
        this.topology = t;
    }

    /** The group's topology (all ranks on one host until {@link #topology(Topology)} said otherwise). */
    public Topology topology() {
        return topology;
    }

    /**
     * The algorithm for {@code op} over {@code nbytes} (per rank; gather and scatter: in all).
     *
     * @throws IllegalArgumentException when {@code forced} does not implement {@code op}
     */
    public Algorithm select(OpType op, Algorithm forced, long nbytes) {
        switch (op) {
            case ALLREDUCE:
            case ALLREDUCE_COALESCED:
                return pick(op, forced, nbytes <= AlgorithmChoice.recursiveDoublingLimit(smallAllReduceBytes, size)
                        ? Algorithm.RECURSIVE_DOUBLING
                        : topology.multiHostMultiRank() ? Algorithm.HIERARCHICAL : Algorithm.RING,
                        Algorithm.RING, Algorithm.RECURSIVE_DOUBLING, Algorithm.HIERARCHICAL);
            case BROADCAST:
                return pick(op, forced, nbytes <= AlgorithmChoice.binomialTreeLimit(smallBroadcastBytes, size)
                        ? Algorithm.BINOMIAL_TREE
                        : topology.hosts() > 1 ? Algorithm.HIERARCHICAL : Algorithm.PIPELINED_CHAIN,
                        Algorithm.BINOMIAL_TREE, Algorithm.PIPELINED_CHAIN, Algorithm.HIERARCHICAL);
            case REDUCE:
                return pick(op, forced, Algorithm.BINOMIAL_TREE, Algorithm.BINOMIAL_TREE);
            case GATHER:
            case SCATTER:
                return pick(op, forced, nbytes <= smallBroadcastBytes ? Algorithm.BINOMIAL_TREE : Algorithm.DIRECT,
                        Algorithm.BINOMIAL_TREE, Algorithm.DIRECT);
            case ALLGATHER:
            case _ALLGATHER_BASE:
            case ALLGATHER_COALESCED:
            case REDUCE_SCATTER:
            case _REDUCE_SCATTER_BASE:
                return pick(op, forced, topology.multiHostMultiRank() ? Algorithm.HIERARCHICAL : Algorithm.RING,
                        Algorithm.RING, Algorithm.HIERARCHICAL);
            case REDUCE_SCATTER_TENSOR_COALESCED:
                return pick(op, forced, Algorithm.RING, Algorithm.RING);
            case ALLTOALL:
            case ALLTOALL_BASE:
                return pick(op, forced, Algorithm.PAIRWISE, Algorithm.PAIRWISE);
            default:
                return pick(op, forced, Algorithm.AUTO);
        }
    }

    /** Name of the algorithm as recorded (barriers and the sparse all-reduce have their own). */
    public static String recordedName(OpType op, Algorithm a) {
        switch (op) {
            case BARRIER:
                return "dissemination";
            case MONITORED_BARRIER:
                return "monitored";
            case _ALLREDUCE_SPARSE:
                return "allgather";
            default:
                return a == Algorithm.AUTO ? null : NAMES[a.ordinal()];
        }
    }

    private static final String[] NAMES = java.util.Arrays.stream(Algorithm.values())
            .map(a -> a.name().toLowerCase(java.util.Locale.ROOT)).toArray(String[]::new);

    private static Algorithm pick(OpType op, Algorithm forced, Algorithm auto, Algorithm... allowed) {
        if (forced == Algorithm.AUTO) {
            return auto;
        }
        for (Algorithm a : allowed) {
            if (a == forced && a != Algorithm.AUTO) {
                return forced;
            }
        }
        String name = op.displayName();
        StringBuilder use = new StringBuilder("AUTO");
        for (int i = 0; i < allowed.length; i++) {
            if (allowed[i] != Algorithm.AUTO) {
                use.append(i == allowed.length - 1 ? " or " : ", ").append(allowed[i]);
            }
        }
        throw new IllegalArgumentException(name + ": algorithm " + forced + " does not implement " + name
                + " (use " + use + ")");
    }
}
