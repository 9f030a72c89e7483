package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.HandOver;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelOption;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.store.wire.FrameMemoryBudget;
import io.reactivecollectives.store.wire.HandshakeMac;
import io.reactivecollectives.store.wire.RejectionLog;
import io.reactivecollectives.store.wire.OwnedSocketFile;
import io.reactivecollectives.store.wire.UnixSocketFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpResources;
import reactor.netty.tcp.TcpServer;

import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Binds a {@link TcpStoreServer}: its TCP port and, beside it, its Unix domain socket, each
 * connection getting the frame decoder, a flush consolidator and a {@link StoreServerSession}.
 */
final class StoreServerBinder {

    private static final Logger LOG = LoggerFactory.getLogger(TcpStoreServer.class);

    /** What a {@link TcpStoreServer.Builder} was told. */
    record Config(String host, int port, byte[] secret, SslContext ssl, int maxFrameSize, LoopResources loops,
                  MeterRegistry registry, boolean unixSocket, Duration handshakeTimeout, Duration frameTimeout,
                  int maxConnections, long frameMemory,
                  Function<UnaryOperator<byte[]>, StoreReplication> replication) { }

    /** The TCP server with its local socket server and file, when bound (else nulls). */
    record Bound(DisposableServer tcp, DisposableServer uds, OwnedSocketFile file) {
        Path path() {
            return file == null ? null : file.path();
        }
    }

    private StoreServerBinder() {
    }

    /** Binds the server of {@code c}; emits it once listening (cold: binds once per subscription). */
    static Mono<TcpStoreServer> start(Config c) {
        return Mono.defer(() -> {
            KeyValueWaiters<StoreRequests.ServerWaiter> kv = new KeyValueWaiters<>();
            if (c.replication() == null) {
                return bind(c, kv, null);
            }
            // the replica first (it blocks until it listens), then the clients' port; a failed bind stops it
            return Mono.fromCallable(() -> c.replication().apply(command -> StoreCommands.apply(command, kv)))
                    .subscribeOn(BlockingScheduler.get())
                    .flatMap(replica -> bind(c, kv, replica).doOnError(e -> replica.close()).doOnCancel(replica::close));
        });
    }

