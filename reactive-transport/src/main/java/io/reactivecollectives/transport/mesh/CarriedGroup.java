package io.reactivecollectives.transport.mesh;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * A subgroup's connections when its frames travel over its parent's mesh (c10d's {@code new_group}
 * and {@code split} without a mesh of their own, as {@code ncclCommSplit} shares its parent's
 * resources): the subgroup's frames carry its own group id in their header, which the mesh's
 * {@link GroupRouter} routes to the subgroup's listener. Each link is the mesh's link to that member
 * ({@link CarriedLink}), so the subgroup costs no socket, no descriptor, no shared-memory ring and no
 * heartbeat: the ends of the mesh's connections are the subgroup's too.
 *
 * <p>Every member must be carried before any member sends to it: the group's start waits for all of
 * them (through the store) before it hands the subgroup out. Closing the subgroup writes its last
 * words on each link and retires its id; the mesh's connections stay open for the parent.
 */
public final class CarriedGroup implements Connections {

    private final Mesh mesh;
    private final int groupHash;
    private final int rank;
    /** The mesh's rank of each member. */
    private final int[] members;
    private final FrameListener listener;
    private final AtomicReferenceArray<PeerLink> table;
    private volatile boolean closed;
    /** Whether this subgroup holds a pause of the mesh's reading. */
    private boolean paused;

    CarriedGroup(Mesh mesh, int groupHash, int rank, int[] members, FrameListener listener) {
        this.mesh = mesh;
        this.groupHash = groupHash;
        this.rank = rank;
        this.members = members.clone();
        this.listener = listener;
        this.table = new AtomicReferenceArray<>(members.length);
        for (int p = 0; p < members.length; p++) {
            meshLinkChanged(p);
        }
    }

    /**
     * The mesh's link to member {@code peer} came or went (a connection made on demand, or one
     * closed as idle): the table follows, so that a send to it connects first where it is gone.
     */
    void meshLinkChanged(int peer) {
        if (peer == rank) {
            return;
        }
        PeerLink now = mesh.link(members[peer]);
        table.set(peer, now == null ? null : new CarriedLink(peer, members[peer], groupHash, mesh, listener));
    }

    /** {@return the mesh's rank of member {@code peer}} */
    int meshRank(int peer) {
        return members[peer];
    }

    @Override
    public int world() {
        return members.length;
    }

    @Override
    public int port() {
        return mesh.port();
    }

    @Override
    public PeerLink link(int peer) {
        return peer < 0 || peer >= table.length() ? null : table.get(peer);
    }

    @Override
    public AtomicReferenceArray<PeerLink> linkTable() {
        return table;
    }

    @Override
    public boolean connectsOnDemand() {
        return mesh.connectsOnDemand();
    }

    @Override
    public Mono<Void> connect(int peer) {
        return Mono.defer(() -> {
            if (link(peer) != null) {
                return Mono.empty();
            }
            if (closed || peer == rank || peer < 0 || peer >= members.length) {
                return Mono.error(PeerClosedException.unreachable(peer, "subgroup rank " + rank
                        + " has no connection to it" + (closed ? " (closed)" : ""), null));
            }
            return mesh.connect(members[peer]).then(Mono.fromRunnable(() -> meshLinkChanged(peer)));
        });
    }

    @Override
    public String transportTo(int peer) {
        return peer < 0 || peer >= members.length || peer == rank ? "none" : mesh.transportTo(members[peer]);
    }

    @Override
    public String[] hostIds() {
        String[] all = mesh.hostIds();
        String[] mine = new String[members.length];
        for (int i = 0; i < members.length; i++) {
            mine[i] = all[members[i]];
        }
        return mine;
    }

    /** Holds one pause of the mesh's reading (the subgroup's mailbox is full) until resumed or closed. */
    @Override
    public synchronized void pauseReading() {
        if (!paused) {
            paused = true;
            mesh.pauseReading();
        }
    }

    @Override
    public synchronized void resumeReading() {
        if (paused) {
            paused = false;
            mesh.resumeReading();
        }
    }

    /** Closes the mesh's connection to the member: a peer that broke the protocol is broken for every group. */
    @Override
    public void closeLink(int peer, Throwable why) {
        if (peer >= 0 && peer < members.length && peer != rank) {
            mesh.closeLink(members[peer], why);
        }
    }

    @Override
    public boolean isClosed() {
        return closed || mesh.isClosed();
    }

    /** Retires the subgroup's id at once; the mesh's connections stay open. */
    @Override
    public void close() {
        closed = true;
        mesh.retire(groupHash);
        resumeReading();   // a closed subgroup holds the parent's connections back no longer
    }

    /**
     * Writes the last words on every member's link, then retires the subgroup's id; the connections
     * stay open. Nothing is written once {@link #close()} ran (a subgroup given up before every member
     * routed it: a member that does not would take its frames for a protocol error).
     */
    @Override
    public void closeGracefully(Function<PeerLink, Mono<Void>> lastWords, Duration grace) {
        if (closed) {
            return;
        }
        closed = true;
        List<Mono<Void>> all = new ArrayList<>();
        for (int p = 0; p < members.length; p++) {
            PeerLink l = table.get(p);
            if (l != null && l.isActive()) {
                all.add(Mono.defer(() -> lastWords.apply(l)).timeout(grace, Mono.empty()).onErrorResume(e -> Mono.empty()));
            }
        }
        Runnable release = ExitHold.hold(grace.plusMillis(500));  // the JVM waits for the last words
        Mono.when(all).doFinally(s -> {
            mesh.retire(groupHash);
            resumeReading();
            release.run();
        }).subscribe();
    }

    /** A subgroup of this one: carried over the same mesh, its members translated to the mesh's ranks. */
    @Override
    public Connections carry(String groupId, int subRank, int[] subMembers, FrameListener subListener) {
        int[] meshRanks = new int[subMembers.length];
        for (int i = 0; i < subMembers.length; i++) {
            meshRanks[i] = members[subMembers[i]];
        }
        return mesh.carry(groupId, subRank, meshRanks, subListener);
    }

    @Override
    public String toString() {
        return "CarriedGroup[rank " + rank + " of " + members.length + " over " + mesh.describe() + "]";
    }
}
