package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile bytes at the TCP store server: at least 10,000 random, corrupted, truncated and
 * oversized frames (mixed with well-formed ones) over raw sockets, while a legitimate client keeps
 * working. The server must not crash or run out of memory, must close only the offending
 * connections, and must leave no waiter behind.
 */
class TcpStoreFuzzTest {

    private static final int MAX_FRAME = 64 * 1024;

    @Test
    void tenThousandHostileFramesNeitherCrashNorDisturbOthers() throws Exception {
        TcpStoreServer server = TcpStoreServer.builder().maxFrameSize(MAX_FRAME).start().block(Duration.ofSeconds(10));
        TcpStore good = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(Duration.ofSeconds(30)))
                .block(Duration.ofSeconds(10));
        AtomicLong rounds = new AtomicLong();
        AtomicReference<Throwable> goodFailure = new AtomicReference<>();
        // the legitimate client: set, get back, count, over and over until the fuzzing ends
        Disposable legit = Flux.range(0, Integer.MAX_VALUE)
                .concatMap(i -> {
                    byte[] v = ("v" + i).getBytes(StandardCharsets.UTF_8);
                    return good.set("good/" + (i % 50), v)
                            .then(good.get("good/" + (i % 50)))
                            .flatMap(back -> new String(back, StandardCharsets.UTF_8).equals("v" + i)
                                    ? good.add("good/count", 1)
                                    : Mono.error(new AssertionError("read back " + new String(back, StandardCharsets.UTF_8))));
                })
                .subscribe(n -> rounds.incrementAndGet(), goodFailure::set);
        long frames = 0;
        long connectionsOpened = 0;
        Random random = new Random(20261122L);
        try {
            while (frames < 10_000) {
                connectionsOpened++;
                frames += fuzzOneConnection(server.port(), random);
            }
            // the legitimate client still works and kept working throughout
            long before = rounds.get();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (rounds.get() < before + 20 && System.nanoTime() < deadline && goodFailure.get() == null) {
                Thread.sleep(10);
            }
            assertNull(goodFailure.get(), () -> "the legitimate client failed: " + goodFailure.get());
            assertTrue(rounds.get() >= before + 20, "the legitimate client stalled at " + rounds.get() + " rounds");
        } finally {
            legit.dispose();
        }
        long done = rounds.get();
        long counted = Long.parseLong(new String(good.get("good/count").block(Duration.ofSeconds(10)), StandardCharsets.UTF_8));
        assertTrue(counted >= done && counted <= done + 1, "counter " + counted + " after " + done + " rounds");
        // each rejected frame closes its connection, so at most one per connection
        assertTrue(server.rejectedFrames() > connectionsOpened / 2 && server.rejectedFrames() <= connectionsOpened,
                server.rejectedFrames() + " frames rejected on " + connectionsOpened + " connections");
        // every hostile connection is gone and left no waiter behind
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while ((server.connections() != 1 || server.pendingWaits() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, server.connections(), "connections left open");
        assertEquals(0, server.pendingWaits(), "waiters left behind");
        assertTrue(connectionsOpened > 100);
        assertEquals("ok", new String(good.set("after", "ok".getBytes(StandardCharsets.UTF_8))
                .then(good.get("after")).block(Duration.ofSeconds(10)), StandardCharsets.UTF_8));
        good.close();
        server.close();
    }

