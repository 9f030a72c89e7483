package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What incomplete frames hold across a store server's connections stays within its frame memory
 * budget whatever lengths clients announce, while other clients are served; and values far larger
 * than the old 64 MiB limit round-trip.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TcpStoreFrameMemoryTest {

    private static final Duration T = Duration.ofSeconds(20);
    private static final int MIB = 1 << 20;
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

    private TcpStore client(int port) {
        TcpStore c = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)).block(T);
        open.add(c);
        return c;
    }

    /** A greeted raw connection that announces a frame of {@code announced} bytes and sends {@code sent} of them. */
    private Socket partialFrame(int port, int announced, int sent) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        open.add(s);
        DataInputStream in = new DataInputStream(s.getInputStream());
        in.readFully(new byte[in.readInt()]); // HELLO
        TcpStoreServerLimitsTest.greet(s);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(announced);
        out.write(new byte[sent]);
        out.flush();
        return s;
    }

    @Test
    void partialFramesOfManyClientsStayWithinTheBudgetAndOtherClientsAreServed() throws Exception {
        TcpStoreServer server = start(TcpStoreServer.builder().frameMemory(8 * MIB).maxFrameSize(4 * MIB)
                .frameTimeout(Duration.ofMillis(800)));
        TcpStore legit = client(server.port());
        for (int i = 0; i < 16; i++) { // 64 MiB announced in all, 8 times the budget
            partialFrame(server.port(), 4 * MIB, 32 * 1024);
        }
        long deadline = System.nanoTime() + T.toNanos();
        while (server.frameMemoryInUse() < 8 * MIB && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(8 * MIB, server.frameMemoryInUse(), "two whole frames reserved, the other 14 connections wait");
        long worstNanos = 0;
        for (int i = 1; i <= 200; i++) { // small requests arrive whole and need no budget
            long t0 = System.nanoTime();
            assertEquals(i, legit.add("n", 1).block(T));
            worstNanos = Math.max(worstNanos, System.nanoTime() - t0);
        }
        assertTrue(worstNanos < TimeUnit.SECONDS.toNanos(1), "slowest add " + worstNanos / 1000 + " us");
        byte[] big = new byte[3 * MIB];
        new Random(7).nextBytes(big);
        legit.set("big", big).block(T); // waits its turn: the stalled frames are closed by the frame timeout
        assertArrayEquals(big, legit.get("big").block(T));
        while (server.connections() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, server.connections(), "every stalled client was closed");
        // a connection may be gone a moment before its rejection is counted
        while (server.rejectedFrames() < 16 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(16, server.rejectedFrames());
        assertEquals(0, server.frameMemoryInUse());
        assertTrue(server.frameMemoryPeak() <= 8 * MIB, "peak " + server.frameMemoryPeak());
    }

    @Test
    void an80MiBValueRoundTripsWithTheDefaults() {
        TcpStoreServer server = start(TcpStoreServer.builder());
        TcpStore c = client(server.port());
        byte[] value = new byte[80 * MIB];
        new Random(3).nextBytes(value);
        c.set("weights", value).block(T);
        byte[] back = c.get("weights").block(T);
        assertEquals(value.length, back.length);
        assertTrue(Arrays.equals(value, back));
        assertEquals(0, server.frameMemoryInUse());
    }

    @Test
    void aFrameLimitOverTheBudgetIsRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TcpStoreServer.builder()
                .frameMemory(MIB).maxFrameSize(2 * MIB).unixSocket(false).start().block(T));
        assertTrue(e.getMessage().contains("frame memory budget"), e.getMessage());
    }
}
