package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * One client connection of a {@link TcpStoreServer}, from greeting to close; its fields are touched
 * on its event loop only. It greets the client ({@code HELLO}, with a nonce when a secret is set),
 * checks the client's HMAC before serving anything, then hands every request to its
 * {@link StoreRequests}. A frame that breaks the protocol closes this one connection with a logged
 * error and is counted.
 */
final class StoreServerSession {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStoreServer.class);

    private final Channel channel;
    private final byte[] secret;
    private final int maxFrame;
    private final StoreServerMetrics metrics;
    private final StoreRequests requests;
    private byte[] nonce;
    private boolean authenticated;
    private boolean closing;

    StoreServerSession(Channel channel, KeyValueWaiters<StoreRequests.ServerWaiter> kv, byte[] secret, int maxFrame,
                       StoreServerMetrics metrics) {
        this.channel = channel;
        this.secret = secret;
        this.maxFrame = maxFrame;
        this.metrics = metrics;
        this.requests = new StoreRequests(channel, kv);
    }

    /** Counts the connection and greets the client (HELLO, with a nonce when a secret is set). */
    void start() {
        metrics.connections.incrementAndGet();
        ByteBufAllocator alloc = channel.alloc();
        if (secret != null) {
            nonce = StoreAuth.nonce();
            requests.write(StoreFrameCodec.hello(alloc, true, nonce));
        } else {
            authenticated = true;
            requests.write(StoreFrameCodec.hello(alloc, false, new byte[0]));
        }
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
                    reject(cause);
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
        closing = true;
        metrics.rejectedFrames.incrementAndGet();
        StoreFrameDecoder decoder = channel.pipeline().get(StoreFrameDecoder.class);
        if (decoder != null) {
            decoder.stop();
        }
        LOG.error("TCP store: closing connection from {}: {}", channel.remoteAddress(), cause.getMessage());
        channel.close();
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
            StoreFrameCodec.Request r = StoreFrameCodec.decodeRequest(body);
            try {
                requests.dispatch(r);
            } catch (IllegalArgumentException | NullPointerException e) {
                requests.write(StoreFrameCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_BAD_REQUEST,
                        opName(r), String.valueOf(e.getMessage()), List.of(), 0));
            } catch (IllegalStateException e) {
                requests.write(StoreFrameCodec.error(channel.alloc(), r.id(), StoreFrameCodec.E_CLOSED,
                        opName(r), String.valueOf(e.getMessage()), List.of(), 0));
            }
        } catch (StoreProtocolException e) {
            reject(e);
        }
    }

    private static String opName(StoreFrameCodec.Request r) {
        String n = r.getClass().getSimpleName();
        return Character.toLowerCase(n.charAt(0)) + n.substring(1);
    }

    private void authenticate(ByteBuf body) {
        StoreFrameCodec.Auth auth = StoreFrameCodec.decodeAuth(body); // anything else: protocol error
        if (!StoreAuth.verify(secret, nonce, auth.mac())) {
            metrics.authFailures.incrementAndGet();
            closing = true;
            LOG.error("TCP store: rejecting client {}: authentication failed (wrong secret)", channel.remoteAddress());
            channel.writeAndFlush(StoreFrameCodec.error(channel.alloc(), 0, StoreFrameCodec.E_AUTH, "auth",
                    "authentication failed", List.of(), 0)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        authenticated = true;
        channel.pipeline().get(StoreFrameDecoder.class).maxFrameSize(maxFrame);
        requests.write(StoreFrameCodec.ready(channel.alloc(), StoreAuth.hmac(secret, auth.clientNonce())));
    }
}
