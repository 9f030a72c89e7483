package io.reactivecollectives.transport.mesh;

import io.netty.buffer.Unpooled;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closes a mesh's connections made on demand when they sit idle and there are more of them than
 * {@code rc.mesh.onDemandLimit} (0, the default: never). The connections made at start (the ranks a
 * power of two away) are kept. The close is agreed, never a failure:
 * <ol>
 *   <li>this rank takes the least recently used link that has been idle for {@code rc.mesh.idleAfter}
 *   out of its tables and writes RETIRE (step 0) on it; a frame it sends to that peer from now on
 *   waits for the agreement and then dials anew;</li>
 *   <li>the peer takes the link out of its own tables (its next frame dials anew, and this rank
 *   accepts that connection) and answers RETIRE (step 1) after everything it wrote there;</li>
 *   <li>each side, once it answered or was answered, ends the old connection after a grace of
 *   {@value #GRACE_MS} ms (a frame a sender had already routed to it still arrives) with an end
 *   of stream, and closes it when the other side did the same. Neither reports that end.</li>
 * </ol>
 * A peer that dies meanwhile is found by the heartbeats, as any peer not connected is.
 */
final class MeshIdle {

    private static final Logger log = LoggerFactory.getLogger(MeshIdle.class);
    /** How long a link out of the tables stays open for frames already routed to it. */
    static final long GRACE_MS = 200;

    private final Mesh mesh;
    private final int limit;
    private final long idleNanos;
    /** The peers whose link this rank asked to close, until the peer agreed. */
    private final Map<Integer, Sinks.Empty<Void>> asked = new ConcurrentHashMap<>();
    /** Links out of the tables that have not ended yet (closed with the mesh). */
    private final Set<PeerStripes> leaving = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean checkPending = new AtomicBoolean();

    private MeshIdle(Mesh mesh, int limit, Duration idleAfter) {
        this.mesh = mesh;
        this.limit = limit;
        this.idleNanos = idleAfter.toNanos();
    }

    /**
     * The idle closer of {@code mesh}: {@link #active()} for a data mesh that connects on demand
     * with a limit set, else one that keeps every connection.
     */
    static MeshIdle of(Mesh mesh, boolean data) {
        int limit = TransportSettings.MESH_ON_DEMAND_LIMIT.get();
        return new MeshIdle(mesh, data && mesh.connectsOnDemand() ? Math.max(0, limit) : 0,
                TransportSettings.MESH_IDLE_AFTER.get());
    }

    /** {@return whether idle connections are closed here} */
    boolean active() {
        return limit > 0;
    }

    /** Completes once no close of the link to {@code peer} that this rank asked for is pending. */
    Mono<Void> settled(int peer) {
        Sinks.Empty<Void> pending = asked.get(peer);
        // an answer that never comes (the peer died) leaves the dial to find that out
        return pending == null ? Mono.empty() : pending.asMono().timeout(mesh.options().connectTimeout(), Mono.empty());
    }

    /** A link came up: over the limit, the least recently used idle ones are asked to close. */
    void arrived() {
        try {
            check();
        } catch (RuntimeException e) {   // never at the cost of the link that came up
            log.warn("{}: could not look for idle connections to close", mesh.describe(), e);
        }
    }

    /** The connections made on demand that are open now (no close pending). */
    private List<SocketLink> onDemand() {
        List<SocketLink> open = new ArrayList<>();
        for (int p = 0; p < mesh.world(); p++) {
            SocketLink l = p == mesh.rank() || mesh.expects(p) ? null : mesh.socketLink(p);
            if (l != null && !l.stripesOf().isRetiring()) {
                open.add(l);
            }
        }
        return open;
    }

    private void check() {
        if (limit <= 0 || mesh.isClosed()) {
            return;
        }
        List<SocketLink> open = onDemand();
        int over = open.size() - limit;
        if (over <= 0) {
            return;
        }
        record Idle(SocketLink link, long nanos) {   // read once: the links' use goes on meanwhile
        }
        long now = System.nanoTime();
        List<Idle> idle = new ArrayList<>();
        for (SocketLink l : open) {
            long nanos = now - l.stripesOf().lastUsed();
            if (nanos >= idleNanos) {
                idle.add(new Idle(l, nanos));
            }
        }
        idle.sort(Comparator.comparingLong(Idle::nanos).reversed());   // least recently used first
        for (int i = 0; i < idle.size() && over > 0; i++, over--) {
            ask(idle.get(i).link());
        }
        if (over > 0 && checkPending.compareAndSet(false, true)) {   // none idle enough yet: look again later
            Schedulers.parallel().schedule(() -> {
                checkPending.set(false);
                arrived();
            }, Math.max(1, idleNanos / 1_000_000), TimeUnit.MILLISECONDS);
        }
    }

    /** Step 1 of the close, on this side: out of the tables, RETIRE asked. */
    private void ask(SocketLink l) {
        int peer = l.peer();
        Sinks.Empty<Void> pending = Sinks.empty();
        if (asked.putIfAbsent(peer, pending) != null) {
            return;
        }
        PeerStripes s = l.stripesOf();
        if (!takeOut(l, s)) {
            asked.remove(peer, pending);
            pending.tryEmitEmpty();
            return;
        }
        log.debug("{}: closing the idle connection to rank {}", mesh.describe(), peer);
        l.writeFrame(FrameType.RETIRE, -1, 0, 0, 0, 0L, 0L, Unpooled.EMPTY_BUFFER).addListener(f -> {
            if (!f.isSuccess()) {   // the connection is gone: nothing to agree on
                agreed(peer, s);
            }
        });
    }

    /** The peer's RETIRE on {@code s} (on the connection's event loop): {@code step} 0 asks, 1 agrees. */
    void onRetire(int peer, PeerStripes s, int step) {
        if (step == 0) {
            SocketLink l = mesh.socketLink(peer);
            takeOut(l != null && l.stripesOf() == s ? l : null, s);   // null: this rank asked too, it is out already
            SocketLink own = s.socketLink();
            if (own != null) {
                own.writeFrame(FrameType.RETIRE, -1, 0, 1, 0, 0L, 0L, Unpooled.EMPTY_BUFFER);
            }
        }
        agreed(peer, s);   // both asked at once: the peer's question answers this rank's too
    }

    /**
     * Takes {@code l} (when given) out of the mesh's tables, and its carried subgroups' with them;
     * marks {@code s} retiring and keeps it until it ended. False when {@code l} was not the peer's link.
     */
    private boolean takeOut(SocketLink l, PeerStripes s) {
        if (l != null) {
            if (!mesh.detach(l)) {
                return false;
            }
            mesh.listener().linkChanged(l.peer());
        }
        s.retiring();
        leaving.add(s);
        return true;
    }

    /** No answer is awaited from {@code peer} any more; {@code s} ends after the grace. */
    private void agreed(int peer, PeerStripes s) {
        Sinks.Empty<Void> mine = asked.remove(peer);
        if (mine != null) {
            mine.tryEmitEmpty();
        }
        endLater(s);
    }

    /** Ends {@code s} after the grace: frames already routed to it go out first. */
    private void endLater(PeerStripes s) {
        Schedulers.parallel().schedule(() -> {
            s.endQuietly();
            leaving.remove(s);
        }, GRACE_MS, TimeUnit.MILLISECONDS);
    }

    /** The mesh closes: the links still leaving close with it, and no dial waits for an answer. */
    void close() {
        for (PeerStripes s : leaving) {
            s.closeWith(PeerClosedException.closedHere(s.peer()));
        }
        leaving.clear();
        asked.values().forEach(Sinks.Empty::tryEmitEmpty);
        asked.clear();
    }
}
