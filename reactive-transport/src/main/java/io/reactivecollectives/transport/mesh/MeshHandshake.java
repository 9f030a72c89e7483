package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.reactivecollectives.transport.frame.FrameDecoder;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.Handshake;
import io.reactivecollectives.transport.frame.MalformedFrameException;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.publisher.Sinks;

import java.util.concurrent.TimeUnit;

/**
 * The two ends of the handshake that opens a connection of the mesh. The connecting rank sends
 * HELLO (group, rank, world size, its published address, HMAC when a secret is set); the accepting
 * rank checks it and answers HELLO_ACK, which the connecting rank checks in turn. A HELLO that
 * passes authentication but cannot be accepted gets a HELLO_ACK carrying the reason before the
 * connection closes, so both sides can say what is wrong; two mistakes also fail the accepting
 * rank's start at once: a world size that differs ({@code world size mismatch: rank 0 has world
 * size 2, rank 1 has world size 3}) and a HELLO from this very rank, sent by a second process
 * started as it ({@code rank 0 joined twice: ...}, see {@link RankClaim}). A HELLO that fails
 * authentication gets no answer.
 *
 * <p>Where the pair opens several TCP connections ({@link MeshOptions#connectionsPerPeer()}), each
 * handshake names its stripe and the number of stripes; the accepting rank refuses a count that
 * differs from its own (for a Unix domain socket, which is never striped, from 1), which also fails
 * its start at once ({@code connections per peer mismatch: ...}), and a stripe that is already
 * connected. The connecting rank checks that the answer names the stripe it dialled.
 */
final class MeshHandshake {

    /**
     * The words of the refusal of a dial crossed by the peer's own (a mesh that connects on demand):
     * the lower rank's dial is kept, and the higher rank, refused with these words, waits for it.
     */
    static final String CROSSED = "dialled each other at once";

    /** The words of the refusal of a connection (or stripe) the pair has already. */
    static final String ALREADY_CONNECTED = "is already connected";

    private MeshHandshake() {
    }

    /**
     * Accepting side: expects HELLO from a higher rank, answers HELLO_ACK, then hands over to the
     * frame handler. A connection that sends no HELLO within {@link MeshAdmission#handshakeTime()} is closed; that
     * deadline is cancelled as soon as this handler leaves the pipeline (handshake done, or the
     * connection closed), so no task outlives the connection.
     */
    static final class Accept extends ChannelInboundHandlerAdapter {
        private final Mesh mesh;
        private boolean rejected;
        private volatile ScheduledFuture<?> deadline;
        private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

        Accept(Mesh mesh) {
            this.mesh = mesh;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            long ms = mesh.admission().handshakeTime().toMillis();
            deadline = ctx.executor().schedule(() -> {
                if (!ctx.isRemoved()) {
                    mesh.admission().rejected("no handshake", ctx.channel(), "no handshake within " + ms + " ms");
                    ctx.channel().close();
                }
            }, ms, TimeUnit.MILLISECONDS);
            // also when the channel closes before this handler ever sits in a live pipeline
            ctx.channel().closeFuture().addListener(f -> cancelDeadline());
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            cancelDeadline();
        }

