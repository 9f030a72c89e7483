package io.reactivecollectives.store.wire;

import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The log of the connections a server rejects (bad handshakes, protocol errors, the connection
 * limit, stalled frames), rate-limited so that a flood of hostile or careless clients cannot flood
 * the log: per reason, the first rejection of a {@link #WINDOW} is logged in full, and when the
 * window ends, if more followed, one line sums them up, e.g.
 * {@code TCP store on 127.0.0.1:29500: rejected 1,532 connections in the last 10 s: bad handshake}.
 * The TCP store server and every mesh (a rank's listening port) keep one each.
 */
public final class RejectionLog {

    /** How long a summary covers. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    /** The rejections of one reason in the current window. */
    private static final class Window {
        long startNanos;
        long count;
        boolean open;
    }

    /** What rejects, e.g. "TCP store on 127.0.0.1:29500" (its address may be known only once bound). */
    private final java.util.function.Supplier<String> server;
    private final Consumer<String> out;
    private final LongSupplier clock;
    private final Map<String, Window> byReason = new ConcurrentHashMap<>();

    /** Logs lines that begin with {@code subject} to {@code log} at warn level. */
    public RejectionLog(java.util.function.Supplier<String> subject, Logger log) {
        this(subject, log::warn, System::nanoTime);
    }

    /** Logs lines that begin with {@code subject} to {@code out}, windows timed by {@code clock} (nanoseconds). */
    public RejectionLog(java.util.function.Supplier<String> subject, Consumer<String> out, LongSupplier clock) {
        this.server = subject;
        this.out = out;
        this.clock = clock;
    }

    /**
     * Records one rejected connection from {@code remote} for {@code reason} ({@code detail}: what
     * exactly); {@code timer} (may be null) runs the summary at the end of the window.
     */
    public void reject(String reason, Object remote, String detail, EventExecutor timer) {
        Window w = byReason.computeIfAbsent(reason, r -> new Window());
        String summary = null;
        boolean first;
        synchronized (w) {
            long now = clock.getAsLong();
            if (w.open && now - w.startNanos >= WINDOW.toNanos()) {
                summary = closeLocked(reason, w);
            }
            first = !w.open;
            if (first) {
                w.open = true;
                w.startNanos = now;
            }
            w.count++;
        }
        if (summary != null) {
            out.accept(summary);
        }
        if (first) {
            out.accept(server.get() + ": closing connection from " + remote + ": " + reason
                    + (detail == null ? "" : ": " + detail) + " (more of these are summed up every "
                    + WINDOW.toSeconds() + " s)");
            if (timer != null) {
                try {
                    timer.schedule(() -> flush(false), WINDOW.toNanos(), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException shutDown) {
                    // the server is going away: close() flushes
                }
            }
        }
    }

    /** Logs the summaries of the windows that have ended ({@code all}: of every window, e.g. on close). */
    public void flush(boolean all) {
        byReason.forEach((reason, w) -> {
            String summary = null;
            synchronized (w) {
                if (w.open && (all || clock.getAsLong() - w.startNanos >= WINDOW.toNanos())) {
                    summary = closeLocked(reason, w);
                }
            }
            if (summary != null) {
                out.accept(summary);
            }
        });
    }

    /** Ends the window; its summary line, or null when it held only the rejection logged in full. */
    private String closeLocked(String reason, Window w) {
        w.open = false;
        long n = w.count;
        w.count = 0;
        if (n <= 1) {
            return null;
        }
        return String.format(Locale.ROOT, "%s: rejected %,d connections in the last %d s: %s",
                server.get(), n, WINDOW.toSeconds(), reason);
    }
}
