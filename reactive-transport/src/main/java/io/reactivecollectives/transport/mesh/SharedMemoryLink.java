package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.shm.ShmLinks;
import io.reactivecollectives.transport.shm.ShmOutbound;
import reactor.core.publisher.Mono;

/**
 * The link to a peer on this host through shared memory ({@link PeerLink}): frames go into the
 * peer's ring ({@link ShmOutbound}), copied in on the calling thread where nothing waits on the ring
 * and the frame fits (done on return, nothing allocated), else queued behind what waits and completed
 * by whichever thread copies it in, with no hop through an event loop. What the peer writes
 * into its ring to this rank is read by the rank's poller and checked by {@link SharedMemoryFrames},
 * which delivers it to {@link #listener()}.
 *
 * <p>The ring's memory is taken from the host's budget at the first write ({@link ShmOutbound#reserve()}):
 * a ring the budget cannot hold is never written, and every frame to the peer goes through the
 * socket link instead, from the first one on, so the order of frames is the socket's.
 *
 * <p>The peer's socket link stays open underneath: its close is how the peer's death is seen (a
 * killed process's sockets close at once), this side's close and graceful end go through it, and
 * its cause is what a failed write reports. Its close is reported only after the frames the peer
 * wrote into the ring before it were delivered ({@link #afterFrames}); writes still queued then fail
 * with the connection's cause.
 */
final class SharedMemoryLink implements PeerLink {

    /** The future of a frame copied into the ring at once: shared, as it holds nothing. */
    private static final Future<Void> WRITTEN = ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);

    private final SocketLink socket;
    private final ShmLinks shm;
    private final ShmOutbound ring;
    private final int peer;
    private final int self;
    private final int group;
    /** The socket link's listener, read once: the poller reads it for every frame. */
    private final FrameListener listener;

    /**
     * The link to {@code socket}'s peer through {@code shm}, which has an outbound ring to it.
     *
     * @param socket the peer's socket link, which stays open underneath
     * @param shm    this rank's shared-memory links
     * @param self   this rank
     * @param group  the group's id hash
     */
    SharedMemoryLink(SocketLink socket, ShmLinks shm, int self, int group) {
        this.socket = socket;
        this.shm = shm;
        this.peer = socket.peer();
        this.ring = shm.outbound(peer);
        this.self = self;
        this.group = group;
        this.listener = socket.listener();
        if (ring == null) {
            throw new IllegalArgumentException("rank " + peer + " is not reached through shared memory");
        }
    }

    @Override
    public int peer() {
        return peer;
    }

    /** {@code "shm"}, or the socket's transport when the host's budget could not hold the ring. */
    @Override
    public String transport() {
        return ring.refused() ? socket.transport() : "shm";
    }

    /** Whether the socket underneath is open. */
    @Override
    public boolean isActive() {
        return socket.isActive();
    }

    /** The socket link's: both deliver to the mesh's one listener. */
    @Override
    public FrameListener listener() {
        return listener;
    }

    /** The socket connection kept open underneath. */
    SocketLink socket() {
        return socket;
    }

    @Override
    public Future<Void> writeFrame(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                                   long agreementCount, ByteBuf payload) {
        return writeFrameAs(group, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
    }

    @Override
    public Future<Void> writeFrameAs(int group, FrameType type, long seq, int tag, int step, int chunk,
                                     long agreementWord, long agreementCount, ByteBuf payload) {
        if (!ring.reserve()) {
            return socket.writeFrameAs(group, type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
        }
        if (ring.tryWriteFrame(type, group, seq, tag, step, chunk, self, agreementWord, agreementCount, payload)) {
            return WRITTEN;
        }
        ByteBuf header;
        try {
            header = FrameCodec.encodeHeaderOnHeap(type, group, seq, tag, step, chunk, self, agreementWord,
                    agreementCount, payload.readableBytes());
        } catch (Throwable t) {
            payload.release();
            throw t;
        }
        Promise<Void> written = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
        ring.write(new ByteBuf[] {header, payload}, written);
        return written;
    }

    /** The socket's explanation: the cause its connection was closed for, or the peer's close. */
    @Override
    public Throwable writeFailure(Throwable error) {
        return socket.writeFailure(error);
    }

    /** The fragments go into the ring as one write: nothing comes between them. */
    @Override
    public Mono<Void> sendFragments(int tag, long kind, ByteBuf[] fragments) {
        return sendFragmentsAs(group, tag, kind, fragments);
    }

    @Override
    public Mono<Void> sendFragmentsAs(int group, int tag, long kind, ByteBuf[] fragments) {
        if (!ring.reserve()) {
            return socket.sendFragmentsAs(group, tag, kind, fragments);
        }
        return Mono.create(sink -> {
            Promise<Void> last = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
            ByteBuf[] parts = new ByteBuf[2 * fragments.length];
            for (int i = 0; i < fragments.length; i++) {
                parts[2 * i] = FrameCodec.encodeHeader(socket.channel().alloc(), FrameType.P2P, group, 0, tag,
                        fragments.length, i, self, kind, 0L, fragments[i].readableBytes(), 0);
                parts[2 * i + 1] = fragments[i];
            }
            ring.write(parts, last);
            settleWhenDone(last, sink);
        });
    }

    /** Closes the socket underneath for {@code why}; the writes still queued fail with it once the close is reported. */
    @Override
    public void closeWith(Throwable why) {
        socket.closeWith(why);
    }

    /** Ends the socket underneath after the last words (written into the ring before it). */
    @Override
    public Mono<Void> endGracefully() {
        return socket.endGracefully();
    }

    /**
     * The socket underneath closed: runs {@code report} on the poller thread once every frame the
     * peer wrote into the ring before was delivered, then fails the writes still queued for the peer
     * with the connection's cause.
     *
     * @param report what tells the listener
     */
    void afterFrames(Runnable report) {
        shm.afterDelivered(peer, () -> {
            report.run();
            ring.fail(socket.writeFailure(new java.nio.channels.ClosedChannelException()));
        });
    }

    @Override
    public String toString() {
        return "SharedMemoryLink[" + self + "->" + peer + " over " + socket + "]";
    }
}
