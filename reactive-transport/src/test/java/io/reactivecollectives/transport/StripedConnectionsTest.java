package io.reactivecollectives.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.mesh.SocketLink;
import io.reactivecollectives.transport.rendezvous.TestCertificates;
import io.reactivecollectives.transport.runtime.GroupRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import javax.net.ssl.KeyManagerFactory;
import java.io.File;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several TCP connections per pair of ranks ({@link GroupOptions#connectionsPerPeer()}): every
 * collective is right with its segments spread over the stripes, a stripe that dies takes its
 * whole link down on both sides, an orderly close over TLS loses nothing, and ranks that disagree
 * on the count cannot form a group. The
 * ranks run in this JVM over real loopback sockets; TLS forces TCP between them (ranks of one host
 * otherwise meet through a Unix domain socket, which is never striped). The orderly close over
 * plain TCP is {@link StripedConnectionsProcessesTest}'s.
 */
class StripedConnectionsTest {

    @TempDir
    static Path dir;
    static TlsOptions tls;

    private static final int BIG = 1 << 20;   // floats: 4 MiB, 64 segments of 64 KiB

    @BeforeAll
    static void certificate() throws Exception {
        TestCertificates.SelfSigned self = TestCertificates.create(dir, "rank");
        KeyManagerFactory kmf = self.keys();
        File cert = self.certificate();
        tls = new TlsOptions(SslContextBuilder.forServer(kmf).trustManager(cert).clientAuth(ClientAuth.REQUIRE).build(),
                SslContextBuilder.forClient().keyManager(kmf).trustManager(cert).build());
    }

    private static GroupOptions options(String id, int stripes) {
        return GroupOptions.defaults().withGroupId(id).withTls(tls).withConnectionsPerPeer(stripes)
                .withSegmentBytes(64 * 1024).withTimeout(Duration.ofSeconds(20));
    }

    static SocketLink link(MeshProcessGroup g, int peer) {
        try {
            Field f = MeshProcessGroup.class.getDeclaredField("runtime");
            f.setAccessible(true);
            return ((io.reactivecollectives.transport.mesh.Mesh) ((GroupRuntime) f.get(g)).mesh()).socketLink(peer);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** {@code (i mod 1009) + 2000 * k} at index {@code i}: exact in float32, and a misplaced segment shows. */
    private static double value(int i, int k) {
        return (i % 1009) + 2000.0 * k;
    }

    private static Tensor ramp(int n, int k) {
        Tensor heap = ClusterTesting.heap(DType.FLOAT32, n);
        for (int i = 0; i < n; i++) {
            heap.buffer().setFloatLE(i * 4, (float) value(i, k));
        }
        return ClusterTesting.pooledCopy(heap);
    }

    /** Null when every element of {@code pooled} is {@code want}'s, else where the first differs; releases nothing. */
    private static String differs(String what, Tensor pooled, IntToDoubleFunction want) {
        Tensor h = ClusterTesting.heapCopy(pooled);
        for (int i = 0; i < h.numel(); i++) {
            double got = h.buffer().getFloatLE(i * 4);
            if (got != want.applyAsDouble(i)) {
                return what + ": element " + i + " is " + got + ", want " + want.applyAsDouble(i);
            }
        }
        return null;
    }

    /** Counts the bytes each stripe of {@code link} receives from now on. */
    private static AtomicLong[] countBytes(SocketLink link) {
        AtomicLong[] counts = new AtomicLong[link.stripes()];
        for (int s = 0; s < counts.length; s++) {
            AtomicLong c = new AtomicLong();
            counts[s] = c;
            link.channel(s).pipeline().addFirst("test-count", new Counter(c));
        }
        return counts;
    }

    @ChannelHandler.Sharable
    private static final class Counter extends ChannelInboundHandlerAdapter {
        private final AtomicLong count;

        Counter(AtomicLong count) {
            this.count = count;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.netty.buffer.ByteBuf b) {
                count.addAndGet(b.readableBytes());
            }
            ctx.fireChannelRead(msg);
        }
    }

    @ParameterizedTest(name = "world {0}, {1} connections per peer")
    @CsvSource({"3, 2", "2, 3"})
    void everyCollectiveIsRightWithItsSegmentsSpreadOverTheStripes(int world, int stripes) {
        ClusterTesting.withCluster(world, options("stripes-" + world + "-" + stripes, stripes), cluster -> {
            AtomicLong[][] received = new AtomicLong[world][];
            for (int p = 1; p < world; p++) {
                assertEquals("tcp", cluster.group(0).transportTo(p));
                assertEquals(stripes, link(cluster.group(0), p).stripes(), "rank 0 to " + p);
                assertEquals(stripes, link(cluster.group(p), 0).stripes(), "rank " + p + " to 0");
                received[p] = countBytes(link(cluster.group(0), p));
            }
            List<String> wrong = cluster.run(g -> everyCollective(g, world)).block(Duration.ofSeconds(25))
                    .stream().flatMap(List::stream).toList();
            assertTrue(wrong.isEmpty(), String.join("\n", wrong));
            for (int s = 0; s < stripes; s++) {   // rank 0's ring neighbour sends the most: over every stripe
                long bytes = 0;
                for (int p = 1; p < world; p++) {
                    bytes += received[p][s].get();
                }
                assertTrue(bytes > BIG, "rank 0 got " + bytes + " bytes on stripe " + s + " of " + stripes);
            }
            return null;
        });
    }

    /** Runs every kind of collective on {@code g} and returns what came out wrong. */
    private static Mono<List<String>> everyCollective(ProcessGroup g, int world) {
        int r = g.rank();
        int root = world - 1;
        double rankSum = 2000.0 * world * (world - 1) / 2;
        List<String> wrong = new ArrayList<>();
        List<Mono<Void>> steps = new ArrayList<>();
        for (int n : new int[] {300, BIG}) {
            steps.add(Mono.defer(() -> {
                Tensor t = ramp(n, r);
                return g.allReduce(t, ReduceOp.SUM).doOnNext(x -> note(wrong, differs("allReduce " + n, x,
                        i -> world * (i % 1009) + rankSum))).doFinally(s -> t.release()).then();
            }));
            steps.add(Mono.defer(() -> {
                Tensor t = r == root ? ramp(n, root) : Tensor.empty(DType.FLOAT32, n);
                return g.broadcast(t, root).doOnNext(x -> note(wrong, differs("broadcast " + n, x,
                        i -> value(i, root)))).doFinally(s -> t.release()).then();
            }));
        }
        int m = 200_000;
        steps.add(Mono.defer(() -> {
            List<Tensor> outs = new ArrayList<>();
            for (int q = 0; q < world; q++) {
                outs.add(Tensor.empty(DType.FLOAT32, m));
            }
            Tensor in = ramp(m, r);
            return g.allGather(outs, in).doOnNext(os -> {
                for (int q = 0; q < world; q++) {
                    int k = q;
                    note(wrong, differs("allGather from " + q, os.get(q), i -> value(i, k)));
                }
            }).doFinally(s -> {
                in.release();
                outs.forEach(Tensor::release);
            }).then();
        }));
        steps.add(Mono.defer(() -> {
            List<Tensor> ins = new ArrayList<>();
            for (int q = 0; q < world; q++) {
                ins.add(ramp(m, r + q));
            }
            Tensor out = Tensor.empty(DType.FLOAT32, m);
            double shifted = rankSum + 2000.0 * world * r;
            return g.reduceScatter(out, ins, ReduceOp.SUM).doOnNext(x -> note(wrong, differs("reduceScatter", x,
                    i -> world * (i % 1009) + shifted))).doFinally(s -> {
                        out.release();
                        ins.forEach(Tensor::release);
                    }).then();
        }));
        steps.add(Mono.defer(() -> {
            List<Tensor> ins = new ArrayList<>();
            List<Tensor> outs = new ArrayList<>();
            for (int q = 0; q < world; q++) {
                ins.add(ramp(m / 2, r * world + q));
                outs.add(Tensor.empty(DType.FLOAT32, m / 2));
            }
            return g.allToAll(outs, ins).doOnNext(os -> {
                for (int q = 0; q < world; q++) {
                    int k = q * world + r;
                    note(wrong, differs("allToAll from " + q, os.get(q), i -> value(i, k)));
                }
            }).doFinally(s -> {
                ins.forEach(Tensor::release);
                outs.forEach(Tensor::release);
            }).then();
        }));
        steps.add(Mono.defer(() -> {   // the senders ask for receipts (ACK on stripe 0, DATA on all)
            Tensor t = ramp(BIG, r);
            return g.reduce(t, 0, ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofSeconds(20)))
                    .doOnNext(x -> {
                        if (r == 0) {
                            note(wrong, differs("reduce", x, i -> world * (i % 1009) + rankSum));
                        }
                    }).doFinally(s -> t.release()).then();
        }));
        steps.add(Mono.defer(() -> {
            List<Tensor> outs = new ArrayList<>();
            for (int q = 0; r == root && q < world; q++) {
                outs.add(Tensor.empty(DType.FLOAT32, m));
            }
            Tensor in = ramp(m, r);
            return g.gather(outs, in, root).doOnNext(os -> {
                for (int q = 0; r == root && q < world; q++) {
                    int k = q;
                    note(wrong, differs("gather from " + q, os.get(q), i -> value(i, k)));
                }
            }).doFinally(s -> {
                in.release();
                outs.forEach(Tensor::release);
            }).then();
        }));
        steps.add(Mono.defer(() -> {
            List<Tensor> ins = new ArrayList<>();
            for (int q = 0; r == root && q < world; q++) {
                ins.add(ramp(m, 4 + q));
            }
            Tensor out = Tensor.empty(DType.FLOAT32, m);
            return g.scatter(out, ins, root).doOnNext(x -> note(wrong, differs("scatter", x, i -> value(i, 4 + r))))
                    .doFinally(s -> {
                        out.release();
                        ins.forEach(Tensor::release);
                    }).then();
        }));
        steps.add(Mono.defer(() -> {   // point-to-point: fragments on stripe 0
            if (r == 0) {
                Tensor t = ramp(m, 7);
                return g.send(t, 1, 5).doFinally(s -> t.release());
            }
            if (r == 1) {
                Tensor t = Tensor.empty(DType.FLOAT32, m);
                return g.recv(t, 0, 5).doOnNext(x -> note(wrong, differs("recv", x, i -> value(i, 7))))
                        .doFinally(s -> t.release()).then();
            }
            return Mono.empty();
        }));
        steps.add(Mono.defer(g::barrier));
        return Flux.concat(steps).then(Mono.fromSupplier(() -> wrong.stream().map(w -> "rank " + r + ": " + w).toList()));
    }

    private static void note(List<String> wrong, String what) {
        if (what != null) {
            wrong.add(what);
        }
    }

    @Test
    void aStripeThatDiesTakesTheLinkDownOnBothSidesNamingThePeer() {
        ClusterTesting.withCluster(2, options("stripe-dies", 2), cluster -> {
            MeshProcessGroup g0 = cluster.group(0);
            MeshProcessGroup g1 = cluster.group(1);
            SocketLink to1 = link(g0, 1);
            SocketLink to0 = link(g1, 0);
            Tensor t0 = ramp(BIG, 0);
            Tensor t1 = ramp(BIG, 1);
            try {
                CollectiveOptions bounded = CollectiveOptions.timeout(Duration.ofSeconds(15));
                var waiting = g0.allReduce(t0, ReduceOp.SUM, bounded).toFuture();   // rank 1 has not joined yet
                to1.channel(1).close();
                Throwable e0 = assertThrows(Exception.class, () -> waiting.get(15, TimeUnit.SECONDS)).getCause();
                PeerFailureException pf0 = assertInstanceOf(PeerFailureException.class, e0);
                assertEquals(1, pf0.peer(), e0.getMessage());
                assertTrue(e0.getMessage().contains("peer 1"), e0.getMessage());
                Throwable e1 = g1.allReduce(t1, ReduceOp.SUM, bounded).materialize().block(Duration.ofSeconds(15))
                        .getThrowable();
                PeerFailureException pf1 = assertInstanceOf(PeerFailureException.class, e1);
                assertEquals(0, pf1.peer(), e1.getMessage());
                assertTrue(e1.getMessage().contains("peer 0"), e1.getMessage());
                for (SocketLink l : List.of(to1, to0)) {
                    for (int s = 0; s < 2; s++) {
                        Channel c = l.channel(s);
                        assertTrue(c.closeFuture().awaitUninterruptibly(5, TimeUnit.SECONDS),
                                "stripe " + s + " of " + l + " is still open");
                    }
                }
            } finally {
                t0.release();
                t1.release();
            }
            return null;
        });
    }

    /**
     * Over TLS: a rank closing right after its broadcast loses nothing its connections still carry
     * (with one connection it lost the end of the broadcast in about half the rounds while a close
     * sent a close_notify and closed at once; with several, also while the peer's close of one
     * stripe cut the others short).
     */
    @ParameterizedTest(name = "{0} connections per peer")
    @ValueSource(ints = {1, 3})
    void aRankClosingRightAfterItsBroadcastLosesNothingOverTls(int stripes) {
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < 6; round++) {
            LocalCluster cluster = LocalCluster.start(2, options("tls-bye-" + stripes + "-" + round, stripes))
                    .block(ClusterTesting.TIMEOUT);
            try {
                List<Mono<String>> ranks = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    MeshProcessGroup g = cluster.group(r);
                    Tensor t = r == 0 ? ramp(BIG, 3) : Tensor.empty(DType.FLOAT32, BIG);
                    ranks.add(g.broadcast(t, 0)   // rank 0's part ends once its frames are in the sockets
                            .map(x -> {
                                String w = differs("broadcast", x, i -> value(i, 3));
                                return w == null ? "ok" : w;
                            })
                            .onErrorResume(e -> Mono.just(e.toString()))
                            .doFinally(s -> {
                                g.close();   // at once, as a program that is done
                                t.release();
                            }));
                }
                for (String s : Flux.merge(ranks).collectList().block(Duration.ofSeconds(20))) {
                    if (!s.equals("ok")) {
                        failures.add("round " + round + ": " + s);
                    }
                }
            } finally {
                cluster.close();
            }
        }
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void ranksThatDisagreeOnTheCountCannotFormAGroup() {
        HashStore store = new HashStore();
        GroupOptions base = options("stripes-mismatch", 1).withConnectTimeout(Duration.ofSeconds(8));
        var two = MeshProcessGroup.connect(store, 0, 2, base.withConnectionsPerPeer(2)).toFuture();
        var one = MeshProcessGroup.connect(store, 1, 2, base).toFuture();
        Throwable e0 = assertThrows(Exception.class, () -> two.get(20, TimeUnit.SECONDS).close()).getCause();
        Throwable e1 = assertThrows(Exception.class, () -> one.get(20, TimeUnit.SECONDS).close()).getCause();
        for (Throwable e : List.of(e0, e1)) {
            assertTrue(String.valueOf(e.getMessage()).contains("connections per peer mismatch: rank 0 has 2 per peer over tcp, "
                    + "rank 1 opened 1"), String.valueOf(e));
        }
        store.close();
    }
}
