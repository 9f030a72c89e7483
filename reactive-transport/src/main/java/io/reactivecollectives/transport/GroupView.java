package io.reactivecollectives.transport;

import io.reactivecollectives.core.observe.CollectiveMetrics;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.group.P2PStall;
import io.reactivecollectives.transport.group.Stall;
import io.reactivecollectives.transport.runtime.GroupRuntime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A read-only live view of one rank of a group, for a {@link DashboardProvider}: who it is, what it
 * runs now and whom each collective waits for, what it finished, what it knows of every peer. Each
 * call reads the group's state at that moment (under the mailbox's lock for the waits, briefly); no
 * tensor contents are ever part of it.
 */
public final class GroupView {

    /** What the dashboard's cookie token is the HMAC of, under the group's secret. */
    static final String COOKIE_LABEL = "rc-dashboard-cookie";

    private final MeshProcessGroup group;
    private final GroupRuntime runtime;

    GroupView(MeshProcessGroup group, GroupRuntime runtime) {
        this.group = group;
        this.runtime = runtime;
    }

    /**
     * A collective or receive running on this rank.
     *
     * @param seq          its sequence number (-1 for a point-to-point receive)
     * @param op           the operation ({@code allReduce}, {@code recv}, ...)
     * @param bytes        its input's size in bytes (0 when unknown)
     * @param algorithm    the algorithm it runs (null when not chosen yet)
     * @param state        {@code SCHEDULED} (subscribed, not started) or {@code STARTED}
     * @param ageNanos     how long since it was subscribed to
     * @param timeoutNanos its timeout, 0 when unknown
     * @param waitingFor   the ranks its receives wait for now, or whose receipts it awaits
     */
    public record InFlight(long seq, String op, long bytes, String algorithm, String state, long ageNanos,
                           long timeoutNanos, List<Integer> waitingFor) {
    }

    /**
     * What this rank knows of one peer.
     *
     * @param rank          the peer's rank
     * @param transport     how it is reached: {@code shm}, {@code unix}, {@code tcp} or {@code none}
     * @param alive         false once the peer was declared dead or departed
     * @param death         why it was declared dead, or null
     * @param lastSeqHeard  the latest collective it sent this rank data for, -1 for none
     * @param bytesSent     payload bytes sent to it ({@code rc.peer.bytes.sent})
     * @param bytesReceived payload bytes received from it ({@code rc.peer.bytes.received})
     */
    public record Peer(int rank, String transport, boolean alive, String death, long lastSeqHeard, double bytesSent,
                       double bytesReceived) {
    }

    /** {@return the group's name} */
    public String groupId() {
        return group.groupId();
    }

    /** {@return the job the group's ranks agreed on (the flight recorder's), or null} */
    public String job() {
        return runtime.observer().recorder().job();
    }

    /** {@return this rank} */
    public int rank() {
        return group.rank();
    }

    /** {@return the group's size} */
    public int size() {
        return group.size();
    }

    /** {@return the group's generation (one more for each shrink)} */
    public int generation() {
        return group.generation();
    }

    /** {@return whether the group is closed} */
    public boolean isClosed() {
        return group.isClosed();
    }

    /** {@return the next collective's sequence number: how many this rank has started} */
    public long nextSequence() {
        return group.nextSequence();
    }

    /** {@return the group's flight recorder} */
    public FlightRecorder flightRecorder() {
        return runtime.observer().recorder();
    }

    /** {@return the group's meters (the same the registry publishes)} */
    public CollectiveMetrics metrics() {
        return runtime.observer().metrics();
    }

    /** {@return the store the group met through (where the dashboards of a job find each other)} */
    public Store store() {
        return group.store();
    }

    /** {@return where this rank serves its view} */
    public DashboardOptions dashboard() {
        return group.options().diagnostics().dashboard();
    }

