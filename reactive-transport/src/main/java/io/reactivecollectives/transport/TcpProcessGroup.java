package io.reactivecollectives.transport;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.observe.CollectiveMetrics;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.Store;
import reactor.core.publisher.Mono;

/**
 * The old name of {@link MeshProcessGroup}, kept for one release so that code written against it
 * still compiles: every group is a {@code MeshProcessGroup}, which extends this class, so
 * {@code TcpProcessGroup g = ProcessGroups.fromEnvironment().block()} and
 * {@code TcpProcessGroup.connect(...)} go on working. The group never was TCP-only (ranks of one
 * host talk over Unix sockets or shared memory), hence the new name.
 *
 * @deprecated use {@link MeshProcessGroup}; this class goes in the next release
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public abstract sealed class TcpProcessGroup implements ProcessGroup permits MeshProcessGroup {

    TcpProcessGroup() {
    }

    /**
     * {@link MeshProcessGroup#connect(Store, int, int, GroupOptions)}.
     *
     * @param store     the rendezvous store every rank of the group uses
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize number of ranks
     * @param options   settings; every rank must use the same group id, secret and thresholds
     * @return a cold {@code Mono} emitting the connected group
     * @deprecated use {@link MeshProcessGroup#connect(Store, int, int, GroupOptions)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<MeshProcessGroup> connect(Store store, int rank, int worldSize, GroupOptions options) {
        return MeshProcessGroup.connect(store, rank, worldSize, options);
    }

    /**
     * {@link MeshProcessGroup#connect(Store, int, int)}.
     *
     * @param store     the rendezvous store every rank of the group uses
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize number of ranks
     * @return a cold {@code Mono} emitting the connected group
     * @deprecated use {@link MeshProcessGroup#connect(Store, int, int)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<MeshProcessGroup> connect(Store store, int rank, int worldSize) {
        return MeshProcessGroup.connect(store, rank, worldSize);
    }

    /** @return see {@link MeshProcessGroup#options()} */
    public abstract GroupOptions options();

    /** @return see {@link MeshProcessGroup#store()} */
    public abstract Store store();

    /** @return see {@link MeshProcessGroup#port()} */
    public abstract int port();

    /** @return see {@link MeshProcessGroup#flightRecorder()} */
    public abstract FlightRecorder flightRecorder();

    /** @return see {@link MeshProcessGroup#metrics()} */
    public abstract CollectiveMetrics metrics();

    /** @return see {@link MeshProcessGroup#topology()} */
    public abstract HostLayout topology();

    /**
     * @param peer a peer's rank
     * @return see {@link MeshProcessGroup#transportTo(int)}
     */
    public abstract String transportTo(int peer);

    /**
     * @param peer a peer's rank
     * @return see {@link MeshProcessGroup#describeTransportTo(int)}
     */
    public abstract String describeTransportTo(int peer);

    /** @return see {@link MeshProcessGroup#nextSequence()} */
    public abstract long nextSequence();

    /** @return see {@link MeshProcessGroup#unclaimedBytes()} */
    public abstract long unclaimedBytes();

    /** @return see {@link MeshProcessGroup#openCollectives()} */
    public abstract int openCollectives();

    /** @return see {@link MeshProcessGroup#generation()} */
    public abstract int generation();

    /** @return see {@link MeshProcessGroup#view()} */
    public abstract GroupView view();

    /** @return see {@link MeshProcessGroup#isClosed()} */
    public abstract boolean isClosed();
}
