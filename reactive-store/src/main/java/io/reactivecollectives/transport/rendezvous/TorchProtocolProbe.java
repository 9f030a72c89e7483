package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Tells a torch 1.x {@code TCPStore} server from a 2.x one ({@link TorchStoreProtocol#AUTO}) on a
 * connection of its own, closed afterwards, with bytes that no server version reads as a change.
 *
 * <p>A 2.x first message cannot be the probe: a 1.x server reads {@code VALIDATE} (byte 0) as its
 * {@code SET}, whose key length would then start with the magic number (over 1 GB), and its single
 * thread would wait for that key. So the probe starts with {@code 05} and a {@code uint64} 0, which
 * is 1.x's {@code WAIT} on no keys (answered at once with STOP_WAITING, 0) and 2.x's {@code CHECK} of
 * no keys (READY, 0), and what each server does with it (from torch's source) decides:
 * <ul>
 *   <li>a 1.x server (torch 1.13 {@code TCPStore.cpp}) answers 0: {@link TorchStoreProtocol#V1};</li>
 *   <li>the legacy 2.x server ({@code TCPStoreBackend.cpp}, {@code query}: "Miscellaneous client
 *       without VALIDATE query is detected") closes the connection: V2;</li>
 *   <li>the libuv 2.x server ({@code TCPStoreLibUvBackend.cpp}, {@code UvClient::processBuf})
 *       answers nothing: it keeps the bytes of a client's first read that does not start with
 *       {@code VALIDATE}, marks the client as seen, and reads the kept bytes as 2.x queries when more
 *       arrive. After a window of silence ({@link #window}) the probe sends a second query (again
 *       after each further window of silence): {@code 05}, one key, a key nobody sets: 2.x's
 *       {@code CHECK} of it, answered NOT_READY (1) after the first query's 0; for 1.x a {@code WAIT}
 *       that the closing of the probe's connection drops. A 1 means V2.</li>
 * </ul>
 * So V2 is chosen only on a close before any answer or on a 1, which no 1.x server sends here; V1 on
 * a 0 before any second query was sent, or a 0 and then a window of nothing (a slow 1.x server). A
 * server answering neither way is waited for until the caller's timeout. (One gap remains: a libuv
 * server that got the first query split over two reads would answer it with 0 before any second
 * query; a 9-byte write on a fresh connection is not split in practice.)
 */
final class TorchProtocolProbe extends ChannelInboundHandlerAdapter {

    /** How long the probe waits for an answer before (each) second query, and for a 1 after a 0, at most. */
    static final Duration WINDOW = Duration.ofMillis(250);
    /** The shortest such wait. */
    static final Duration MIN_WINDOW = Duration.ofMillis(20);

    private final Connection connection;
    private final MonoSink<TorchStoreProtocol> sink;
    private final String server;
    private final Duration window;
    private boolean kicked;
    private boolean answered;
    private boolean decided;

    private TorchProtocolProbe(Connection connection, MonoSink<TorchStoreProtocol> sink, String server,
                               Duration window) {
        this.connection = connection;
        this.sink = sink;
        this.server = server;
        this.window = window;
    }

    /**
     * Probes the server at {@code host:port} on a connection of its own.
     *
     * @return a cold {@code Mono} of V1 or V2; it does not time out by itself
     */
    static Mono<TorchStoreProtocol> detect(String host, int port, Duration window) {
        String server = host + ":" + port;
        return Mono.defer(() -> TcpClient.newConnection().host(host).port(port)
                .option(ChannelOption.TCP_NODELAY, true)
                .connect()
                .flatMap(c -> Mono.<TorchStoreProtocol>create(sink -> {
                    TorchProtocolProbe probe = new TorchProtocolProbe(c, sink, server, window);
                    c.channel().eventLoop().execute(() -> {
                        c.addHandlerLast("rc.torch.probe", probe);
                        c.inbound().receive().subscribe(b -> { }, e -> { }, () -> { });
                        if (!c.channel().isActive()) {
                            probe.closed();
                            return;
                        }
                        probe.start();
                    });
                }).doFinally(s -> c.dispose())));
    }

    /** The probe's window for a store whose connect must end within {@code timeout}: a fifth of it, 20..250 ms. */
    static Duration window(Duration timeout) {
        Duration w = timeout.dividedBy(5);
        return w.compareTo(WINDOW) > 0 ? WINDOW : w.compareTo(MIN_WINDOW) < 0 ? MIN_WINDOW : w;
    }

    /** The first probe: {@code 05} and a {@code uint64} 0 (1.x WAIT / 2.x CHECK of no keys). */
    static ByteBuf firstProbe() {
        ByteBuf b = Unpooled.buffer(9);
        b.writeByte(TorchQuery.WAIT.code(TorchStoreProtocol.V1));
        b.writeLongLE(0);
        return b;
    }

    /** The second probe: {@code 05}, one key, {@code key} (1.x WAIT / 2.x CHECK of it). */
    static ByteBuf secondProbe(String key) {
        ByteBuf b = Unpooled.buffer(32);
        b.writeByte(TorchQuery.CHECK.code(TorchStoreProtocol.V2));
        b.writeLongLE(1);
        TorchStoreConnection.writeString(b, key);
        return b;
    }

    private void start() {
        connection.channel().writeAndFlush(firstProbe());
        kickLater();
    }

    /**
     * The second query after a window of silence, again after each further window of silence: the
     * libuv server reads its held bytes only when a later read brings more, and a second query that
     * arrived with the first in one read is held with it.
     */
    private void kickLater() {
        connection.channel().eventLoop().schedule(() -> {
            if (!decided && !answered && connection.channel().isActive()) {
                kicked = true;
                // not UUID.randomUUID(): SecureRandom may read /dev/urandom, blocking the event loop
                String key = TorchTcpStore.KEY_PREFIX + "rc/protocol-probe/"
                        + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-" + System.nanoTime();
                connection.channel().writeAndFlush(secondProbe(key));
                kickLater();
            }
        }, window.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            while (in.isReadable() && !decided) {
                int b = in.readUnsignedByte();
                answered = true;
                if (b == 1) {
                    decide(TorchStoreProtocol.V2);
                } else if (b != 0) {
                    fail("answered the protocol probe with byte " + b);
                } else if (!kicked) {
                    decide(TorchStoreProtocol.V1);
                } else {
                    ctx.channel().eventLoop().schedule(() -> decide(TorchStoreProtocol.V1),
                            window.toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        } finally {
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed();
        super.channelInactive(ctx);
    }

    private void closed() {
        if (answered) {
            fail("closed the connection after answering");
        } else {
            // only a 2.x server closes the probe's connection unanswered (its first query is not VALIDATE)
            decide(TorchStoreProtocol.V2);
        }
    }

    private void decide(TorchStoreProtocol protocol) {
        if (!decided) {
            decided = true;
            sink.success(protocol);
        }
    }

    private void fail(String what) {
        if (!decided) {
            decided = true;
            sink.error(new StoreProtocolException("protocol probe of torch TCPStore at " + server + ": the server "
                    + what + ", as neither a 1.x nor a 2.x server does"));
        }
    }
}
