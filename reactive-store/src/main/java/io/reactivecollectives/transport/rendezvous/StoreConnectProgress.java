package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import org.slf4j.Logger;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a store client's connect has tried so far (attempts, the last error, whether a connection
 * is up and waits for the server's handshake), for its wait reports and its final error. Shared by
 * {@link TcpStore} ({@link StoreClientConnector}) and {@link TorchTcpStore}: while the connect
 * retries, every {@link WaitReports#defaultInterval()} it says, through {@link Notices},
 * {@code TCP store at 10.0.0.1:29500 not reachable yet (10 s of 60 s): attempt 14 failed: ...Connection refused}.
 */
final class StoreConnectProgress {

    private final Logger log;
    private final String server;
    private final Duration timeout;
    private final long startNanos = System.nanoTime();
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicReference<Throwable> last = new AtomicReference<>();
    private volatile boolean connectedNow;

    StoreConnectProgress(Logger log, String host, int port, Duration timeout) {
        this.log = log;
        this.server = host + ":" + port;
        this.timeout = timeout;
    }

    /** The server as the reports name it, {@code host:port}. */
    String server() {
        return server;
    }

    /** Starts the reports (every {@link WaitReports#defaultInterval()}); the caller disposes it when the connect ends. */
    Disposable reportEvery() {
        return WaitReports.every(WaitReports.defaultInterval(), this::report);
    }

    /** A connection is up; the server's handshake is pending. */
    void connected() {
        connectedNow = true;
    }

    /** An attempt failed with {@code e}. */
    void failed(Throwable e) {
        connectedNow = false;
        last.set(e);
        attempts.incrementAndGet();
    }

    /** The last attempt's error, or null. */
    Throwable lastError() {
        return last.get();
    }

    /** How many attempts failed. */
    int failedAttempts() {
        return attempts.get();
    }

    /** Whether a connection is up, waiting for the server's handshake. */
    boolean connectedNow() {
        return connectedNow;
    }

    /** The wait report: how long, how many attempts, the last error (or that a handshake is pending). */
    void report() {
        Throwable e = last.get();
        String state = connectedNow ? "connected, waiting for the server's handshake"
                : e == null ? "the first attempt is still connecting"
                : "attempt " + attempts.get() + " failed: " + e;
        Notices.warn(log, "TCP store at " + server + " not reachable yet (" + WaitReports.duration(System.nanoTime()
                - startNanos) + " of " + WaitReports.duration(timeout.toNanos()) + "): " + state);
    }
}
