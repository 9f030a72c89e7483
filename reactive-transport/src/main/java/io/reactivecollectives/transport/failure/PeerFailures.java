package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.transport.group.RemotePeerFailureException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What one rank knows of its peers' health and progress: per peer, why it died (the first cause
 * wins) and the latest collective it sent data for. Thread-safe; written by the inbound frame
 * router, read by the collective runner and by shrink.
 */
public final class PeerFailures {

    /**
     * Why a peer is dead: its words ({@code groupAbort}: it sent a GROUP_ABORT) or what was observed;
     * {@code finishedBelow}: a peer that left in order (GOODBYE) finished every collective below this
     * sequence number (-1: it did not leave in order).
     */
    public record Death(String why, boolean groupAbort, long finishedBelow) {

        Death(String why, boolean groupAbort) {
            this(why, groupAbort, -1);
        }

        /** Whether this death stops collective {@code seq} (a departure does not stop those it finished). */
        public boolean blocks(long seq) {
            return finishedBelow < 0 || seq >= finishedBelow;
        }
    }

    /** A peer's word, in an ABORT notice, that it found {@code failed} dead: {@code finding} says how. */
    public record Report(int failed, String finding) {
    }

    private final int rank;
    private final AtomicReferenceArray<Death> dead;
    /** Per peer, the first peer failure it reported to this rank (null: none). */
    private final AtomicReferenceArray<Report> reports;
    /** Whether any peer was ever recorded dead (read first by every collective's start). */
    private volatile boolean anyDead;
    private final AtomicLongArray lastSeqFrom;

    public PeerFailures(int rank, int size) {
        this.rank = rank;
        this.dead = new AtomicReferenceArray<>(size);
        this.reports = new AtomicReferenceArray<>(size);
        this.lastSeqFrom = new AtomicLongArray(size);
        for (int p = 0; p < size; p++) {
            lastSeqFrom.set(p, -1);
        }
    }

    /** Records {@code peer}'s death unless one is recorded already; returns the recorded one. */
    public Death markDead(int peer, String why, boolean groupAbort) {
        Death mine = new Death(why, groupAbort);
        anyDead = true;
        return dead.compareAndSet(peer, null, mine) ? mine : dead.get(peer);
    }

    /**
     * {@code peer} left the group in order, having finished every collective below
     * {@code finishedBelow}; returns the recorded death (an earlier one wins).
     */
    public Death markDeparted(int peer, long finishedBelow) {
        Death mine = new Death("peer " + peer + " left the group (it closed it after finishing "
                + (finishedBelow == 0 ? "no collective" : "the collectives before seq " + finishedBelow) + ")",
                false, finishedBelow);
        anyDead = true;
        return dead.compareAndSet(peer, null, mine) ? mine : dead.get(peer);
    }

    /**
     * {@code reporter} told this rank (an ABORT of kind PEER_FAILED, for a collective running here or
     * already finished) that it found {@code failed} dead; the first report of each peer is kept.
     */
    public void reported(int reporter, int failed, String finding) {
        if (failed != rank && failed != reporter && failed >= 0 && failed < dead.length()) {
            reports.compareAndSet(reporter, null, new Report(failed, finding));
        }
    }

    /**
     * The error of collective {@code seq} (-1: refused before it ran) stopped by {@code peer}'s
     * recorded death. A peer that reported another peer's failure before it left or its connection
     * ended went because of that failure: the error names the failed peer and the finding, the first
     * and precise cause, and the departure after it. A peer that aborted the group is not asked here.
     *
     * @param op    the operation's name
     * @param seq   its sequence number
     * @param peer  the dead peer
     * @param cause what was observed locally, or null
     * @return the error, naming the failed peer
     */
    public PeerFailureException failure(String op, long seq, int peer, Throwable cause) {
        Death d = dead.get(peer);
        String why = d == null ? "peer " + peer + " failed" : d.why();
        Report r = reports.get(peer);
        if (r != null && (d == null || !d.groupAbort())) {
            return new RemotePeerFailureException(op, rank, seq, r.failed(),
                    r.finding() + " (reported by rank " + peer + "; then " + why + ")");
        }
        return new PeerFailureException(op, rank, seq, peer, why, cause);
    }

    /** The recorded death of {@code peer}, or null. */
    public Death death(int peer) {
        return dead.get(peer);
    }

    /** Why {@code peer} died, or null while it lives. */
    public String deathOf(int peer) {
        Death d = dead.get(peer);
        return d == null ? null : d.why();
    }

    /** Whether {@code peer} is known dead. */
    public boolean isDead(int peer) {
        return dead.get(peer) != null;
    }

    /** Whether any peer was recorded dead or departed (false: {@link #firstBlocking} is -1 for every collective). */
    public boolean anyDead() {
        return anyDead;
    }

    /** The first peer whose death stops collective {@code seq}, or -1. */
    public int firstBlocking(long seq) {
        for (int p = 0; p < dead.length(); p++) {
            Death d = dead.get(p);
            if (d != null && d.blocks(seq)) {
                return p;
            }
        }
        return -1;
    }

    /** Per rank, whether it is known dead here (this rank: false). */
    public boolean[] deadView() {
        boolean[] v = new boolean[dead.length()];
        for (int p = 0; p < v.length; p++) {
            v[p] = p != rank && dead.get(p) != null;
        }
        return v;
    }

    /**
     * A collective's DATA frame with sequence {@code seq} came from {@code peer} (on any of its
     * connections: several event loops may report the same peer).
     */
    public void dataFrom(int peer, long seq) {
        if (seq > lastSeqFrom.get(peer)) {
            lastSeqFrom.accumulateAndGet(peer, seq, Math::max);
        }
    }

    /**
     * The latest collective {@code peer} sent this rank data for.
     *
     * @param peer the rank
     * @return its sequence number, -1 for none yet
     */
    public long lastSeqFrom(int peer) {
        return lastSeqFrom.get(peer);
    }

    /**
     * What this rank knows of the others' progress: the latest collective each peer sent data for,
     * the furthest behind first (at most 8 peers named), e.g. {@code last data from rank 2: seq 1,
     * rank 1: seq 2}.
     */
    public String progress() {
        List<long[]> seen = new ArrayList<>();
        for (int p = 0; p < lastSeqFrom.length(); p++) {
            if (p != rank) {
                seen.add(new long[] {lastSeqFrom.get(p), p});
            }
        }
        seen.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        StringBuilder sb = new StringBuilder("last data from ");
        for (int i = 0; i < Math.min(8, seen.size()); i++) {
            long[] x = seen.get(i);
            sb.append(i == 0 ? "" : ", ").append("rank ").append(x[1]).append(": ")
                    .append(x[0] < 0 ? "none" : "seq " + x[0]);
        }
        if (seen.size() > 8) {
            sb.append(", ... (").append(seen.size() - 8).append(" more)");
        }
        return sb.toString();
    }
}
