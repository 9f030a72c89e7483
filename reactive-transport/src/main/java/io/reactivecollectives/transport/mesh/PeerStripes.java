package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The connections to one peer (its stripes, see {@link MeshOptions#connectionsPerPeer()}) as they
 * pass their handshakes, and their common end: the link to a peer is up when every stripe is, and
 * ends as a whole. The first stripe to end for a reason of its own (an error, a silence, a close
 * from this side, or a close by the peer that no GOODBYE announced) gives the cause that the
 * listener hears, once, before every other stripe is closed too: a peer is never left half
 * connected. A stripe that the peer closed after its GOODBYE (an orderly departure, see
 * {@link FrameHandler}) only ends itself: the others may still hold the last frames the peer wrote
 * before it left, and each ends on its own GOODBYE; the end of stripe 0, which carries the
 * listener's GOODBYE, is the one reported. With one connection per peer this is exactly the
 * connection's own end.
 */
final class PeerStripes {

    private final int peer;
    /** Where the stripes' handlers deliver frames, straight: the mesh's listener. */
    private final FrameListener listener;
    /** Where the end of the link is reported (the mesh's listener behind {@link MeshSharedMemory#closesAfterFrames}). */
    private final LinkEnd closes;
    private final Channel[] channels;
    private int registered;
    private final AtomicReference<Throwable> cause = new AtomicReference<>();
    private final AtomicBoolean reported = new AtomicBoolean();
    /** This side ends the stripes in order ({@link #endGracefully}): each ends on its own. */
    private volatile boolean ending;
    /** The link is being closed because it sat idle ({@link MeshIdle}): its end is no failure. */
    private volatile boolean retiring;
    /** When a frame was last written or read ({@link System#nanoTime}), kept where idle links are closed. */
    private volatile long lastUsed = System.nanoTime();
    private final MeshIdle idle;
    private volatile SocketLink socketLink;

    /** {@link #PeerStripes(int, int, FrameListener, LinkEnd)} reporting the end to {@code listener} too. */
    PeerStripes(int peer, int count, FrameListener listener) {
        this(peer, count, listener, listener);
    }

    /**
     * The stripes to {@code peer}.
     *
     * @param peer     the peer's rank
     * @param count    how many stripes
     * @param listener where frames go, from every stripe's {@link FrameHandler} (and from the
     *                 shared-memory link that may replace the socket link)
     * @param closes   where the end of the link is reported, once
     */
    PeerStripes(int peer, int count, FrameListener listener, LinkEnd closes) {
        this(peer, count, listener, closes, null);
    }

    /**
     * {@link #PeerStripes(int, int, FrameListener, LinkEnd)} whose RETIRE frames go to {@code idle},
     * which closes idle links (null: none; then the last use is not kept either, see {@link #touch}).
     */
    PeerStripes(int peer, int count, FrameListener listener, LinkEnd closes, MeshIdle idle) {
        this.idle = idle;
        this.peer = peer;
        this.listener = listener;
        this.closes = closes;
        this.channels = new Channel[count];
    }

    /** The peer's rank. */
    int peer() {
        return peer;
    }

    /** The socket link over these stripes, once every stripe is up (null before). */
    SocketLink socketLink() {
        return socketLink;
    }

    void socketLink(SocketLink link) {
        this.socketLink = link;
    }

    /** The number of stripes. */
    int count() {
        return channels.length;
    }

    /** Where frames from the peer go (its end goes to the {@code closes} listener given at construction). */
    FrameListener listener() {
        return listener;
    }

    /** Whether stripe {@code stripe} already passed its handshake. */
    synchronized boolean taken(int stripe) {
        return channels[stripe] != null;
    }

    /**
     * Stripe {@code stripe} passed its handshake on {@code ch}. Returns every stripe's channel when
     * this was the last one, else null; a stripe taken twice, or one that comes after the link
     * ended, closes {@code ch} (and returns null).
     */
    Channel[] add(int stripe, Channel ch) {
        Channel[] all = null;
        boolean refuse;
        synchronized (this) {
            refuse = channels[stripe] != null;
            if (!refuse) {
                channels[stripe] = ch;
                if (++registered == channels.length) {
                    all = channels.clone();
                }
            }
        }
        if (refuse || cause.get() != null) {
            ch.close();
        }
        return refuse ? null : all;
    }

    /** Why the link ended or is ending, or null while it is up (any thread). */
    Throwable cause() {
        return cause.get();
    }

    /**
     * The link ends because of {@code why} (the first cause wins): the listener hears of it once,
     * before every stripe is closed, so that the writes the close fails report that cause.
     */
    void fail(Throwable why) {
        end(why, false);
    }

    /** {@link #fail}; {@code here}: this side closes every stripe, also while it ends them in order. */
    private void end(Throwable why, boolean here) {
        cause.compareAndSet(null, why);
        report();
        if (ending && !here) {
            return;   // the others still deliver this side's last frames; the caller's grace bounds them
        }
        Channel[] all;
        synchronized (this) {
            all = channels.clone();
        }
        for (Channel c : all) {
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * Stripe {@code stripe} was closed by the peer after its GOODBYE: stripe 0's end is reported
     * (with {@code why} unless an earlier cause is known), the others wait for their own.
     */
    void departed(int stripe, Throwable why) {
        if (stripe == 0) {
            cause.compareAndSet(null, why);
            report();
        }
    }

    /** A frame was written or read now (where idle links are closed; else nothing). */
    void touch() {
        if (idle != null) {
            lastUsed = System.nanoTime();
        }
    }

    /** {@link System#nanoTime} of the last frame written or read. */
    long lastUsed() {
        return lastUsed;
    }

    /**
     * The peer's RETIRE frame (step 0: it asks to close this idle link, 1: it agrees); a mesh that
     * does not close idle links takes it for a protocol error.
     *
     * @throws MalformedFrameException where idle links are not closed
     */
    void retireFrame(int step) {
        if (idle == null) {
            throw new io.reactivecollectives.transport.frame.MalformedFrameException("RETIRE on a mesh that keeps its links");
        }
        idle.onRetire(peer, this, step);
    }

    /** The link sat idle and is closed quietly from now on: its end is not reported. */
    void retiring() {
        retiring = true;
    }

    boolean isRetiring() {
        return retiring;
    }

    /**
     * Ends a retiring link from this side after its last frames: each stripe sends its end of stream
     * and closes when the peer closed it in turn (the end is not reported).
     */
    void endQuietly() {
        retiring = true;
        Channel[] all;
        synchronized (this) {
            all = channels.clone();
        }
        for (Channel c : all) {
            if (c != null) {
                c.eventLoop().execute(() -> halfClose(c));
            }
        }
    }

    private void report() {
        if (retiring) {
            return;   // an idle link closed by agreement: no failure to report
        }
        if (reported.compareAndSet(false, true)) {
            closes.onClosed(peer, cause.get());
        }
    }

    /**
     * Ends every stripe from this side after the last frames written to it: the listener hears
     * {@code why} now; each stripe then sends its end of stream (see {@link #halfClose}) and stays
     * open, reading, until the peer closes it in turn, whatever the other stripes do meanwhile
     * (one the peer closed first must not cut the others short). A socket closed while
     * bytes it received are still unread is reset by the kernel, and a reset can discard what the
     * peer had not read yet of this side's last frames; a half-close lets the peer read all of them.
     * Completes when every stripe closed (the caller bounds the wait and then closes the rest).
     */
    reactor.core.publisher.Mono<Void> endGracefully(Throwable why) {
        ending = true;
        cause.compareAndSet(null, why);
        report();
        Channel[] all;
        synchronized (this) {
            all = channels.clone();
        }
        java.util.List<reactor.core.publisher.Mono<Void>> ends = new java.util.ArrayList<>();
        for (Channel c : all) {
            if (c != null) {
                ends.add(reactor.core.publisher.Mono.create(sink -> {
                    c.closeFuture().addListener(f -> sink.success());
                    c.eventLoop().execute(() -> halfClose(c));
                }));
            }
        }
        return reactor.core.publisher.Mono.when(ends);
    }

    /**
     * Sends {@code c}'s end of stream; on its event loop. No TLS close_notify goes first: a TLS
     * handler that reads one drops what it decrypted from the same read but has not passed on yet,
     * which can be the last DATA frames and the GOODBYE; the GOODBYE, inside TLS, already marks
     * the orderly end (a stream cut short has none, and fails the link).
     */
    private static void halfClose(Channel c) {
        if (c instanceof io.netty.channel.socket.DuplexChannel d && c.isActive()) {
            d.shutdownOutput();
        } else {
            c.close();
        }
    }

    /** Closes every stripe from this side for {@code why}, on the first stripe's event loop when it has one. */
    void closeWith(Throwable why) {
        Channel first;
        synchronized (this) {
            first = channels[0];
        }
        if (first == null) {
            end(why, true);
            return;
        }
        try {
            first.eventLoop().execute(() -> end(why, true));
        } catch (RuntimeException e) {
            end(why, true);
        }
    }
}