    /**
     * Whether {@code presented} is the group's secret (in constant time); true for any value when the
     * group has none.
     *
     * @param presented what a request carried, or null
     * @return whether it may read the view
     */
    public boolean admits(String presented) {
        String secret = group.options().secret();
        if (secret == null || secret.isEmpty()) {
            return true;
        }
        return presented != null && java.security.MessageDigest.isEqual(
                secret.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                presented.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * The token a dashboard's cookie holds in place of the secret: hex HMAC-SHA256 of
     * {@code "rc-dashboard-cookie"} under the group's secret, so that the cookie never carries the secret
     * (which also authenticates the store and the ranks).
     *
     * @return the token, or null when the group has no secret
     */
    public String dashboardToken() {
        if (!hasSecret()) {
            return null;
        }
        byte[] mac = io.reactivecollectives.store.wire.HandshakeMac.mac(
                group.options().secret().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                COOKIE_LABEL.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(mac);
    }

    /**
     * Whether {@code presented} is the {@link #dashboardToken()} (in constant time); true for any
     * value when the group has no secret.
     *
     * @param presented what a request's cookie carried, or null
     * @return whether it may read the view
     */
    public boolean admitsToken(String presented) {
        String token = dashboardToken();
        return token == null || presented != null && java.security.MessageDigest.isEqual(
                token.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                presented.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** {@return whether the group has a secret (an address other than loopback needs one)} */
    public boolean hasSecret() {
        String secret = group.options().secret();
        return secret != null && !secret.isEmpty();
    }

    /**
     * The group's secret, for a dashboard that reads the views of the other ranks of its job.
     *
     * @return the secret, or null when the group has none
     */
    public String secret() {
        return hasSecret() ? group.options().secret() : null;
    }

    /**
     * What runs now: the collectives the flight recorder holds as scheduled or started, with whom
     * each waits for, oldest first, then the point-to-point receives.
     *
     * @param entries the flight recorder's entries, as {@link FlightRecorder#entries()} gives them
     * @return the collectives and receives in flight
     */
    public List<InFlight> inFlight(List<FlightRecorderDump.Entry> entries) {
        long now = System.nanoTime();
        Map<Long, Stall> waits = new HashMap<>();
        for (Stall s : runtime.mailbox().stalled(0, now)) {
            waits.put(s.sequence(), s);
        }
        long nowUs = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
        List<InFlight> out = new ArrayList<>();
        for (FlightRecorderDump.Entry e : entries) {
            if (e.completed() || e.failed()) {
                continue;
            }
            Stall s = waits.get(e.seq());
            long age = s != null ? s.runningNanos()
                    : TimeUnit.MICROSECONDS.toNanos(Math.max(0, nowUs - (e.scheduledAtUs() == null ? nowUs : e.scheduledAtUs())));
            List<Integer> whom = s == null ? List.of()
                    : (!s.receivesFrom().isEmpty() ? s.receivesFrom() : s.receiptsFrom()).stream().boxed().toList();
            out.add(new InFlight(e.seq(), e.op(), e.inputBytes(), e.algorithm(), e.state(), age,
                    s == null ? 0 : s.timeoutNanos(), whom));
        }
        for (P2PStall r : runtime.p2p().stalled(0, now)) {
            out.add(new InFlight(-1, r.op(), r.bytes(), null, "STARTED", r.runningNanos(), r.timeoutNanos(),
                    r.source() < 0 ? List.of() : List.of(r.source())));
        }
        return out;
    }

    /** {@return what this rank knows of each other rank, by rank} */
    public List<Peer> peers() {
        List<Peer> out = new ArrayList<>(size() - 1);
        CollectiveMetrics m = metrics();
        for (int p = 0; p < size(); p++) {
            if (p == rank()) {
                continue;
            }
            String death = runtime.peerFailures().deathOf(p);
            out.add(new Peer(p, group.transportTo(p), death == null, death, runtime.peerFailures().lastSeqFrom(p),
                    m.peerBytesSent(p), m.peerBytesReceived(p)));
        }
        return out;
    }

    @Override
    public String toString() {
        return "GroupView[" + groupId() + " rank " + rank() + "/" + size() + "]";
    }
}
