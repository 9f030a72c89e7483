package io.reactivecollectives.core;

/**
 * The kind of operation a {@link Work} stands for: every value of c10d's {@code OpType} (Work.hpp),
 * with the name this library's methods use.
 */
public enum OpType {
    /** A broadcast from one root to every rank. */
    BROADCAST("broadcast"),
    /** An all-reduce. */
    ALLREDUCE("allReduce"),
    /** An all-reduce of several tensors as one collective. */
    ALLREDUCE_COALESCED("allReduceCoalesced"),
    /** A reduce to one root. */
    REDUCE("reduce"),
    /** An all-gather into one output per rank. */
    ALLGATHER("allGather"),
    /** An all-gather into one flat output (c10d's {@code _allgather_base}). */
    _ALLGATHER_BASE("allGatherInto"),
    /** Several all-gathers as one collective. */
    ALLGATHER_COALESCED("allGatherCoalesced"),
    /** A gather to one root. */
    GATHER("gather"),
    /** A scatter from one root. */
    SCATTER("scatter"),
    /** A reduce-scatter of one input per rank. */
    REDUCE_SCATTER("reduceScatter"),
    /** An all-to-all of one input and one output tensor with split sizes (c10d's {@code alltoall_base}). */
    ALLTOALL_BASE("allToAllSingle"),
    /** An all-to-all of one input and one output per rank. */
    ALLTOALL("allToAll"),
    /** A point-to-point send. */
    SEND("send"),
    /** A point-to-point receive from a given rank. */
    RECV("recv"),
    /** A receive from whichever rank sends first. */
    RECVANYSOURCE("recvAnySource"),
    /** A barrier. */
    BARRIER("barrier"),
    /** A reduce-scatter of one flat input (c10d's {@code _reduce_scatter_base}). */
    _REDUCE_SCATTER_BASE("reduceScatterTensor"),
    /** Several operations issued as one (c10d's coalescing manager). */
    COALESCED("coalesced"),
    /** An all-reduce of a sparse COO tensor. */
    _ALLREDUCE_SPARSE("allReduceSparse"),
    /** An operation of no other kind. */
    UNKNOWN("unknown"),
    /** Several flat reduce-scatters as one collective. */
    REDUCE_SCATTER_TENSOR_COALESCED("reduceScatterTensorCoalesced"),
    /** A barrier in which rank 0 names the ranks that did not arrive. */
    MONITORED_BARRIER("monitoredBarrier");

    private final String displayName;

    OpType(String displayName) {
        this.displayName = displayName;
    }

    /** {@return the readable name used in error messages, metrics and the flight recorder ({@code allReduce})} */
    public String displayName() {
        return displayName;
    }
}
