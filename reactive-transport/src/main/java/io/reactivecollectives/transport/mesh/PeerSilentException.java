package io.reactivecollectives.transport.mesh;

import java.util.Locale;

/**
 * Nothing (no heartbeat, no data) arrived from a peer for too many heartbeat intervals; this rank
 * closed its connection. Message: {@code peer 3 unresponsive: nothing heard for 2.7 s (peer 3
 * missed 5 heartbeats)}.
 */
public final class PeerSilentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int peer;
    private final long silentMillis;

    /**
     * @param peer         the silent peer
     * @param silentMillis how long nothing was heard from it
     * @param missed       the number of heartbeat intervals that makes a peer unresponsive
     */
    public PeerSilentException(int peer, long silentMillis, int missed) {
        super("peer " + peer + " unresponsive: nothing heard for "
                + String.format(Locale.ROOT, "%.1f", silentMillis / 1000.0) + " s (peer " + peer + " missed "
                + missed + " heartbeats)");
        this.peer = peer;
        this.silentMillis = silentMillis;
    }

    /**
     * The silence another rank found, relayed: message {@code <finding> (found by rank <reporter>)}.
     *
     * @param peer     the silent peer
     * @param finding  the reporter's message
     * @param reporter the rank that found it (it watches the peer's heartbeats)
     */
    public PeerSilentException(int peer, String finding, int reporter) {
        super(finding + " (found by rank " + reporter + ")");
        this.peer = peer;
        this.silentMillis = -1;
    }

    /** The silent peer. */
    public int peer() {
        return peer;
    }

    /** Milliseconds nothing was heard from the peer when it was declared unresponsive; -1 when relayed. */
    public long silentMillis() {
        return silentMillis;
    }
}
