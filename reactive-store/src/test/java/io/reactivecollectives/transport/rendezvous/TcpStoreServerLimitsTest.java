package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.store.wire.RejectionLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile or careless clients cannot hurt the store server: real sockets on 127.0.0.1 that never
 * authenticate, stall half-way through a frame, or exceed the connection limit are closed within
 * bounded time, while well-behaved (also idle) clients are served; and the rejection log sums up
 * floods instead of logging every connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpStoreServerLimitsTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final byte[] SECRET = "limits-secret".getBytes(StandardCharsets.UTF_8);
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private TcpStoreServer start(TcpStoreServer.Builder b) {
        TcpStoreServer s = b.unixSocket(false).start().block(T);
        open.add(s);
        return s;
    }

    private Socket raw(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(5000); // a read that waits longer fails the test (SocketTimeoutException)
        open.add(s);
        return s;
    }

    /** Reads the server's HELLO frame. */
    private static void readHello(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        assertEquals(StoreOpcode.HELLO.code(), body[0] & 0xff, "the server greets first");
    }

    /** Sends the greeting every client of this library sends (an AUTH without a secret). */
    static void greet(Socket s) throws IOException {
        io.netty.buffer.ByteBuf auth = StoreHandshakeCodec.auth(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT,
                new byte[0], new byte[0]);
        byte[] bytes = new byte[auth.readableBytes()];
        auth.readBytes(bytes);
        auth.release();
        s.getOutputStream().write(bytes);
        s.getOutputStream().flush();
    }

    /** Milliseconds until the server closes {@code s} (read returns end of stream). */
    private static long millisUntilClosed(Socket s, long start) throws IOException {
        while (s.getInputStream().read() >= 0) {
            // nothing else is expected; keep reading until the end of the stream
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static void awaitValue(IntSupplier value, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + T.toNanos();
        while (value.getAsInt() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, value.getAsInt());
    }

    private TcpStore client(int port, byte[] secret) {
        TcpStore c = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T).withSecret(secret)).block(T);
        open.add(c);
        return c;
    }

    @Test
    void aClientThatDoesNotAuthenticateIsClosedAfterTheHandshakeTimeout() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder().secret(SECRET).handshakeTimeout(Duration.ofMillis(300)));
        Socket silent = raw(server.port());
        long start = System.nanoTime();
        readHello(silent);
        long ms = millisUntilClosed(silent, start);
        assertTrue(ms >= 250 && ms < 5000, ms + " ms");
        assertEquals(1, server.rejectedConnections());
        awaitValue(server::connections, 0);
        // an authenticated client may stay idle far longer than the handshake timeout
        TcpStore ok = client(server.port(), SECRET);
        Thread.sleep(700);
        assertEquals(1L, ok.add("n", 1).block(T));
        assertEquals(1, server.rejectedConnections());
    }

    @Test
    void withoutASecretAConnectionThatNeverGreetsIsClosedAfterTheHandshakeTimeoutAndGreetedOnesStay() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder().handshakeTimeout(Duration.ofMillis(300)));
        TcpStore greeted = client(server.port(), null);
        Socket silent = raw(server.port());
        Socket slow = raw(server.port());
        long start = System.nanoTime();
        readHello(silent);
        readHello(slow);
        slow.getOutputStream().write(0); // a slowloris: one byte of a length, then one more now and then
        slow.getOutputStream().flush();
        assertTrue(millisUntilClosed(silent, start) < 5000);
        long ms = millisUntilClosed(slow, start);
        assertTrue(ms >= 250 && ms < 5000, ms + " ms");
        assertEquals(2, server.rejectedConnections());
        awaitValue(server::connections, 1);
        Thread.sleep(400); // a greeted client may idle far longer than the handshake timeout
        assertEquals(1L, greeted.add("n", 1).block(T));
    }

    @Test
    void beforeItsGreetingAClientCannotAnnounceABigFrame() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder());
        Socket big = raw(server.port());
        readHello(big);
        DataOutputStream out = new DataOutputStream(big.getOutputStream());
        out.writeInt(48 << 20); // a 48 MiB frame, from a client that has not said who it is
        out.write(new byte[4096]);
        out.flush();
        long ms = millisUntilClosed(big, System.nanoTime());
        assertTrue(ms < 2000, "closed at once, was " + ms + " ms");
        assertEquals(1, server.rejectedFrames());
        assertEquals(0, server.frameMemoryPeak(), "nothing was buffered for it");
    }

    /**
     * A malformed frame within the size limit: the error the server writes before closing says what
     * was wrong, and no frame limit (before: 'unknown opcode 127 (its frame limit of ... bytes)',
     * pointing the user at --max-frame-size).
     */
    @Test
    void aMalformedFrameIsNotBlamedOnTheFrameLimit() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder());
        Socket s = raw(server.port());
        readHello(s);
        greet(s);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(5);
        out.write(new byte[] {0x7F, 0, 0, 0, 1});   // an unknown opcode, request 1
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        String said = null;
        while (said == null) {
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            if ((body[0] & 0xff) == StoreOpcode.ERROR.code()) {
                said = ((StoreResponseCodec.Error) StoreResponseCodec.decodeResponse(
                        io.netty.buffer.Unpooled.wrappedBuffer(body))).message();
            }
        }
        assertTrue(said.contains("unknown opcode 127") && !said.contains("frame limit"), said);
    }

    @Test
    void aFrameThatStallsHalfSentClosesItsConnectionButIdleConnectionsStay() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder().frameTimeout(Duration.ofMillis(300)));
        TcpStore idle = client(server.port(), null);
        assertEquals(1L, idle.add("n", 1).block(T));
        Socket stalling = raw(server.port());
        readHello(stalling);
        greet(stalling);
        DataOutputStream out = new DataOutputStream(stalling.getOutputStream());
        out.writeInt(100);
        out.write(new byte[10]); // 10 of the 100 bytes announced, then nothing
        out.flush();
        long start = System.nanoTime();
        long ms = millisUntilClosed(stalling, start);
        assertTrue(ms >= 250 && ms < 5000, ms + " ms");
        assertEquals(1, server.rejectedFrames());
        awaitValue(server::connections, 1);
        Thread.sleep(400); // idle between frames is no stall
        assertEquals(2L, idle.add("n", 1).block(T));
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnceAndTheLimitFreesUp() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder().maxConnections(2));
        TcpStore a = client(server.port(), null);
        TcpStore b = client(server.port(), null);
        assertEquals(2, server.connections());
        for (int i = 0; i < 5; i++) {
            Socket extra = raw(server.port());
            long ms = millisUntilClosed(extra, System.nanoTime());
            assertTrue(ms < 5000, ms + " ms");
        }
        assertEquals(5, server.rejectedConnections());
        assertEquals(2, server.connections());
        assertEquals(1L, a.add("n", 1).block(T));
        b.close();
        awaitValue(server::connections, 1);
        TcpStore c = client(server.port(), null);
        assertEquals(2L, c.add("n", 1).block(T));
    }

    @Test
    void floodsOfRejectionsAreSummedUpPerReasonEveryWindow() {
        AtomicLong now = new AtomicLong(1_000);
        List<String> lines = new ArrayList<>();
        RejectionLog log = new RejectionLog(() -> "TCP store on 127.0.0.1:29500", lines::add, now::get);
        for (int i = 0; i < 1532; i++) {
            now.set(1_000 + i * (RejectionLog.WINDOW.toNanos() / 2000));
            log.reject("bad handshake", "/10.0.0." + (i % 250) + ":4000" + i, "authentication failed", null);
        }
        log.reject("connection limit", "/10.0.0.9:1", "2 connections are open", null);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("TCP store on 127.0.0.1:29500: closing connection from /10.0.0.0:40000: "
                + "bad handshake: authentication failed"), lines.get(0));
        log.flush(false);
        assertEquals(2, lines.size(), "the window has not ended: " + lines);
        now.addAndGet(RejectionLog.WINDOW.toNanos());
        log.flush(false);
        assertEquals(List.of("TCP store on 127.0.0.1:29500: rejected 1,532 connections in the last 10 s: bad handshake"),
                lines.subList(2, lines.size()), "one rejection of its reason needs no summary");
        log.reject("bad handshake", "/10.0.0.1:5", "again", null);
        assertEquals(4, lines.size(), "a new window logs its first rejection in full: " + lines);
    }
}
