package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.ByteToMessageDecoder;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One connection to a PyTorch {@code TCPStore} server ({@link TorchTcpStore}), speaking the 1.x or
 * the 2.x protocol ({@link TorchStoreProtocol}); a 2.x connection first sends {@code VALIDATE} and
 * the magic number (torch's {@code TCPStore.cpp} {@code TCPClient::connect} sends it before any
 * query; it has no reply). Neither protocol has request ids: a request is a query-type byte
 * ({@link TorchQuery}) followed by its arguments, strings
 * and byte vectors as a {@code uint64} length then the bytes, integers in the host's byte order
 * (little-endian on every platform torch ships for; this client writes little-endian), and the
 * server answers the requests of one connection in order. So pending calls wait in a FIFO and the
 * decoder reads each reply in the shape its call expects. A call cancelled after its request left
 * stays queued so its reply is still consumed.
 */
final class TorchStoreConnection {

    /** The shape of a reply. */
    enum Reply {
        /** No reply (SET). */
        NONE,
        /** One byte: CHECK's READY (0) / NOT_READY (1), WAIT's STOP_WAITING (0), CANCEL_WAIT's WAIT_CANCELED (1). */
        BYTE,
        /** An {@code int64}: ADD, GETNUMKEYS, DELETE_KEY. */
        INT64,
        /** A {@code uint64} length and the bytes: GET, COMPARE_SET. */
        BYTES,
        /** One {@code uint64} length and bytes per key of the request (2.x MULTI_GET): a {@code List<byte[]>}. */
        BYTES_LIST
    }

    /** torch's {@code CheckResponseType::READY} and {@code WaitResponseType::STOP_WAITING}. */
    static final int READY = 0;

    private static final String HANDLER = "rc.torch.store";

    private final Connection connection;
    private final TorchStoreProtocol protocol;
    private final Scheduler scheduler;
    private final String server;
    private final int maxValueSize;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private Throwable failure;

    /** A call waiting for its reply; a cancelled one is not told of a later failure (nobody listens). */
    private static final class Pending {
        final String op;
        final Reply reply;
        final MonoSink<Object> sink;
        final int count;
        final List<byte[]> parts = new ArrayList<>();
        volatile boolean cancelled;

        Pending(String op, Reply reply, int count, MonoSink<Object> sink) {
            this.op = op;
            this.reply = reply;
            this.count = count;
            this.sink = sink;
            sink.onCancel(() -> cancelled = true);
        }

        String op() {
            return op;
        }

        Reply reply() {
            return reply;
        }

        MonoSink<Object> sink() {
            return sink;
        }
    }

    private TorchStoreConnection(Connection connection, TorchStoreProtocol protocol, String server, int maxValueSize) {
        this.connection = connection;
        this.protocol = protocol;
        this.scheduler = Schedulers.fromExecutorService(connection.channel().eventLoop(), "torch-store-loop");
        this.server = server;
        this.maxValueSize = maxValueSize;
    }

    /**
     * One connect attempt (the host name is resolved by this attempt, not cached by us) speaking
     * {@code protocol} (V1 or V2); a V2 connection sends {@code VALIDATE} before anything else.
     */
    static Mono<TorchStoreConnection> connect(String host, int port, int maxValueSize, TorchStoreProtocol protocol) {
        if (protocol == TorchStoreProtocol.AUTO) {
            throw new IllegalArgumentException("AUTO is not a wire protocol");
        }
        String server = host + ":" + port;
        return Mono.defer(() -> TcpClient.newConnection().host(host).port(port)
                .option(ChannelOption.TCP_NODELAY, true)
                .connect()
                .map(c -> {
                    TorchStoreConnection tc = new TorchStoreConnection(c, protocol, server, maxValueSize);
                    if (protocol == TorchStoreProtocol.V2) {
                        // nothing else is queued on the new channel yet, so this goes first
                        c.channel().writeAndFlush(validateFrame());
                    }
                    c.addHandlerLast(HANDLER, tc.new Decoder());
                    c.onDispose(() -> tc.failAll(new IllegalStateException(
                            "torch TCPStore at " + server + ": connection closed")));
                    // reading starts once the inbound side is subscribed; the decoder passes nothing on
                    c.inbound().receive().subscribe(b -> { }, e -> { }, () -> { });
                    return tc;
                }));
    }

    /** The 2.x first message: {@code VALIDATE} and the magic number (no reply). */
    static ByteBuf validateFrame() {
        ByteBuf b = Unpooled.buffer(5);
        b.writeByte(TorchQuery.VALIDATE.code(TorchStoreProtocol.V2));
        b.writeIntLE(TorchQuery.VALIDATION_MAGIC);
        return b;
    }

    /**
     * A scheduler on this connection's event loop (never disposed: that would shut the loop down);
     * its timers are set and cancelled without the locks of {@code Schedulers.parallel()}'s queue.
     */
    Scheduler scheduler() {
        return scheduler;
    }

    TorchStoreProtocol protocol() {
        return protocol;
    }

    boolean isActive() {
        return connection.channel().isActive() && failure() == null;
    }

    private synchronized Throwable failure() {
        return failure;
    }

    String server() {
        return server;
    }

    void close() {
        connection.dispose();
    }

