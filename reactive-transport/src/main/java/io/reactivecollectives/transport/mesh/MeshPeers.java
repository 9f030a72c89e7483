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
 * <p>A group's data mesh connects every pair up to {@link TransportSettings#MESH_FULL_UP_TO} ranks;
 * above, it starts connected to the ranks a power of two away on the ring, either way
 * ({@link #POWERS_OF_TWO}: at most {@code 2 log2 N}, the peers of the ring, recursive doubling and
 * halving, binomial trees rooted anywhere and the dissemination barrier), and connects to any other
 * peer when a collective first sends to it ({@link Mesh#connect}).
 *
 * @param neighbours  ranks on each side of a rank on the ring; 0 for every rank (or, with
 *                    {@code powersOfTwo}, none beyond those)
 * @param powersOfTwo whether the ranks a power of two away on the ring, either way, are peers
 */
public record MeshPeers(int neighbours, boolean powersOfTwo) {

    /** Every other rank. */
    public static final MeshPeers ALL = new MeshPeers(0);

    /** The ranks a power of two away on the ring, either way; others are connected on demand. */
    public static final MeshPeers POWERS_OF_TWO = new MeshPeers(0, true);

    /**
     * A ring of {@code neighbours} on each side, or every rank (0).
     *
     * @param neighbours ranks on each side; 0 for every rank
     * @throws IllegalArgumentException when negative
     */
    public MeshPeers(int neighbours) {
        this(neighbours, false);
    }

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
     * The peers of a group's data mesh: every rank up to {@link TransportSettings#MESH_FULL_UP_TO}
     * ranks, else {@link #POWERS_OF_TWO}.
     *
     * @param world the group's size
     * @return the peers
     */
    public static MeshPeers forData(int world) {
        return world > TransportSettings.MESH_FULL_UP_TO.get() ? POWERS_OF_TWO : ALL;
    }

    /**
     * Whether every other rank is a peer in a group of {@code world}.
     *
     * @param world the group's size
     * @return true for a full mesh
     */
    public boolean all(int world) {
        if (powersOfTwo) {
            return powerDistances(world) >= world - 1;
        }
        return neighbours == 0 || 2L * neighbours >= world - 1;
    }

    /**
     * Whether a mesh of these peers in a group of {@code world} connects to the others on demand
     * ({@link #POWERS_OF_TWO} short of every rank).
     *
     * @param world the group's size
     * @return true when some peers are connected only when first needed
     */
    public boolean onDemand(int world) {
        return powersOfTwo && !all(world);
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
        int d = Math.floorMod(peer - rank, world);
        if (powersOfTwo) {   // every peer when every distance is one (a whole ring)
            return Integer.bitCount(d) == 1 || Integer.bitCount(world - d) == 1;
        }
        return all(world) || d <= neighbours || d >= world - neighbours;
    }

    /**
     * How many peers {@code rank} has in a group of {@code world}.
     *
     * @param rank  a rank
     * @param world the group's size
     * @return the count
     */
    public int count(int rank, int world) {
        if (all(world)) {
            return world - 1;
        }
        return powersOfTwo ? powerDistances(world) : 2 * neighbours;
    }

    /**
     * How many distances on a ring of {@code world} are a power of two one way or the other: each
     * {@code 2^k} below {@code world}, and each {@code world - 2^k} that is not one of those already.
     */
    private static int powerDistances(int world) {
        int count = 0;
        for (long step = 1; step < world; step <<= 1) {
            count += Integer.bitCount(world - (int) step) == 1 ? 1 : 2;
        }
        return count;
    }

    /**
     * What a rank publishes with its address (the {@code peers=} part) so that ranks whose settings
     * give different peer sets find out at start: {@code all}, {@code pow2} or {@code ring<k>}, for a
     * group of {@code world}.
     *
     * @param world the group's size
     * @return the code
     */
    public String code(int world) {
        return all(world) ? "all" : powersOfTwo ? "pow2" : "ring" + neighbours;
    }

    /**
     * Why {@code peer}, which published {@code published}, and {@code rank} (with these peers) cannot
     * form a group of {@code world}: their settings give them other sets of peers ({@link #code});
     * null when they agree (or the address carries no code).
     *
     * @param published the peer's published address
     * @param world     the group's size
     * @param peer      the peer
     * @param rank      this rank
     * @param liveness  whether this is a heartbeat mesh (whose settings the message names)
     * @return the reason, or null
     */
    String mismatch(String published, int world, int peer, int rank, boolean liveness) {
        String mine = code(world);
        for (String part : published.split(";")) {
            if (part.startsWith("peers=") && !part.substring(6).equals(mine)) {
                String settings = liveness ? "rc.liveness.ringAbove and rc.liveness.neighbours" : "rc.mesh.fullUpTo";
                return "rank " + peer + " connects to " + part.substring(6) + " peers and rank " + rank + " to " + mine
                        + " in this " + world + "-rank group: " + settings + " must be the same on every rank";
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return powersOfTwo ? "the ranks a power of two away, the others on demand"
                : neighbours == 0 ? "every rank" : "a heartbeat ring of " + neighbours + " ranks on each side";
    }
}