    /** Opens one raw connection, writes up to 30 frames of random kinds, returns how many. */
    private static int fuzzOneConnection(int port, Random random) throws IOException {
        int sent = 0;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoLinger(true, 0); // reset on close: no TIME_WAIT pile-up from thousands of connections
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            int count = 1 + random.nextInt(30);
            for (int f = 0; f < count; f++) {
                byte[] frame = hostileFrame(random);
                sent++;
                try {
                    out.write(frame);
                    out.flush();
                } catch (IOException closedByServer) {
                    break;
                }
                drain(in);
            }
            // end our side and wait for the server to finish with the frames and close
            socket.shutdownOutput();
            socket.setSoTimeout(10_000);
            byte[] sink = new byte[4096];
            while (in.read(sink) >= 0) {
                // responses and error frames
            }
        } catch (IOException e) {
            // the server may reset a connection it rejected before we finish: that is the point
        }
        return sent;
    }

    private static void drain(InputStream in) throws IOException {
        int available = in.available();
        if (available > 0) {
            in.skip(available);
        }
    }

    private static byte[] hostileFrame(Random r) {
        int kind = r.nextInt(8);
        switch (kind) {
            case 0, 1 -> {
                return wellFormed(r);
            }
            case 2 -> { // valid length, random body
                byte[] body = new byte[StoreFrameCodec.HEADER + r.nextInt(200)];
                r.nextBytes(body);
                return withLength(body.length, body);
            }
            case 3 -> { // well-formed frame with one byte flipped inside
                byte[] f = wellFormed(r);
                if (f.length > 5) {
                    int at = 4 + r.nextInt(f.length - 4);
                    f[at] ^= (byte) (1 << r.nextInt(8));
                }
                return f;
            }
            case 4 -> { // oversized length prefix, with a little payload
                int length = MAX_FRAME + 1 + r.nextInt(Integer.MAX_VALUE - MAX_FRAME - 1);
                byte[] junk = new byte[r.nextInt(64)];
                r.nextBytes(junk);
                return withLength(length, junk);
            }
            case 5 -> { // negative or tiny length
                return withLength(r.nextBoolean() ? -1 - r.nextInt(1000) : r.nextInt(StoreFrameCodec.HEADER), new byte[8]);
            }
            case 6 -> { // truncated: the length promises more than follows (the connection ends mid-frame)
                byte[] f = wellFormed(r);
                int keep = r.nextInt(f.length);
                byte[] cut = new byte[keep];
                System.arraycopy(f, 0, cut, 0, keep);
                return cut;
            }
            default -> { // inner length fields that lie
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer();
                b.writeInt(0);
                b.writeByte(StoreOpcode.values()[r.nextInt(StoreOpcode.values().length)].code());
                b.writeInt(r.nextInt());
                b.writeInt(r.nextBoolean() ? Integer.MAX_VALUE : r.nextInt());
                b.writeInt(r.nextInt());
                b.setInt(0, b.readableBytes() - 4);
                byte[] out = new byte[b.readableBytes()];
                b.readBytes(out);
                b.release();
                return out;
            }
        }
    }

    private static byte[] wellFormed(Random r) {
        UnpooledByteBufAllocator a = UnpooledByteBufAllocator.DEFAULT;
        int id = r.nextInt();
        String key = "fuzz/" + r.nextInt(20);
        byte[] value = new byte[r.nextInt(100)];
        r.nextBytes(value);
        ByteBuf b = switch (r.nextInt(10)) {
            case 0 -> StoreFrameCodec.set(a, id, key, value);
            case 1 -> StoreFrameCodec.get(a, id, key, r.nextBoolean() ? 1 + r.nextInt(50) : Long.MAX_VALUE);
            case 2 -> StoreFrameCodec.add(a, id, key, r.nextLong());
            case 3 -> StoreFrameCodec.compareSet(a, id, key, value, value);
            case 4 -> StoreFrameCodec.await(a, id, List.of(key, "fuzz/x"), r.nextInt(100) - 5);
            case 5 -> StoreFrameCodec.check(a, id, List.of(key));
            case 6 -> StoreFrameCodec.delete(a, id, key);
            case 7 -> StoreFrameCodec.multiSet(a, id, Map.of(key, value));
            case 8 -> StoreFrameCodec.multiGet(a, id, List.of(key), 1 + r.nextInt(20));
            default -> StoreFrameCodec.append(a, id, key, value);
        };
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    private static byte[] withLength(int length, byte[] body) {
        byte[] out = new byte[4 + body.length];
        out[0] = (byte) (length >>> 24);
        out[1] = (byte) (length >>> 16);
        out[2] = (byte) (length >>> 8);
        out[3] = (byte) length;
        System.arraycopy(body, 0, out, 4, body.length);
        return out;
    }

}
