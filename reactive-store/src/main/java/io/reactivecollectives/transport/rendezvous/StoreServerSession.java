package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.store.wire.HandshakeMac;
import io.reactivecollectives.store.wire.RejectionLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of a {@link TcpStoreServer}, from greeting to close; its fields are touched
 * on its event loop only. It greets the client ({@code HELLO}, with a nonce when a secret is set),
 * checks the client's HMAC before serving anything, then hands every request to its
 * {@link StoreRequests}. A frame that breaks the protocol, a client that has not authenticated within
 * the handshake timeout, closes this one connection, counted and logged through the server's
 * {@link RejectionLog} (rate-limited).
 */
final class StoreServerSession {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStoreServer.class);

    /** What the server tells every session. */
    record Settings(byte[] secret, int maxFrame, long handshakeTimeoutNanos, StoreServerMetrics metrics,
                    RejectionLog rejections, StoreReplication replication) { }

    private final Channel channel;
    private final byte[] secret;
    private final int maxFrame;
    private final StoreServerMetrics metrics;
    private final RejectionLog rejections;
    private final long handshakeTimeoutNanos;
    private final StoreRequests requests;
    private ScheduledFuture<?> handshakeTimer;
    private byte[] nonce;
    private boolean authenticated;
    private boolean closing;

    StoreServerSession(Channel channel, KeyValueWaiters<StoreRequests.ServerWaiter> kv, Settings settings) {
        this.channel = channel;
        this.secret = settings.secret();
        this.maxFrame = settings.maxFrame();
        this.metrics = settings.metrics();
        this.rejections = settings.rejections();
        this.handshakeTimeoutNanos = settings.handshakeTimeoutNanos();
        this.requests = new StoreRequests(channel, kv, settings.replication());
    }

    /**
     * Greets the client of a connection already counted ({@link StoreServerMetrics#admit}): HELLO,
     * with a nonce when a secret is set; then the client has the handshake timeout to send its AUTH
     * (with a secret, the right HMAC; without, an empty one), or the connection is closed.
     */
    void start() {
        ByteBufAllocator alloc = channel.alloc();
        if (secret != null) {
            nonce = HandshakeMac.nonce(StoreAuth.NONCE_BYTES);
        }
        requests.write(StoreHandshakeCodec.hello(alloc, secret != null, secret != null ? nonce : new byte[0]));
        handshakeTimer = channel.eventLoop().schedule(this::handshakeTimedOut, handshakeTimeoutNanos,
                TimeUnit.NANOSECONDS);
    }

    /** The Netty handler that feeds this session: one frame body per read, released after use. */
    ChannelInboundHandlerAdapter handler() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf body = (ByteBuf) msg;
                try {
                    onFrame(body);
                } finally {
                    body.release();
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable e) {
                Throwable cause = e instanceof DecoderException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof StoreProtocolException) {
                    reject(cause);    // closes, at once or once the client had its error
                    return;
                } else if (cause instanceof java.io.IOException) {
                    LOG.debug("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                } else {
                    LOG.warn("TCP store: connection from {} failed: {}", channel.remoteAddress(), cause.toString());
                }
                channel.close();
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                metrics.connections.decrementAndGet();
                if (handshakeTimer != null) {
                    handshakeTimer.cancel(false);
                }
                requests.dropWaits();
                ctx.fireChannelInactive();
            }
        };
    }

    /** A frame that breaks the protocol: log it, count it, close this one connection. */
    private void reject(Throwable cause) {
        if (closing) {
            return;
        }
        metrics.rejectedFrames.incrementAndGet();
        String why = String.valueOf(cause.getMessage());
        String reason = !authenticated ? "bad handshake" : why.startsWith(StoreFrameDecoder.STALLED) ? "stalled frame"
                : "protocol error";
        if (authenticated && channel.isActive()) {
            // the client's calls say why (request id 0: no call's); it cannot go on past a frame not read. A close
            // with the rest of that frame unread would be a reset, which loses this error on its way: so the error,
            // then the end of output, reading on (the decoder, stopped, drops it all) until the client closes. A
            // stalled frame's connection closes at once: its frame holds memory of the server's frame budget
            boolean linger = !reason.equals("stalled frame") && channel instanceof io.netty.channel.socket.DuplexChannel;
            close(reason, why, false);
            io.netty.channel.ChannelFuture written = channel.writeAndFlush(StoreResponseCodec.error(channel.alloc(), 0,
                    StoreFrameCodec.E_BAD_REQUEST, "", "the server closed the connection: " + why + (why.startsWith("frame length ")
                            ? " (its frame limit of " + maxFrame + " bytes)" : ""), java.util.List.of(), 0));
            if (linger) {
                written.addListener(f -> {
                    if (f.isSuccess()) {
                        ((io.netty.channel.socket.DuplexChannel) channel).shutdownOutput();
                    } else {
                        channel.close();
                    }
                });
                channel.eventLoop().schedule(() -> channel.close(), LINGER_SECONDS, TimeUnit.SECONDS);
            } else {
                channel.close();
            }
            return;
        }
        close(reason, why);
    }

    /** How long a connection closed over a bad frame reads on after its error, for the client to close it. */
    private static final long LINGER_SECONDS = 5;

    /** Closes this connection for {@code reason}, logged (rate-limited) with {@code detail}. */
    private void close(String reason, String detail) {
        close(reason, detail, true);
    }

    private void close(String reason, String detail, boolean now) {
        closing = true;
        StoreFrameDecoder decoder = channel.pipeline().get(StoreFrameDecoder.class);
        if (decoder != null) {
            decoder.stop();
        }
        rejections.reject(reason, channel.remoteAddress(), detail, channel.eventLoop());
        if (now) {
            channel.close();
        }
    }

    private void handshakeTimedOut() {
        if (!authenticated && !closing && channel.isActive()) {
            metrics.rejectedConnections.incrementAndGet();
            close("bad handshake", (secret != null ? "not authenticated" : "no client greeting") + " within "
                    + TimeUnit.NANOSECONDS.toMillis(handshakeTimeoutNanos) + " ms");
        }
    }

    private void onFrame(ByteBuf body) {
        if (closing) {
            return;
        }
        try {
            if (!authenticated) {
                authenticate(body);
                return;
            }
            int start = body.readerIndex();
            StoreFrameCodec.Request r = StoreFrameCodec.decodeRequest(body);
            if (requests.replicated()) {
                // a write goes into the log as the frame body it came in (StoreCommands)
                byte[] command = StoreRequests.writes(r) ? ByteBufUtil.getBytes(body, start, body.writerIndex() - start) : null;
                requests.dispatchReplicated(r, command, this::reject);
            } else {
                requests.dispatchAnswering(r);
            }
        } catch (StoreProtocolException e) {
            reject(e);
        }
    }

    static String opName(StoreFrameCodec.Request r) {
        String n = r.getClass().getSimpleName();
        return Character.toLowerCase(n.charAt(0)) + n.substring(1);
    }

    private void authenticate(ByteBuf body) {
        StoreHandshakeCodec.Auth auth = StoreHandshakeCodec.decodeAuth(body); // anything else: protocol error
        if (secret == null) {
            if (auth.mac().length != 0) {
                throw new StoreProtocolException("a client with a secret, but this server authenticates no one");
            }
            serve();
            return;
        }
        if (!HandshakeMac.verify(secret, nonce, auth.mac())) {
            metrics.authFailures.incrementAndGet();
            closing = true;
            rejections.reject("bad handshake", channel.remoteAddress(), "authentication failed (wrong secret)",
                    channel.eventLoop());
            channel.writeAndFlush(StoreResponseCodec.error(channel.alloc(), 0, StoreFrameCodec.E_AUTH, "auth",
                    "authentication failed", List.of(), 0)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        serve();
        requests.write(StoreHandshakeCodec.ready(channel.alloc(), HandshakeMac.mac(secret, auth.clientNonce())));
    }

    /** The client has greeted (and, with a secret, authenticated): from now on its requests are served. */
    private void serve() {
        authenticated = true;
        handshakeTimer.cancel(false);
        channel.pipeline().get(StoreFrameDecoder.class).maxFrameLength(maxFrame);
    }
}
