package io.reactivecollectives.transport.ops;

import io.reactivecollectives.transport.runtime.CollectiveRunner;

/**
 * Every op family of one group, over one runner: the facade delegates each collective to one of
 * these.
 */
public final class OpFamilies {

    public final AllReduceOps allReduce;
    public final ReduceOps reduce;
    public final BroadcastOps broadcast;
    public final BarrierOps barrier;
    public final AllGatherOps allGather;
    public final GatherScatterOps gatherScatter;
    public final ReduceScatterOps reduceScatter;
    public final AllToAllOps allToAll;
    public final SparseOps sparse;
    public final PointToPointOps p2p;

    public OpFamilies(CollectiveRunner runner) {
        this.allReduce = new AllReduceOps(runner);
        this.reduce = new ReduceOps(runner);
        this.broadcast = new BroadcastOps(runner);
        this.barrier = new BarrierOps(runner);
        this.allGather = new AllGatherOps(runner);
        this.gatherScatter = new GatherScatterOps(runner);
        this.reduceScatter = new ReduceScatterOps(runner);
        this.allToAll = new AllToAllOps(runner);
        this.sparse = new SparseOps(runner);
        this.p2p = new PointToPointOps(runner.runtime());
    }
}