    /**
     * Sends {@code query} with the arguments {@code body} writes and emits its reply: an
     * {@code Integer} (BYTE), {@code Long} (INT64), {@code byte[]} (BYTES), or completes empty (NONE)
     * once the request is written.
     */
    Mono<Object> call(String op, TorchQuery query, Reply reply, Consumer<ByteBuf> body) {
        return call(op, query, reply, 0, body);
    }

    /** As {@link #call(String, TorchQuery, Reply, Consumer)}, a BYTES_LIST reply of {@code count} values. */
    Mono<Object> call(String op, TorchQuery query, Reply reply, int count, Consumer<ByteBuf> body) {
        return Mono.create(sink -> {
            Channel ch = connection.channel();
            // unpooled heap: the pooled allocator may park a caller thread (BlockHound caught it)
            ByteBuf buf = Unpooled.buffer(64);
            try {
                buf.writeByte(query.code(protocol));
                body.accept(buf);
            } catch (RuntimeException e) {
                buf.release();
                sink.error(e);
                return;
            }
            synchronized (this) {
                if (failure != null || !ch.isActive()) {
                    buf.release();
                    sink.error(new IllegalStateException(op + " at torch TCPStore " + server
                            + ": connection closed", failure));
                    return;
                }
                if (reply != Reply.NONE) {
                    pending.add(new Pending(op, reply, count, sink));
                }
                // through the loop's queue even from the loop itself, so requests leave in the order
                // their calls were queued here (a direct write from the loop would overtake queued ones)
                try {
                    write(ch, buf, op, reply, sink);
                } catch (RuntimeException e) {
                    buf.release();
                    pending.removeIf(p -> p.sink() == sink);
                    sink.error(new IllegalStateException(op + " at torch TCPStore " + server + ": " + e, e));
                }
            }
        });
    }

    private void write(Channel ch, ByteBuf buf, String op, Reply reply, MonoSink<Object> sink) {
        ch.eventLoop().execute(() -> ch.writeAndFlush(buf).addListener(f -> {
            if (!f.isSuccess()) {
                IllegalStateException e = new IllegalStateException(op + " at torch TCPStore " + server
                        + ": write failed", f.cause());
                failAll(e);
                close();
                sink.error(e);
            } else if (reply == Reply.NONE) {
                sink.success();
            }
        }));
    }

    private void failAll(Throwable cause) {
        List<Pending> failed;
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            failed = List.copyOf(pending);
            pending.clear();
        }
        for (Pending p : failed) {
            if (p.cancelled) {
                continue;
            }
            p.sink().error(new IllegalStateException(p.op() + " at torch TCPStore " + server + ": "
                    + cause.getMessage(), cause));
        }
    }

    static void writeString(ByteBuf buf, String s) {
        writeBytes(buf, s.getBytes(StandardCharsets.UTF_8));
    }

    static void writeBytes(ByteBuf buf, byte[] b) {
        buf.writeLongLE(b.length);
        buf.writeBytes(b);
    }

    /** Reads each reply in the shape the oldest pending call expects. */
    private final class Decoder extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.isReadable()) {
                Pending p;
                synchronized (TorchStoreConnection.this) {
                    p = pending.peek();
                }
                if (p == null) {
                    in.skipBytes(in.readableBytes());
                    failAll(new StoreProtocolException("torch TCPStore at " + server
                            + ": bytes arrived with no request pending"));
                    ctx.close();
                    return;
                }
                Object value;
                switch (p.reply()) {
                    case BYTE -> value = in.readUnsignedByte() & 0xff;
                    case INT64 -> {
                        if (in.readableBytes() < Long.BYTES) {
                            return;
                        }
                        value = in.readLongLE();
                    }
                    case BYTES -> {
                        value = readVector(ctx, in, p);
                        if (value == null) {
                            return;
                        }
                    }
                    default -> {
                        // a server answers an empty MULTI_GET with nothing; the store never sends one
                        while (p.parts.size() < p.count) {
                            byte[] part = readVector(ctx, in, p);
                            if (part == null) {
                                return;
                            }
                            p.parts.add(part);
                        }
                        value = List.copyOf(p.parts);
                    }
                }
                synchronized (TorchStoreConnection.this) {
                    pending.poll();
                }
                if (!p.cancelled) {
                    p.sink().success(value);
                }
            }
        }

        /** One {@code uint64} length and its bytes, or null until they have all arrived (or they are too many). */
        private byte[] readVector(ChannelHandlerContext ctx, ByteBuf in, Pending p) {
            if (in.readableBytes() < Long.BYTES) {
                return null;
            }
            long n = in.getLongLE(in.readerIndex());
            if (n < 0 || n > maxValueSize) {
                in.skipBytes(in.readableBytes());
                failAll(new StoreProtocolException(p.op() + " at torch TCPStore " + server
                        + ": reply of " + n + " bytes exceeds the limit of " + maxValueSize));
                ctx.close();
                return null;
            }
            if (in.readableBytes() < Long.BYTES + n) {
                return null;
            }
            in.skipBytes(Long.BYTES);
            byte[] b = new byte[(int) n];
            in.readBytes(b);
            return b;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            failAll(new IllegalStateException("torch TCPStore at " + server + " closed the connection"));
            super.channelInactive(ctx);
        }
    }
}
