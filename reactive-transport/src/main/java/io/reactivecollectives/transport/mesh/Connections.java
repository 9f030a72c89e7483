package io.reactivecollectives.transport.mesh;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * What a group's runtime needs of the connections under it, whoever owns them: a {@link Mesh} of
 * its own, or a {@link CarriedGroup} (a subgroup whose frames travel over its parent's mesh,
 * told apart by the group id in each frame's header). Ranks here are the group's own.
 */
public interface Connections {

    /**
     * {@return the number of ranks of the group}
     */
    int world();

    /**
     * {@return the port this process's server listens on (-1 for a world of one)}
     */
    int port();

    /**
     * The link frames to {@code peer} go through.
     *
     * @param peer a rank of the group
     * @return its link, or null (this rank, out of range, not connected)
     */
    PeerLink link(int peer);

    /**
     * The live table of {@link #link}s, for a sender's per-frame path: read an entry per frame,
     * never cache it.
     *
     * @return the table, one entry per rank
     */
    AtomicReferenceArray<PeerLink> linkTable();

    /**
     * {@return whether peers not connected at start are connected on first use ({@link #connect})}
     */
    boolean connectsOnDemand();

    /**
     * Connects to {@code peer} unless connected: completes once frames to it can be written; fails
     * after the connect timeout, and at once where the connections are not made on demand or are closed.
     *
     * @param peer a rank of the group
     * @return completes once frames to {@code peer} can be written
     */
    Mono<Void> connect(int peer);

    /**
     * The link to {@code peer}, connected first where the connections are made on demand: the link
     * read after {@link #connect}, again until one is there (a link closed as idle in between is
     * connected anew). Write to the link it emits at once; do not keep it.
     *
     * @param peer a rank of the group
     * @return a cold {@code Mono} emitting the link, or failing as {@link #connect} does
     */
    default Mono<PeerLink> linkTo(int peer) {
        return Mono.defer(() -> {
            PeerLink l = link(peer);
            return l != null ? Mono.just(l) : connect(peer).then(Mono.defer(() -> linkTo(peer)));
        });
    }

    /**
     * How this rank reaches {@code peer}: {@code "shm"}, {@code "unix"}, {@code "tcp"} or {@code "none"}.
     *
     * @param peer a rank of the group
     * @return the transport's name
     */
    String transportTo(int peer);

    /**
     * {@return each rank's host identity, indexed by rank}
     */
    String[] hostIds();

    /** Stops reading from every connection (back-pressure). */
    void pauseReading();

    /** Resumes reading from every connection. */
    void resumeReading();

    /**
     * Closes the connection to {@code peer} because of {@code why}, which the group's listener hears
     * as that connection's end. Never blocks.
     *
     * @param peer a rank of the group
     * @param why  the cause
     */
    void closeLink(int peer, Throwable why);

    /**
     * {@return whether these connections are closed for the group}
     */
    boolean isClosed();

    /** Closes the group's connections at once; never blocks. */
    void close();

    /**
     * Closes in order: {@code lastWords} writes a last frame on every connection, which then ends
     * once written, or after {@code grace}. Never blocks.
     *
     * @param lastWords the last frame, per link
     * @param grace     the longest the last words may take
     */
    void closeGracefully(Function<PeerLink, Mono<Void>> lastWords, Duration grace);

    /**
     * Carries a subgroup's frames over these connections from now on: frames with the group id
     * {@code groupId.hashCode()} go to {@code listener}, with the subgroup's ranks. Every member must
     * carry it before any sends to it (see {@link CarriedGroup}).
     *
     * @param groupId  the subgroup's id
     * @param rank     this rank in the subgroup
     * @param members  the subgroup's ranks, as ranks of this group, ascending
     * @param listener where the subgroup's frames and the ends of its members' connections go
     * @return the subgroup's connections, or null when that group id is taken here (another group
     *         whose id has the same hash): the subgroup then needs connections of its own
     */
    Connections carry(String groupId, int rank, int[] members, FrameListener listener);
}
