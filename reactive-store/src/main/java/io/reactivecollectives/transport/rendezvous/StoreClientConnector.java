package io.reactivecollectives.transport.rendezvous;

import io.netty.channel.ChannelOption;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.store.wire.HandshakeMac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpResources;
import reactor.util.retry.Retry;

import java.net.UnixDomainSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Connects a {@link TcpStore}: the local socket first for a server on this host, else TCP; refused
 * or failed attempts are retried with exponential backoff (20 ms doubling to 1 s) until the options'
 * timeout; a rejected secret is not retried. While it waits it says so every
 * {@link WaitReports#defaultInterval()} (5 s unless {@code rc.wait-reports.interval} says otherwise),
 * through {@link io.reactivecollectives.core.observe.Notices} ({@link StoreConnectProgress}):
 * {@code TCP store at 10.0.0.1:29500 not reachable yet (10 s of 60 s): attempt 14 failed: ...Connection refused}.
 */
final class StoreClientConnector {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStore.class);

    private StoreClientConnector() {
    }

    static Mono<StoreClientSession> connect(TcpStoreOptions options) {
        return Mono.defer(() -> {
            if (options.authenticated()) {
                HandshakeMac.init();
            }
            StoreClientMetrics metrics = StoreClientMetrics.of(options.meterRegistry());
            TcpClient client = TcpClient.newConnection()
                    .doOnConnected(c -> {
                        c.addHandlerLast(StoreFrameDecoder.NAME, new StoreFrameDecoder(options.maxFrameSize()));
                        c.addHandlerLast("rc.store.flush", new FlushConsolidationHandler(256, true));
                    });
            if (options.loops() != null) {
                client = client.runOn(options.loops());
            }
            TcpClient tcp = client.host(options.host()).port(options.port()).option(ChannelOption.TCP_NODELAY, true);
            if (options.ssl() != null) {
                tcp = tcp.secure(spec -> spec.sslContext(options.ssl()));
            }
            TcpClient viaTcp = tcp;
            Mono<Connection> connection = Mono.defer(() -> viaTcp.connect().map(Connection.class::cast));
            if (options.ssl() == null && StoreLocalSocket.enabled() && StoreLocalSocket.isLoopback(options.host())) {
                // a server on this host also listens on a Unix domain socket: try it first, TCP if it is not there
                // on NIO loops (preferNative false), as the server's local socket: the JDK's Unix
                // socket address is NIO's (the native channels, epoll's, take Netty's own)
                TcpClient viaLocal = client.remoteAddress(() -> UnixDomainSocketAddress.of(
                        StoreLocalSocket.path(options.port())))
                        .runOn(options.loops() != null ? options.loops() : TcpResources.get(), false);
                Mono<Connection> tcpOnly = connection;
                connection = Mono.defer(() -> viaLocal.connect().map(Connection.class::cast)).onErrorResume(e -> tcpOnly);
            }
            StoreConnectProgress progress = new StoreConnectProgress(LOG, options.host(), options.port(), options.timeout());
            Mono<StoreClientSession> attempt = connection
                    .doOnNext(c -> progress.connected())
                    .flatMap(conn -> new StoreClientSession(options, conn, metrics).start());
            Disposable reports = progress.reportEvery();
            return attempt
                    .doOnError(progress::failed)
                    .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(20))
                            .maxBackoff(Duration.ofSeconds(1))
                            .filter(e -> !(e instanceof StoreAuthenticationException) && certificateProblem(e) == null))
                    .onErrorMap(e -> {
                        String problem = certificateProblem(e);
                        return problem == null ? e : new IllegalStateException("connect: the TLS handshake with the store at "
                                + progress.server() + " failed on its certificate (" + problem + "): the client's CA"
                                + " (RC_STORE_TLS_CA) must have signed the server's certificate (RC_STORE_TLS_CERT), which"
                                + " must name the host the client dials; retrying cannot mend that", e);
                    })
                    .timeout(options.timeout())
                    .onErrorMap(TimeoutException.class, e -> timedOut(progress, options.timeout()))
                    .doFinally(s -> reports.dispose());
        });
    }

    /**
     * The message of a TLS handshake that failed on a certificate (not trusted, another host's, not
     * valid), which no retry mends; null for any other error (a server not up yet is retried).
     */
    static String certificateProblem(Throwable e) {
        boolean handshake = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLHandshakeException) {
                handshake = true;
            } else if (handshake && t instanceof java.security.GeneralSecurityException) {
                return t.getMessage();
            }
        }
        return null;
    }

    /** The connect's final error: the server, the timeout, the attempts and the last error. */
    private static IllegalStateException timedOut(StoreConnectProgress progress, Duration timeout) {
        Throwable e = progress.lastError();
        String why = progress.connectedNow() ? "; connected, but the server did not complete the handshake (a stopped or"
                + " overloaded store host?)" : "";
        return new IllegalStateException("connect: no TCP store at " + progress.server() + " after " + timeout.toMillis()
                + " ms (" + progress.failedAttempts() + " failed attempts)" + why
                + (e == null ? "" : "; last error: " + e), e);
    }
}
