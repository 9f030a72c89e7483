package io.reactivecollectives.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.Handshake;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rogue client writes 10,000 random, oversized and forged frames to a rank's transport port
 * while the group runs collectives: with the shared secret on, every rogue connection is closed at
 * the handshake (no frame of it reaches the group, nothing big is allocated for it), and the
 * group's collectives are unaffected.
 */
class RogueClientTest {

    private static final int CONNECTIONS = 100;
    private static final int FRAMES_PER_CONNECTION = 100;

    @Test
    void tenThousandRogueFramesAreRejectedAndCollectivesCarryOn() throws Exception {
        GroupOptions opts = GroupOptions.defaults().withGroupId("rogue").withSecret("s3cret")
                .withTimeout(Duration.ofSeconds(30)).withConnectTimeout(Duration.ofSeconds(20));
        LocalCluster cluster = LocalCluster.start(2, opts).block(ClusterTesting.TIMEOUT);
        int n = 100_000;
        Tensor a = Tensor.empty(DType.FLOAT32, n);
        Tensor b = Tensor.empty(DType.FLOAT32, n);
        try {
            // collectives keep running on both ranks while the rogue client writes
            AtomicInteger rounds = new AtomicInteger();
            Mono<Void> work = Flux.range(0, 40).concatMap(i -> Mono.fromRunnable(() -> {
                        a.buffer().setFloatLE(4 * 777, i);
                        b.buffer().setFloatLE(4 * 777, 2 * i);
                    }).then(Mono.when(cluster.group(0).allReduce(a, ReduceOp.SUM), cluster.group(1).allReduce(b, ReduceOp.SUM)))
                    .doOnSuccess(x -> {
                        assertEquals(3f * i, a.buffer().getFloatLE(4 * 777));
                        assertEquals(3f * i, b.buffer().getFloatLE(4 * 777));
                        rounds.incrementAndGet();
                    })).then();
            Mono<int[]> rogue = Mono.fromCallable(() -> attack(cluster.group(0).port(), opts.groupId()))
                    .subscribeOn(Schedulers.boundedElastic());
            int[] result = Mono.zip(work.thenReturn(0), rogue).map(t -> t.getT2()).block(Duration.ofSeconds(120));
            assertEquals(CONNECTIONS * FRAMES_PER_CONNECTION, result[0], "frames the rogue client tried to write");
            assertEquals(CONNECTIONS, result[1], "rogue connections closed by the rank");
            assertEquals(40, rounds.get());
            for (MeshProcessGroup g : cluster.groups()) {
                assertEquals(0, g.openCollectives(), "no rogue frame reached the group");
                assertEquals(0, g.unclaimedBytes());
            }
            // the group still works after the attack
            Mono.when(cluster.group(0).barrier(), cluster.group(1).barrier()).block(Duration.ofSeconds(30));
        } finally {
            a.release();
            b.release();
            cluster.close();
        }
    }

    /** A connection that never says HELLO is closed by the rank once the connect timeout has passed. */
    @Test
    void aSilentConnectionIsClosedAtTheHandshakeDeadline() throws Exception {
        GroupOptions opts = GroupOptions.defaults().withGroupId("silent-client").withConnectTimeout(Duration.ofSeconds(1));
        LocalCluster cluster = LocalCluster.start(2, opts).block(ClusterTesting.TIMEOUT);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", cluster.group(0).port()), 5_000);
            s.setSoTimeout(10_000);
            long t0 = System.nanoTime();
            assertEquals(-1, s.getInputStream().read(), "the rank closes the silent connection");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 900, "closed after " + ms + " ms, before the 1000 ms deadline");
        } finally {
            cluster.close();
        }
    }

    /**
     * Opens {@link #CONNECTIONS} connections, writes {@link #FRAMES_PER_CONNECTION} frames on each
     * (until the rank closes it), and counts the connections the rank closed. Returns {frames, closed}.
     */
    private static int[] attack(int port, String groupId) throws IOException {
        SplittableRandom rnd = new SplittableRandom(42);
        int frames = 0;
        int closed = 0;
        for (int c = 0; c < CONNECTIONS; c++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                for (int f = 0; f < FRAMES_PER_CONNECTION; f++) {
                    frames++;
                    byte[] bytes = rogueFrame(rnd, c, f, groupId);
                    try {
                        out.write(bytes);
                    } catch (IOException e) {
                        // the rank closed the connection: the remaining frames count as rejected
                    }
                }
                try {
                    out.flush();
                } catch (IOException ignored) {
                    // closed already
                }
                if (closedByPeer(s.getInputStream())) {
                    closed++;
                }
            }
        }
        return new int[] {frames, closed};
    }

    /** Reads until the rank closes (EOF or reset); false if it keeps the connection open for 10 s. */
    private static boolean closedByPeer(InputStream in) {
        byte[] sink = new byte[4096];
        try {
            while (in.read(sink) >= 0) {
                // a rank never answers a rogue client; drain anyway
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static byte[] rogueFrame(SplittableRandom rnd, int c, int f, String groupId) {
        switch ((c + f) % 5) {
            case 0: { // random bytes
                byte[] b = new byte[1 + rnd.nextInt(512)];
                rnd.nextBytes(b);
                return b;
            }
            case 1: { // an oversized length: 2 GiB announced
                return new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x52, 0x43, 1, 3};
            }
            case 2: { // a well-formed DATA frame of this group, with no handshake
                ByteBuf h = FrameCodec.encodeHeader(UnpooledByteBufAllocator.DEFAULT, FrameType.DATA, groupId.hashCode(),
                        0, 0, 0, 0, 1, 64, 64);
                h.writeZero(64);
                return bytes(h);
            }
            case 3: { // a HELLO with a forged MAC (wrong secret)
                return bytes(Handshake.encode(UnpooledByteBufAllocator.DEFAULT, FrameType.HELLO, groupId, 1, 2, 0, "guess"));
            }
            default: { // a HELLO without a MAC, then an oversized DATA header
                return bytes(Handshake.encode(UnpooledByteBufAllocator.DEFAULT, FrameType.HELLO, groupId, 1, 2, 0, null));
            }
        }
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        } finally {
            b.release();
        }
    }
}
