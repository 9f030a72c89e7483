package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.transport.settings.TransportSettings;

/**
 * Which peers a mesh connects each rank to: every other rank (a full mesh), or the ranks within
 * {@code neighbours} places of it on a ring, both ways. A group's heartbeat mesh is a ring above
 * {@link TransportSettings#LIVENESS_RING_ABOVE} ranks: each rank then heartbeats with
 * {@code 2 x neighbours} peers whatever the group's size (O(1) messages and connections per rank
 * per interval instead of O(N)), and each rank is watched by as many. A peer found silent closes
 * the watcher's data connection to it, so the watcher's collectives fail naming it and its abort
 * notices fail the others' copies, naming it too; a dead process closes every data connection to
 * it, as before. The pairs are symmetric (a peer of a rank has that rank as its peer), and, as in
 * the full mesh, the higher rank of a pair dials the lower.
 *
 * @param neighbours ranks on each side of a rank on the ring; 0 for every rank
 */
public record MeshPeers(int neighbours) {

    /** Every other rank. */
    public static final MeshPeers ALL = new MeshPeers(0);

    /**
     * Checks the count.
     *
     * @param neighbours ranks on each side; 0 for every rank
     * @throws IllegalArgumentException when negative
     */
    public MeshPeers {
        if (neighbours < 0) {
            throw new IllegalArgumentException("neighbours must be >= 0, got " + neighbours);
        }
    }

    /**
     * The peers of a group's heartbeat mesh: every rank up to {@link TransportSettings#LIVENESS_RING_ABOVE}
     * ranks, else {@link TransportSettings#LIVENESS_NEIGHBOURS} on each side on a ring.
     *
     * @param world the group's size
     * @return the peers
     */
    public static MeshPeers forLiveness(int world) {
        return world > TransportSettings.LIVENESS_RING_ABOVE.get()
                ? new MeshPeers(TransportSettings.LIVENESS_NEIGHBOURS.get()) : ALL;
    }

    /**
     * Whether every other rank is a peer in a group of {@code world}.
     *
     * @param world the group's size
     * @return true for a full mesh
     */
    public boolean all(int world) {
        return neighbours == 0 || 2L * neighbours >= world - 1;
    }

    /**
     * Whether {@code peer} is a peer of {@code rank} in a group of {@code world}.
     *
     * @param rank  a rank
     * @param peer  another rank
     * @param world the group's size
     * @return true when they connect
     */
    public boolean includes(int rank, int peer, int world) {
        if (peer == rank || peer < 0 || peer >= world) {
            return false;
        }
        if (all(world)) {
            return true;
        }
        int d = Math.floorMod(peer - rank, world);
        return d <= neighbours || d >= world - neighbours;
    }

    /**
     * How many peers {@code rank} has in a group of {@code world}.
     *
     * @param rank  a rank
     * @param world the group's size
     * @return the count
     */
    public int count(int rank, int world) {
        return all(world) ? world - 1 : 2 * neighbours;
    }

    @Override
    public String toString() {
        return neighbours == 0 ? "every rank" : "a heartbeat ring of " + neighbours + " ranks on each side";
    }
}
