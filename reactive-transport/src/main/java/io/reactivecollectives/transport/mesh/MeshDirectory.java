package io.reactivecollectives.transport.mesh;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What a mesh learned about where each peer is: the address it published (unique to its process),
 * its host identity (part of that address), and the last error met connecting to it (for the
 * start-up timeout's message). Thread-safe.
 */
final class MeshDirectory {

    private final AtomicReferenceArray<String> addresses;
    private final AtomicReferenceArray<String> hostIds;
    private final AtomicReferenceArray<String> lastErrors;

    MeshDirectory(int world, int rank) {
        this.addresses = new AtomicReferenceArray<>(world);
        this.hostIds = new AtomicReferenceArray<>(world);
        this.lastErrors = new AtomicReferenceArray<>(world);
        hostIds.set(rank, LocalSockets.NODE_ID);
    }

    /** Notes the address {@code peer} published (its host identity is part of it). */
    void noteAddress(int peer, String published) {
        addresses.set(peer, published);
        for (String part : published.split(";")) {
            if (part.startsWith("node=")) {
                hostIds.set(peer, part.substring(5));
            }
        }
    }

    /** The address {@code peer} published, or null before it was seen. */
    String address(int peer) {
        return addresses.get(peer);
    }

    /** Each rank's host identity as published; null for a peer that published none. */
    String[] hostIds() {
        String[] out = new String[hostIds.length()];
        for (int p = 0; p < out.length; p++) {
            out[p] = hostIds.get(p);
        }
        return out;
    }

    /** Notes the last error connecting to {@code peer}. */
    void noteError(int peer, String error) {
        lastErrors.set(peer, error);
    }

    /** The last error connecting to {@code peer}, or null. */
    String lastError(int peer) {
        return lastErrors.get(peer);
    }
}
