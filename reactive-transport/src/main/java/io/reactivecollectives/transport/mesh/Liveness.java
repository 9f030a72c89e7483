package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Heartbeats on one established connection. Sits first in the pipeline and notes when bytes last
 * arrived (any bytes: a large data frame counts while it streams in). Every interval, on the
 * connection's event loop, it sends a {@link FrameType#HEARTBEAT} frame (unless the socket's
 * outbound buffer is full: the peer then has data to read anyway), and {@value #CHECKS_PER_INTERVAL}
 * times per interval it checks the peer, so that a silence is noticed at most a quarter of an
 * interval after it passes the limit (not up to a whole interval): when nothing
 * arrived for {@code missed} intervals the connection is closed with a {@link PeerSilentException},
 * which the group turns into a peer failure. While this side has stopped reading (back-pressure),
 * silence is expected and not counted.
 */
final class Liveness extends ChannelInboundHandlerAdapter {

    /** How many times per heartbeat interval the silence is checked. */
    static final int CHECKS_PER_INTERVAL = 4;

    private final int peer;
    private final long intervalNanos;
    private int ticks;
    private final int missed;
    private volatile long lastHeard = System.nanoTime();
    private ScheduledFuture<?> task;

    Liveness(int peer, Duration interval, int missed) {
        this.peer = peer;
        this.intervalNanos = interval.toNanos();
        this.missed = missed;
    }

    /** Installs the handler first in {@code ch}'s pipeline and starts the heartbeat (any thread). */
    static void start(Channel ch, int peer, int group, int self, Duration interval, int missed) {
        Liveness l = new Liveness(peer, interval, missed);
        ch.eventLoop().execute(() -> {
            if (!ch.isActive()) {
                return;
            }
            ch.pipeline().addFirst("rc-liveness", l);
            long period = Math.max(1, l.intervalNanos / CHECKS_PER_INTERVAL);
            l.task = ch.eventLoop().scheduleAtFixedRate(() -> l.tick(ch, group, self), period, period,
                    TimeUnit.NANOSECONDS);
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastHeard = System.nanoTime();
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void cancel() {
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
    }

    private void tick(Channel ch, int group, int self) {
        if (!ch.isActive()) {
            cancel();
            return;
        }
        long now = System.nanoTime();
        if (!ch.config().isAutoRead()) {
            lastHeard = now;
        } else if (now - lastHeard > missed * intervalNanos) {
            cancel();
            FrameHandler fh = ch.pipeline().get(FrameHandler.class);
            PeerSilentException why = new PeerSilentException(peer, (now - lastHeard) / 1_000_000, missed);
            if (fh != null) {
                fh.closeWith(why);  // the listener hears of the silence before the close fails any write
            } else {
                ch.close();
            }
            return;
        }
        if (++ticks < CHECKS_PER_INTERVAL) {
            return;
        }
        ticks = 0;
        if (ch.isWritable()) {
            ByteBuf hb = FrameCodec.encodeHeader(ch.alloc(), FrameType.HEARTBEAT, group, 0, 0, 0, 0, self, 0, 0);
            ch.writeAndFlush(hb, ch.voidPromise());
        }
    }
}