        /** Cancels the deadline and counts the handshake's end, once (handler removed or channel closed). */
        private void cancelDeadline() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            mesh.admission().handshakeEnded();
            ScheduledFuture<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf frame) || rejected) {
                ReferenceCountUtil.release(msg);
                return;
            }
            Handshake.Hello hello;
            try {
                hello = Handshake.decode(frame);
            } catch (MalformedFrameException e) {
                reject(ctx, "malformed handshake from " + ctx.channel().remoteAddress() + ": " + e.getMessage(), null);
                return;
            } finally {
                frame.release();
            }
            MeshOptions o = mesh.options();
            int rank = mesh.rank();
            int world = mesh.world();
            if (hello.type() != FrameType.HELLO) {
                reject(ctx, "expected HELLO, got " + hello.type(), null);
                return;
            }
            if (!Handshake.verify(hello, o.secret(), rank)) {
                reject(ctx, "rank " + hello.rank() + " failed authentication (shared secret mismatch)", null);
                return;
            }
            if (!hello.groupName().equals(o.groupId())) {
                reject(ctx, "rank " + hello.rank() + " belongs to group '" + hello.groupName() + "', not '"
                        + o.groupId() + "'", hello);
                return;
            }
            if (hello.worldSize() != world) {
                String why = "world size mismatch: rank " + rank + " has world size " + world + ", rank "
                        + hello.rank() + " has world size " + hello.worldSize();
                reject(ctx, why, hello);  // the answer first: failing the start closes the servers
                mesh.failStart(why, false);
                return;
            }
            if (hello.rank() == rank) {
                String why = "rank " + rank + " joined twice: group '" + o.groupId() + "' has two processes started as rank "
                        + rank + " (addresses " + mesh.publishedAddress() + " and " + hello.address() + ")";
                reject(ctx, why, hello);  // the answer first: failing the start closes the servers
                mesh.failStart(why, true);
                return;
            }
            // how many connections a peer opens to this rank over this transport: one over a Unix domain socket
            int stripes = MeshSockets.isLocal(ctx.channel()) ? 1 : mesh.options().connectionsPerPeer();
            if (hello.stripes() != stripes) {
                String why = "connections per peer mismatch: rank " + rank + " has " + stripes + " per peer over "
                        + (MeshSockets.isLocal(ctx.channel()) ? "unix" : "tcp") + ", rank " + hello.rank() + " opened " + hello.stripes();
                reject(ctx, why, hello);  // the answer first: failing the start closes the servers
                mesh.failStart(why, false);
                return;
            }
            String why = null;
            // a dial on demand that crossed the peer's own, or came second, is refused unlogged: the
            // pair's one connection is being made, nothing to warn about
            boolean onDemand = hello.rank() >= 0 && hello.rank() < world && onDemand(hello.rank());
            if (hello.rank() < 0 || hello.rank() >= world) {
                why = "invalid peer rank " + hello.rank() + " for world size " + world;
            } else if (onDemand) {
                if (hello.rank() > rank && mesh.dialing(hello.rank()) && !mesh.stripeTaken(hello.rank(), hello.stripe(), stripes)) {
                    why = "rank " + rank + " and rank " + hello.rank() + " " + CROSSED + ": rank " + rank + "'s connection is kept";
                }
            } else if (hello.rank() < rank) {
                why = "rank " + hello.rank() + " connected to rank " + rank + " but only higher ranks connect";
            } else if (!mesh.expects(hello.rank())) {
                why = "rank " + hello.rank() + " is not a peer of rank " + rank + " in this mesh (" + mesh.peers()
                        + "; are rc.liveness.ringAbove, rc.liveness.neighbours and rc.mesh.fullUpTo the same on every rank?)";
            }
            if (why == null && mesh.stripeTaken(hello.rank(), hello.stripe(), stripes)) {
                why = "rank " + hello.rank() + " " + ALREADY_CONNECTED
                        + (stripes > 1 ? " (connection " + hello.stripe() + " of " + stripes + ")" : "");
            }
            if (why != null) {
                reject(ctx, why, hello, onDemand);
                return;
            }
            int peer = hello.rank();
            Channel ch = ctx.channel();
            PeerStripes link = mesh.stripesOf(peer, stripes);
            FrameHandler frames = authenticated(mesh, ch, peer, hello.stripe(), link);
            ch.pipeline().replace(this, "rc-frames", frames);
            ch.writeAndFlush(Handshake.encode(ch.alloc(), FrameType.HELLO_ACK, o.groupId(), rank, world, peer,
                    "", "", o.secret(), hello.stripe(), stripes));
            mesh.noteAddress(peer, hello.address());
            mesh.register(peer, hello.stripe(), ch, link);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!rejected) {
                reject(ctx, "handshake failed: " + cause, null);
            }
        }

        /** Whether {@code peer} connects to this rank on demand: any rank may dial it, in either direction. */
        private boolean onDemand(int peer) {
            return mesh.connectsOnDemand() && !mesh.expects(peer);
        }

        /** Closes the connection; an authenticated {@code hello} first gets a HELLO_ACK with the reason. */
        private void reject(ChannelHandlerContext ctx, String why, Handshake.Hello hello) {
            reject(ctx, why, hello, false);
        }

        /** {@link #reject}, unlogged when {@code expected} (a crossed or second dial on demand). */
        private void reject(ChannelHandlerContext ctx, String why, Handshake.Hello hello, boolean expected) {
            MeshOptions o = mesh.options();
            if (!expected) {
                mesh.admission().rejected(hello == null ? "bad handshake" : "refused peer", ctx.channel(), why);
            }
            rejected = true;
            ctx.channel().config().setAutoRead(false);
            if (hello == null) {
                ctx.close();
                return;
            }
            ctx.writeAndFlush(Handshake.encode(ctx.alloc(), FrameType.HELLO_ACK, o.groupId(), mesh.rank(), mesh.world(),
                    hello.rank(), "", why, o.secret(), hello.stripe(), hello.stripes()))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Connecting side: after HELLO was sent, expects HELLO_ACK from exactly the rank (and stripe) it dialled.
     * {@link #done} completes when the handshake passed, or fails: with a {@link MeshStartException}
     * carrying the reason when the peer rejected the HELLO, a {@link PeerProtocolException} otherwise.
     */
    static final class Connect extends ChannelInboundHandlerAdapter {
        private final Mesh mesh;
        private final int peer;
        private final int stripe;
        private final int stripes;
        final Sinks.Empty<Void> done = Sinks.empty();

        Connect(Mesh mesh, int peer) {
            this(mesh, peer, 0, 1);
        }

        /** Connection {@code stripe} of the {@code stripes} this rank opens to {@code peer}. */
        Connect(Mesh mesh, int peer, int stripe, int stripes) {
            this.mesh = mesh;
            this.peer = peer;
            this.stripe = stripe;
            this.stripes = stripes;
        }

        /** The HELLO to send (with this rank's published address). */
        ByteBuf hello(Channel ch) {
            MeshOptions o = mesh.options();
            return Handshake.encode(ch.alloc(), FrameType.HELLO, o.groupId(), mesh.rank(), mesh.world(), peer,
                    mesh.publishedAddress(), "", o.secret(), stripe, stripes);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf frame)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            Handshake.Hello hello;
            try {
                hello = Handshake.decode(frame);
            } catch (MalformedFrameException e) {
                fail(ctx, "malformed handshake answer from rank " + peer + ": " + e.getMessage());
                return;
            } finally {
                frame.release();
            }
            MeshOptions o = mesh.options();
            String why = null;
            if (hello.type() != FrameType.HELLO_ACK) {
                why = "expected HELLO_ACK, got " + hello.type();
            } else if (!Handshake.verify(hello, o.secret(), mesh.rank())) {
                why = "rank " + hello.rank() + " failed authentication (shared secret mismatch)";
            } else if (hello.isRejection()) {
                done.tryEmitError(new MeshStartException(mesh.describe() + ": " + hello.error(), null));
                ctx.close();
                return;
            } else if (!hello.groupName().equals(o.groupId())) {
                why = "rank " + hello.rank() + " belongs to group '" + hello.groupName() + "', not '" + o.groupId() + "'";
            } else if (hello.worldSize() != mesh.world()) {
                why = "world size mismatch: rank " + hello.rank() + " has world size " + hello.worldSize() + ", rank "
                        + mesh.rank() + " has world size " + mesh.world();
            } else if (hello.rank() != peer) {
                why = "dialled rank " + peer + " but rank " + hello.rank() + " answered";
            } else if (hello.stripe() != stripe || hello.stripes() != stripes) {
                why = "dialled connection " + stripe + " of " + stripes + " to rank " + peer + " but connection "
                        + hello.stripe() + " of " + hello.stripes() + " answered";
            }
            if (why != null) {
                fail(ctx, why);
                return;
            }
            Channel ch = ctx.channel();
            PeerStripes link = mesh.stripesOf(peer, stripes);
            FrameHandler frames = authenticated(mesh, ch, peer, stripe, link);
            ch.pipeline().replace(this, "rc-frames", frames);
            mesh.register(peer, stripe, ch, link);
            done.tryEmitEmpty();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.tryEmitError(new PeerProtocolException(mesh.describe() + ": rank " + peer
                    + " closed the connection during the handshake", null));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, "handshake with rank " + peer + " failed: " + cause);
        }

        private void fail(ChannelHandlerContext ctx, String why) {
            done.tryEmitError(new PeerProtocolException(mesh.describe() + ": " + why, null));
            ctx.close();
        }
    }

    /**
     * The cap of a connection's receive low-water mark: the setting, and at most half of a socket
     * buffer the group fixed ({@code socketBufferBytes}; the kernel grows an unfixed one to fit).
     */
    static int lowWaterBytes(int socketBufferBytes) {
        int cap = TransportSettings.FRAME_LOW_WATER.get();
        return socketBufferBytes > 0 ? Math.min(cap, socketBufferBytes / 2) : cap;
    }

    /** The handshake passed: frames up to the group's limit are accepted from now on; the frame handler to install. */
    private static FrameHandler authenticated(Mesh mesh, Channel ch, int peer, int stripe, PeerStripes link) {
        ChannelHandler d = ch.pipeline().get("rc-decoder");
        if (d instanceof FrameDecoder decoder) {
            decoder.limitPayload(mesh.options().maxFramePayload());
            decoder.wakeForFrames(lowWaterBytes(mesh.options().socketBufferBytes()));
        }
        return new FrameHandler(peer, mesh.groupHash(), stripe, link);
    }
}
