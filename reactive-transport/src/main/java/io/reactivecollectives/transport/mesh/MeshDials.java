package io.reactivecollectives.transport.mesh;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections a mesh that connects on demand ({@link MeshPeers#onDemand}) makes when a
 * collective first writes to a peer it is not connected to: one dial per peer, shared by every
 * caller; when the peer dialled this rank at the same time, the lower rank's dial is kept (the
 * higher rank's is refused with {@link MeshHandshake#CROSSED}) and the higher rank waits for the
 * link its peer's dial brings.
 */
final class MeshDials {

    private final Mesh mesh;
    /** The dials in progress, each until it ends. */
    private final ConcurrentHashMap<Integer, Mono<Void>> dials = new ConcurrentHashMap<>();
    /** Who waits for a peer's link to come up, by peer (an answered dial, or the peer's own). */
    private final ConcurrentHashMap<Integer, Sinks.Empty<Void>> arrivals = new ConcurrentHashMap<>();

    MeshDials(Mesh mesh) {
        this.mesh = mesh;
    }

    /**
     * Connects to {@code peer} unless connected: dials it (its address from rank 0's book, else its
     * key), or, when the peer dialled this rank at the same time, waits for its connection.
     */
    Mono<Void> connect(int peer) {
        return Mono.defer(() -> {
            if (mesh.link(peer) != null) {
                return Mono.empty();
            }
            if (mesh.isClosed() || peer == mesh.rank() || peer < 0 || peer >= mesh.world() || !mesh.connectsOnDemand()) {
                return Mono.error(PeerClosedException.unreachable(peer, mesh.describe() + " has no connection to it"
                        + (mesh.isClosed() ? " (mesh closed)" : ""), null));
            }
            // a link to it this rank asked to close as idle is closed first: then the peer accepts a new one
            return mesh.settled(peer).then(Mono.defer(() -> mesh.link(peer) != null ? Mono.<Void>empty()
                    : dials.computeIfAbsent(peer, p -> dial(p).doFinally(x -> dials.remove(p)).cache())));
        });
    }

    /** Whether this rank is dialling {@code peer} now. */
    boolean dialing(int peer) {
        return dials.containsKey(peer);
    }

    /** A link to {@code peer} is in the mesh's table now: whoever waits for it goes on. */
    void arrived(int peer) {
        Sinks.Empty<Void> waiting = arrivals.remove(peer);
        if (waiting != null) {
            waiting.tryEmitEmpty();
        }
    }

    private Mono<Void> dial(int peer) {
        long timeoutMs = mesh.options().connectTimeout().toMillis();
        return mesh.connectTo(peer, mesh.addressOf(peer))
                // refused because the peer's own dial crossed this one, or already connected: its link comes
                .onErrorResume(e -> mesh.link(peer) != null || String.valueOf(e.getMessage()).contains(MeshHandshake.CROSSED)
                        || String.valueOf(e.getMessage()).contains(MeshHandshake.ALREADY_CONNECTED), e -> Mono.empty())
                // ... unless that link was closed as idle before it got here (MeshIdle): then dial again
                .then(Mono.defer(() -> arrival(peer).timeout(REDIAL_AFTER, Mono.error(NoLinkYet::new))))
                .retryWhen(reactor.util.retry.Retry.indefinitely().filter(e -> e instanceof NoLinkYet))
                .timeout(mesh.options().connectTimeout())
                .onErrorMap(e -> !(e instanceof PeerClosedException), e -> PeerClosedException.unreachable(peer,
                        mesh.describe() + " could not connect to it on demand within " + timeoutMs + " ms (" + e.getMessage() + ")", e));
    }

    /** How long a refused dial waits for the peer's connection before it dials again. */
    private static final java.time.Duration REDIAL_AFTER = java.time.Duration.ofSeconds(1);

    /** No link came within {@link #REDIAL_AFTER} of a refused dial. */
    private static final class NoLinkYet extends RuntimeException {
        NoLinkYet() {
            super("no connection yet", null, false, false);
        }
    }

    /** Completes once a link to {@code peer} is in the table (at once when it is). */
    private Mono<Void> arrival(int peer) {
        Sinks.Empty<Void> s = arrivals.computeIfAbsent(peer, p -> Sinks.empty());
        if (mesh.link(peer) != null) {
            arrivals.remove(peer, s);
            return Mono.empty();
        }
        return s.asMono();
    }
}
