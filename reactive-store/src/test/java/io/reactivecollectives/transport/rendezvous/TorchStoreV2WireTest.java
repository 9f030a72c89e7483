package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exact bytes {@link TorchTcpStore} sends in torch's 2.x protocol, written down from torch's
 * source: query bytes of {@code c10d::detail::QueryType} ({@code TCPStoreBackend.hpp}: VALIDATE 0,
 * SET 1, COMPARE_SET 2, GET 3, ADD 4, CHECK 5, WAIT 6, GETNUMKEYS 7, DELETE_KEY 8, APPEND 9,
 * MULTI_GET 10, MULTI_SET 11, CANCEL_WAIT 12), strings and values as {@code tcputil::sendString} /
 * {@code sendVector} write them ({@code Utils.hpp}: a {@code uint64} length, then the bytes) and
 * integers in the host's (little-endian) order; a connection opens with VALIDATE and
 * {@code uint32} 0x3C85F7CE ({@code validationMagicNumber}). Also what the protocol detection sends.
 */
class TorchStoreV2WireTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String VALIDATE = "00 ce f7 85 3c";

    private FakeTorch2Server server;
    private TorchTcpStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private TorchTcpStore connect(FakeTorch2Server.Flavor flavor, TorchStoreProtocol protocol) throws IOException {
        server = new FakeTorch2Server(flavor);
        store = TorchTcpStore.connect("127.0.0.1", server.port(), WAIT, protocol).block(WAIT);
        return store;
    }

    /** Hex of a string as torch sends it: uint64 length, then UTF-8 bytes. */
    private static String str(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return u64(b.length) + " " + HexFormat.ofDelimiter(" ").formatHex(b);
    }

    private static String u64(long v) {
        return HexFormat.ofDelimiter(" ").formatHex(FakeTorch2Server.le(v));
    }

    private static String hex(byte[] b) {
        return HexFormat.ofDelimiter(" ").formatHex(b);
    }

    /** The bytes of the connection {@code index} since {@code from} bytes. */
    private String sent(int index, int from) {
        byte[] all = server.received().get(index);
        return hex(java.util.Arrays.copyOfRange(all, from, all.length));
    }

    /** Asserts that connection {@code index} sent exactly {@code hex}, allowing the server a moment to read it. */
    private void assertSent(int index, String hex) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline
                && (server.received().size() <= index || !hex.equals(sent(index, 0)))) {
            sleep(10);
        }
        assertEquals(hex, server.received().size() <= index ? "no connection " + index : sent(index, 0));
    }

    private int length(int index) {
        return server.received().get(index).length;
    }

    @Test
    void everyCallSendsTorchsTwoXBytes() throws IOException {
        connect(FakeTorch2Server.Flavor.LEGACY, TorchStoreProtocol.V2);
        assertSent(0, VALIDATE);
        int at = length(0);

        store.set("k", "v".getBytes(StandardCharsets.UTF_8)).block(WAIT);
        // SET, then a CHECK of the key as the acknowledgement
        assertEquals("01 " + str("/k") + " " + str("v") + " 05 " + u64(1) + " " + str("/k"), sent(0, at));
        at = length(0);

        assertEquals("v", new String(store.get("k").block(WAIT), StandardCharsets.UTF_8));
        assertEquals("05 " + u64(1) + " " + str("/k") + " 03 " + str("/k"), sent(0, at));
        at = length(0);

        assertEquals(5L, store.add("n", 5).block(WAIT));
        assertEquals("04 " + str("/n") + " " + u64(5), sent(0, at));
        at = length(0);

        store.compareSet("k", "v".getBytes(StandardCharsets.UTF_8), "w".getBytes(StandardCharsets.UTF_8)).block(WAIT);
        assertEquals("02 " + str("/k") + " " + str("v") + " " + str("w"), sent(0, at));
        at = length(0);

        assertEquals(2L, store.numKeys().block(WAIT));
        assertEquals("07", sent(0, at));
        at = length(0);

        assertTrue(store.delete("n").block(WAIT));
        assertEquals("08 " + str("/n"), sent(0, at));
        at = length(0);

        assertEquals(3L, store.append("log", "abc".getBytes(StandardCharsets.UTF_8)).block(WAIT));
        // APPEND has no reply: a GET after it reads the new length
        assertEquals("09 " + str("/log") + " " + str("abc") + " 03 " + str("/log"), sent(0, at));
        at = length(0);

        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("a", "1".getBytes(StandardCharsets.UTF_8));
        entries.put("b", "2".getBytes(StandardCharsets.UTF_8));
        store.multiSet(entries).block(WAIT);
        assertEquals("0b " + u64(2) + " " + str("/a") + " " + str("1") + " " + str("/b") + " " + str("2")
                + " 05 " + u64(1) + " " + str("/a"), sent(0, at));
        at = length(0);

        List<byte[]> values = store.multiGet(List.of("b", "a")).block(WAIT);
        assertEquals(List.of("2", "1"), values.stream().map(v -> new String(v, StandardCharsets.UTF_8)).toList());
        assertEquals("05 " + u64(2) + " " + str("/b") + " " + str("/a")
                + " 0a " + u64(2) + " " + str("/b") + " " + str("/a"), sent(0, at));
        assertEquals(1, server.received().size(), "no call needed a connection of its own");
        assertEquals(0, server.closedByServer());
    }

    @Test
    void aWaitHasItsOwnValidatedConnectionAndIsCancelledWithCancelWait() throws IOException {
        connect(FakeTorch2Server.Flavor.LEGACY, TorchStoreProtocol.V2);
        assertThrows(RuntimeException.class, () -> store.get("late", Duration.ofMillis(300)).block(WAIT));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (server.waiters() != 0 && System.nanoTime() < deadline) {
            sleep(10);
        }
        assertEquals(0, server.waiters());
        // connection 1: VALIDATE, WAIT of the key, and CANCEL_WAIT once the wait timed out
        assertSent(1, VALIDATE + " 06 " + u64(1) + " " + str("/late") + " 0c");
        assertEquals(0, server.closedByServer());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void detectionProbesWithOneXWaitOfNoKeysAndTheLegacyServerClosesIt() throws IOException {
        connect(FakeTorch2Server.Flavor.LEGACY, TorchStoreProtocol.AUTO);
        assertEquals(TorchStoreProtocol.V2, store.protocol());
        assertSent(0, "05 " + u64(0));
        assertEquals(1, server.closedByServer(), "the legacy server closes an unvalidated connection");
        assertSent(1, VALIDATE);
    }

    @Test
    void detectionSendsACheckOfAnUnsetKeyToTheSilentLibuvServer() throws IOException {
        connect(FakeTorch2Server.Flavor.LIBUV, TorchStoreProtocol.AUTO);
        assertEquals(TorchStoreProtocol.V2, store.protocol());
        String probe = sent(0, 0);
        String prefix = "05 " + u64(0) + " 05 " + u64(1) + " ";
        assertTrue(probe.startsWith(prefix), probe);
        assertTrue(new String(HexFormat.ofDelimiter(" ").parseHex(probe.substring(prefix.length())),
                StandardCharsets.ISO_8859_1).contains("/rc/protocol-probe/"), probe);
        assertSent(1, VALIDATE);
        assertEquals(0, server.numKeys());
    }

    /** Forcing 1.x on a 2.x server fails the calls but changes nothing there (why AUTO can probe 1.x first). */
    @Test
    void oneXCallsChangeNothingOnATwoXServer() throws IOException {
        for (FakeTorch2Server.Flavor flavor : FakeTorch2Server.Flavor.values()) {
            server = new FakeTorch2Server(flavor);
            store = TorchTcpStore.connect("127.0.0.1", server.port(), Duration.ofMillis(500), TorchStoreProtocol.V1)
                    .block(WAIT);
            assertThrows(RuntimeException.class,
                    () -> store.set("k", "v".getBytes(StandardCharsets.UTF_8)).block(Duration.ofSeconds(2)), flavor.name());
            assertThrows(RuntimeException.class, () -> store.add("n", 1).block(Duration.ofSeconds(2)), flavor.name());
            assertEquals(0, server.numKeys(), flavor.name());
            store.close();
            server.close();
        }
        store = null;
        server = null;
    }

    @Test
    void theFakeServerClosesConnectionsWithoutValidate() throws IOException {
        server = new FakeTorch2Server(FakeTorch2Server.Flavor.LEGACY);
        // torch 1.x SET of "/k" (byte 0 is 2.x VALIDATE, the key's length is no magic number)
        assertEquals(-1, exchange("00 " + str("/k") + " " + str("v")));
        assertEquals(-1, exchange("05 " + u64(0)));
        assertEquals(0, exchange(VALIDATE + " 05 " + u64(0)), "CHECK of no keys is READY");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (server.closedByServer() < 2 && System.nanoTime() < deadline) {
            sleep(10);
        }
        assertEquals(2, server.closedByServer());
        assertEquals(0, server.numKeys());
    }

    /** Sends {@code hex} on a plain socket; the first byte of the reply, or -1 when the server closed. */
    private int exchange(String hex) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(HexFormat.ofDelimiter(" ").parseHex(hex));
            out.flush();
            InputStream in = s.getInputStream();
            return in.read();
        }
    }

    @Test
    void pingEchoesTheNonce() throws IOException {
        server = new FakeTorch2Server(FakeTorch2Server.Flavor.LIBUV);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(HexFormat.ofDelimiter(" ").parseHex(VALIDATE + " 0d 78 56 34 12"));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            while (got.size() < 4) {
                got.write(in.read());
            }
            assertArrayEquals(new byte[] {0x78, 0x56, 0x34, 0x12}, got.toByteArray());
        }
    }
}