    /** Binds the server of {@code c} over the state {@code kv}, replicated by {@code replica} (or null). */
    private static Mono<TcpStoreServer> bind(Config c, KeyValueWaiters<StoreRequests.ServerWaiter> kv,
                                             StoreReplication replica) {
        return Mono.defer(() -> {
            if (c.secret() != null) {
                HandshakeMac.init();
            }
            if (c.maxFrameSize() > c.frameMemory()) {
                return Mono.error(new IllegalArgumentException("TCP store: maxFrameSize " + c.maxFrameSize()
                        + " is over the frame memory budget " + c.frameMemory() + " (TcpStoreServer.Builder.frameMemory)"));
            }
            FrameMemoryBudget budget = new FrameMemoryBudget(c.frameMemory());
            StoreServerMetrics metrics = new StoreServerMetrics(budget);
            AtomicReference<String> name = new AtomicReference<>(c.host() + ":" + c.port());
            RejectionLog rejections = new RejectionLog(() -> "TCP store on " + name.get(), LOG);
            StoreServerSession.Settings settings = new StoreServerSession.Settings(c.secret(), c.maxFrameSize(),
                    c.handshakeTimeout().toNanos(), metrics, rejections, replica);
            UnaryOperator<TcpServer> serving = base -> {
                TcpServer t = base.doOnConnection(conn -> {
                        if (!metrics.admit(c.maxConnections())) {
                            metrics.rejectedConnections.incrementAndGet();
                            rejections.reject("connection limit", conn.channel().remoteAddress(), c.maxConnections()
                                    + " connections are open (TcpStoreServer.Builder.maxConnections)",
                                    conn.channel().eventLoop());
                            conn.channel().close();
                            return;
                        }
                        conn.addHandlerLast(StoreFrameDecoder.NAME, new StoreFrameDecoder(
                                StoreFrameCodec.HANDSHAKE_MAX_FRAME, c.frameTimeout().toNanos(), budget));
                        conn.addHandlerLast("rc.store.flush", new FlushConsolidationHandler(256, true));
                        StoreServerSession session = new StoreServerSession(conn.channel(), kv, settings);
                        conn.addHandlerLast("rc.store.session", session.handler());
                        session.start();
                    })
                    // frames are consumed by the session handler, on the event loop, before Reactor Netty's
                    // inbound bridge; subscribing the (then empty) inbound keeps reads flowing and ends the
                    // connection when the client closes it
                    .handle((in, out) -> in.receive().then());
                return c.loops() != null ? t.runOn(c.loops()) : t;
            };
            TcpServer server = serving.apply(TcpServer.create().host(c.host()).port(c.port())
                    .childOption(ChannelOption.TCP_NODELAY, true));
            if (c.ssl() != null) {
                server = server.secure(spec -> spec.sslContext(c.ssl()));
            }
            boolean local = c.unixSocket() && c.ssl() == null && StoreLocalSocket.enabled();
            // cancelled or failed between the TCP bind and the server's hand-over (the local socket is
            // bound on another thread in between): the port is let go (dispose is asynchronous)
            return HandOver.openThen(server.bind(),
                    ds -> (local ? bindLocal(serving, c.loops(), ds) : Mono.just(new Bound(ds, null, null))).map(bound -> {
                        TcpStoreServer s = new TcpStoreServer(bound, kv, metrics, rejections, replica);
                        name.set(c.host() + ":" + s.port());
                        metrics.register(c.registry(), s.port(), kv);
                        LOG.debug("TCP store listening on {} (auth {}, tls {}, local socket {})", bound.tcp().address(),
                                c.secret() != null, c.ssl() != null, bound.path());
                        return s;
                    }),
                    DisposableServer::dispose);
        });
    }

    /**
     * Binds the local socket of the TCP server {@code tcp}, on a thread that may touch files. A file
     * a dead server left there (nobody accepts on it) is removed first; a live one (another server
     * accepts there: another network namespace sharing this temporary directory) is left alone and
     * this server has no local socket. Neither that nor a failure to bind stops the server: local
     * clients then use TCP.
     */
    private static Mono<Bound> bindLocal(UnaryOperator<TcpServer> serving, LoopResources loops, DisposableServer tcp) {
        int port = ((InetSocketAddress) tcp.address()).getPort();
        Path path = StoreLocalSocket.path(port);
        return Mono.fromCallable(() -> UnixSocketFiles.clearStale(path))
                .subscribeOn(BlockingScheduler.get())
                .flatMap(free -> {
                    if (!free) {
                        LOG.warn("TCP store on port {}: another process serves on the local socket {}; leaving it "
                                + "alone, this server listens on TCP only (set -Drc.store.unixSockets=false on "
                                + "hosts whose network namespaces share a temporary directory)", port, path);
                        return Mono.just(new Bound(tcp, null, null));
                    }
                    // on NIO loops (preferNative false) even where the TCP server is on epoll: the JDK's
                    // Unix socket address is NIO's (the native channels take Netty's own)
                    return serving.apply(TcpServer.create().bindAddress(() -> UnixDomainSocketAddress.of(path)))
                            .runOn(loops != null ? loops : TcpResources.get(), false)
                            .bind()
                            .publishOn(BlockingScheduler.get())
                            .map(uds -> new Bound(tcp, uds, OwnedSocketFile.own(path)));
                })
                .onErrorResume(e -> {
                    LOG.debug("TCP store on port {}: no local socket at {} ({}); local clients use TCP",
                            port, path, e.toString());
                    return Mono.just(new Bound(tcp, null, null));
                });
    }
}
