package io.reactivecollectives.transport.mesh;

/** Hears that a link ended: once per link, on the thread that saw it end. */
@FunctionalInterface
public interface LinkEnd {

    /**
     * The connection to {@code peer} closed.
     *
     * @param peer  the peer's rank
     * @param cause why, or null for an orderly close by the peer
     */
    void onClosed(int peer, Throwable cause);
}
