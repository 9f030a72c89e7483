package io.reactivecollectives.transport.group;

/**
 * A stream's chunk whose dtype differs between this rank and a peer.
 *
 * @param tag    the chunk's index
 * @param source the peer
 * @param theirs the peer's dtype, plus one ({@link CollectiveBox#CHUNK_DTYPE})
 * @param ours   this rank's dtype, plus one
 */
public record ChunkConflict(int tag, int source, int theirs, int ours) {
}
