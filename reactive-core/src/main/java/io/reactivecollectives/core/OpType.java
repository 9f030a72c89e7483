package io.reactivecollectives.core;

/**
 * The kind of operation a {@link Work} stands for: every value of c10d's {@code OpType} (Work.hpp),
 * with the name this library's methods use.
 */
public enum OpType {
    BROADCAST("broadcast"),
    ALLREDUCE("allReduce"),
    ALLREDUCE_COALESCED("allReduceCoalesced"),
    REDUCE("reduce"),
    ALLGATHER("allGather"),
    _ALLGATHER_BASE("allGatherInto"),
    ALLGATHER_COALESCED("allGatherCoalesced"),
    GATHER("gather"),
    SCATTER("scatter"),
    REDUCE_SCATTER("reduceScatter"),
    ALLTOALL_BASE("allToAllSingle"),
    ALLTOALL("allToAll"),
    SEND("send"),
    RECV("recv"),
    RECVANYSOURCE("recvAnySource"),
    BARRIER("barrier"),
    _REDUCE_SCATTER_BASE("reduceScatterTensor"),
    COALESCED("coalesced"),
    _ALLREDUCE_SPARSE("allReduceSparse"),
    UNKNOWN("unknown"),
    REDUCE_SCATTER_TENSOR_COALESCED("reduceScatterTensorCoalesced"),
    MONITORED_BARRIER("monitoredBarrier");

    private final String displayName;

    OpType(String displayName) {
        this.displayName = displayName;
    }

    /** The readable name used in error messages, metrics and the flight recorder ({@code allReduce}). */
    public String displayName() {
        return displayName;
    }
}
