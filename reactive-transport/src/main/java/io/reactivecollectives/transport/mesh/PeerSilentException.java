package io.reactivecollectives.transport.mesh;

/** Nothing (no heartbeat, no data) arrived from a peer for too many heartbeat intervals; its connection was closed. */
public final class PeerSilentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PeerSilentException(int peer, long silentMillis, int missed) {
        super("peer " + peer + " missed " + missed + " heartbeats (nothing heard for " + silentMillis + " ms)");
    }
}
