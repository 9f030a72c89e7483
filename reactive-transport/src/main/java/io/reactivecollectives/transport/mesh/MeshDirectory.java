package io.reactivecollectives.transport.mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntPredicate;

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

    /**
     * Which peers of {@code rank} are missing and why, for the start-up timeout's message: {@code
     * ranks [..] never appeared within <ms> ms (connected: [..], world size n); rank p unreachable: ..}.
     *
     * @param rank      this rank
     * @param connected whether a peer has a link
     * @param timeoutMs the connect timeout that passed
     * @return the description
     */
    String missing(int rank, IntPredicate connected, long timeoutMs) {
        int world = addresses.length();
        List<Integer> absent = new ArrayList<>();
        List<Integer> present = new ArrayList<>();
        for (int p = 0; p < world; p++) {
            if (p != rank) {
                (connected.test(p) ? present : absent).add(p);
            }
        }
        StringBuilder unreachable = new StringBuilder();
        for (int p : absent) {
            String e = lastError(p);
            if (e != null) {
                unreachable.append("; rank ").append(p).append(" unreachable: ").append(e);
            }
        }
        return "ranks " + absent + " never appeared within " + timeoutMs + " ms (connected: " + present
                + ", world size " + world + ")" + unreachable;
    }
}
