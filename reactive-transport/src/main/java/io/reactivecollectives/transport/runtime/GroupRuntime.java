package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.observe.CollectiveObserver;
import io.reactivecollectives.transport.decision.GroupShape;
import io.reactivecollectives.transport.failure.PeerFailures;
import io.reactivecollectives.transport.frame.P2PFrameCodec;
import io.reactivecollectives.transport.group.CollectiveWatchdog;
import io.reactivecollectives.transport.group.Mailbox;
import io.reactivecollectives.transport.group.P2PMailbox;
import io.reactivecollectives.transport.mesh.Connections;
import io.reactivecollectives.transport.mesh.FrameListener;
import io.reactivecollectives.transport.mesh.Mesh;
import io.reactivecollectives.transport.mesh.MeshOptions;
import io.reactivecollectives.transport.mesh.PeerLink;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The state one rank of a group shares among its collectives (the role of gloo's {@code Context}):
 * rank, size, settings, the mesh of connections, the mailboxes inbound frames go to, what is known
 * of the peers' health, the observer (flight recorder and meters), the watchdog of deadlines and
 * the group's shape its collectives' decisions read (world size, topology, switch points); and
 * whether the group still takes work.
 */
public final class GroupRuntime {

    private final int rank;
    private final int size;
    private final RuntimeSettings settings;
    private final Mailbox mailbox;
    private final P2PMailbox p2p;
    private final TensorClaims claims = new TensorClaims();
    private final PeerFailures peerFailures;
    private final CollectiveObserver observer;
    private final CollectiveWatchdog watchdog = CollectiveWatchdog.shared();
    private volatile GroupShape shape;
    private volatile Connections mesh;
    /** The mesh's live link table ({@link Mesh#linkTable}), null while there is no mesh. */
    private volatile AtomicReferenceArray<PeerLink> links;
    private volatile Mesh liveness;
    private volatile boolean closed;
    private volatile reactor.core.Disposable waitReports = reactor.core.Disposables.disposed();
    private volatile String abortedWhy;

    public GroupRuntime(int rank, int size, RuntimeSettings settings, CollectiveObserver observer) {
        this.rank = rank;
        this.size = size;
        this.settings = settings;
        this.observer = observer;
        this.peerFailures = new PeerFailures(rank, size);
        this.shape = GroupShape.singleHost(size, settings.smallAllReduceBytes(), settings.smallBroadcastBytes());
        this.mailbox = new Mailbox(settings.maxUnclaimedBytes(), this::pauseReading, this::resumeReading);
        this.p2p = new P2PMailbox(rank, new P2PMailbox.FragmentReader() {
            @Override
            public int index(io.netty.buffer.ByteBuf frame) {
                return P2PFrameCodec.index(frame);
            }

            @Override
            public int count(io.netty.buffer.ByteBuf frame) {
                return P2PFrameCodec.count(frame);
            }

            @Override
            public io.netty.buffer.ByteBuf payload(io.netty.buffer.ByteBuf frame) {
                return P2PFrameCodec.payload(frame);
            }

            @Override
            public io.reactivecollectives.core.DType dtype(io.netty.buffer.ByteBuf frame) {
                return P2PFrameCodec.dtype(frame);
            }
        });
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public RuntimeSettings settings() {
        return settings;
    }

    public Mailbox mailbox() {
        return mailbox;
    }

    public P2PMailbox p2p() {
        return p2p;
    }

    /** The memory this rank's in-flight collectives and receives of this group use. */
    public TensorClaims claims() {
        return claims;
    }

    public PeerFailures peerFailures() {
        return peerFailures;
    }

    public CollectiveObserver observer() {
        return observer;
    }

    public CollectiveWatchdog watchdog() {
        return watchdog;
    }

    /** What the decisions of this group's collectives read (all ranks on one host until connected). */
    public GroupShape shape() {
        return shape;
    }

    /** The connections (null until connected, and for a world of one). */
    public Connections mesh() {
        return mesh;
    }

    public void mesh(Connections m) {
        this.links = m == null ? null : m.linkTable();
        this.mesh = m;
    }

    /**
     * The link frames to {@code peer} go through now (a socket link, or the shared-memory link that
     * replaced it), read from the mesh's live table without calling through the mesh: a sender's
     * per-frame lookup.
     *
     * @param peer a rank
     * @return its link, or null (this rank, out of range, not connected, no mesh)
     */
    public PeerLink link(int peer) {
        AtomicReferenceArray<PeerLink> t = links;
        return t == null || peer < 0 || peer >= t.length() ? null : t.get(peer);
    }

    /** The heartbeat connections ({@link io.reactivecollectives.transport.mesh.MeshRole#LIVENESS}; null until connected). */
    public Mesh liveness() {
        return liveness;
    }

    /**
     * Connects this rank to the others through {@code store}: the data mesh ({@code options}, frames
     * to {@code frames}), then the heartbeat mesh beside it ({@link MeshOptions#forLiveness()}, its
     * peers {@link io.reactivecollectives.transport.mesh.MeshPeers#forLiveness}, watched by
     * {@link LivenessWatch}, which tells the others through {@code aborts} over a ring) on its own
     * event loop. Every {@code reportEvery} it says whom this rank waits for: while the data mesh
     * starts (see {@link Mesh#start(io.reactivecollectives.core.rendezvous.Store, int, int, MeshOptions,
     * FrameListener, java.time.Duration)}), then, once connected and until closed, for collectives that
     * run longer than that ({@link CollectiveWaits}); zero for no reports. On failure or cancellation
     * whatever was opened is closed.
     */
    public reactor.core.publisher.Mono<Void> connect(io.reactivecollectives.core.rendezvous.Store store,
                                                     MeshOptions options, FrameListener frames,
                                                     io.reactivecollectives.transport.failure.AbortProtocol aborts,
                                                     java.time.Duration reportEvery) {
        io.reactivecollectives.transport.mesh.MeshPeers watched = io.reactivecollectives.transport.mesh.MeshPeers.forLiveness(size);
        return Mesh.start(store, rank, size, options, io.reactivecollectives.transport.mesh.MeshPeers.forData(size),
                        frames, reportEvery)
                .flatMap(m -> Mesh.start(store, rank, size, options.forLiveness(), watched,
                                new LivenessWatch(this, watched, aborts), java.time.Duration.ZERO)
                        .doOnError(e -> m.close())
                        .doOnCancel(m::close)
                        .doOnNext(live -> {
                            this.liveness = live;
                            over(m, reportEvery);
                        }))
                .then();
    }

    /**
     * Runs this rank's group over {@code connections}: the mesh {@link #connect} made, or a
     * subgroup's share of its parent's ({@link Connections#carry}: no mesh and no heartbeats of its
     * own, the parent's connections end for both). Reports long waits every {@code reportEvery}.
     */
    public void over(Connections connections, java.time.Duration reportEvery) {
        shape = shape.withTopology(io.reactivecollectives.transport.algorithms.Topology.of(connections.hostIds()));
        this.links = connections.linkTable();
        this.mesh = connections;
        this.waitReports = CollectiveWaits.start(this, reportEvery);
        if (closed) {
            waitReports.dispose();   // closed while connecting
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Marks the group closed; returns false when it already was. */
    public boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        waitReports.dispose();
        return true;
    }

    /** Why the group was aborted here, or null. */
    public String abortedWhy() {
        return abortedWhy;
    }

    public void markAborted(String why) {
        this.abortedWhy = why;
    }

    /** Whether no new work is taken (closed or aborted here). */
    public boolean isShut() {
        return closed || abortedWhy != null;
    }

    /**
     * The error work already in flight ends with once this rank has aborted or closed its group (its
     * mailbox's boxes, its receives, and a send whose write failed because of that, not because of the
     * peer), or null while the group is open.
     *
     * @param name     the operation
     * @param sequence its sequence number, -1 for point-to-point
     * @return the error, or null
     */
    public GroupAbortedException endedHere(String name, long sequence) {
        if (abortedWhy != null) {
            return new GroupAbortedException(name, rank, sequence, CollectiveException.NO_PEER, "the group was aborted");
        }
        return closed ? new GroupAbortedException(name, rank, sequence, CollectiveException.NO_PEER, "the group was closed")
                : null;
    }

    /** The error a new collective gets at once (group aborted or closed, a peer dead), or null to run it. */
    public CollectiveException refusal(String name) {
        CollectiveException shut = shutRefusal(name);
        if (shut != null) {
            return shut;
        }
        if (!peerFailures.anyDead()) {
            return null;
        }
        int dead = peerFailures.firstBlocking(mailbox.nextSequence());
        return dead < 0 ? null : peerFailures.failure(name, -1, dead, null);
    }

    /** The error a point-to-point operation with {@code peer} gets at once, or null to run it. */
    public CollectiveException p2pRefusal(String name, int peer) {
        CollectiveException shut = shutRefusal(name);
        if (shut != null) {
            return shut;
        }
        String dead = peerFailures.deathOf(peer);
        return dead == null ? null : new PeerFailureException(name, rank, -1, peer, dead, null);
    }

    private CollectiveException shutRefusal(String name) {
        String why = abortedWhy;
        if (why != null) {
            return new GroupAbortedException(name, rank, -1, CollectiveException.NO_PEER,
                    "the group was aborted (" + why + ") and takes no new work; shrink() or make a new group");
        }
        if (closed) {
            return new GroupAbortedException(name, rank, -1, CollectiveException.NO_PEER, "the group is closed");
        }
        return null;
    }

    private void pauseReading() {
        Connections m = mesh;
        if (m != null) {
            m.pauseReading();
        }
    }

    private void resumeReading() {
        Connections m = mesh;
        if (m != null) {
            m.resumeReading();
        }
    }
}
