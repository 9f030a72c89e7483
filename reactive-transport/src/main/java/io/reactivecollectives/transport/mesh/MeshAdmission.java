package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;
import io.reactivecollectives.store.wire.RejectionLog;
import org.slf4j.Logger;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Who may hold a rank's port, and for how long, before its handshake: an accepted connection has
 * {@link #handshakeTime()} to send its HELLO, at most {@link #maxHandshaking()} connections may be
 * in their handshake at once, and every refusal goes to one rate-limited {@link RejectionLog} (a
 * port scan must not flood the log).
 */
final class MeshAdmission {

    private final Duration handshakeTime;
    private final int maxHandshaking;
    private final AtomicInteger handshaking = new AtomicInteger();
    private final RejectionLog rejections;

    MeshAdmission(MeshOptions options, int world, Supplier<String> subject, Logger log) {
        Duration connect = options.connectTimeout();
        this.handshakeTime = connect.compareTo(Mesh.MAX_HANDSHAKE_TIME) < 0 ? connect : Mesh.MAX_HANDSHAKE_TIME;
        this.maxHandshaking = Math.max(1024, 2 * world);
        this.rejections = new RejectionLog(subject, log);
    }

    /**
     * How long an accepted connection has to complete its handshake: the connect timeout, at most
     * {@link Mesh#MAX_HANDSHAKE_TIME} (a peer sends its HELLO as soon as it has connected).
     */
    Duration handshakeTime() {
        return handshakeTime;
    }

    /**
     * The most accepted connections in their handshake at once: twice the world size, at least 1,024
     * (every peer connects once at start-up).
     */
    int maxHandshaking() {
        return maxHandshaking;
    }

    /** Counts a newly accepted connection; false (and logged) when {@link #maxHandshaking()} are in their handshake. */
    boolean admit(Channel ch) {
        if (handshaking.incrementAndGet() <= maxHandshaking) {
            return true;
        }
        handshaking.decrementAndGet();
        rejected("connection limit", ch, maxHandshaking + " connections are in their handshake");
        return false;
    }

    /** An admitted connection's handshake ended (done, failed or the connection closed): once per connection. */
    void handshakeEnded() {
        handshaking.decrementAndGet();
    }

    /** Logs a connection this rank's port refused (rate-limited, summed up per reason every 10 s). */
    void rejected(String reason, Channel ch, String detail) {
        rejections.reject(reason, ch.remoteAddress(), detail, ch.eventLoop());
    }

    /** Logs the summaries still open (the port is closing). */
    void flush() {
        rejections.flush(true);
    }
}
