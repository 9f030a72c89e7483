package io.reactivecollectives.transport;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.mesh.MeshStartException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Streaming back-pressure, point-to-point, cancellation, concurrency, failures and bad arguments. */
class GroupBehaviourTest {

    static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id).withTimeout(Duration.ofSeconds(20))
                .withConnectTimeout(Duration.ofSeconds(20));
    }

    // ------------------------------------------------------------------ streaming

    @Test
    void streamReducesEveryChunkInOrderWithBoundedChunksInFlight() {
        int world = 3;
        int chunks = 40;
        int prefetch = 3;
        ClusterTesting.withCluster(world, options("stream"), cluster -> {
            List<Tensor> owned = new ArrayList<>();
            AtomicInteger[] outstanding = new AtomicInteger[world];
            int[] maxOutstanding = new int[world];
            try {
                List<Flux<Chunk>> sources = new ArrayList<>();
                for (int r = 0; r < world; r++) {
                    int rank = r;
                    outstanding[r] = new AtomicInteger();
                    Tensor whole = Tensor.zeros(DType.FLOAT32, chunks * 1000L);
                    owned.add(whole);
                    sources.add(Flux.range(0, chunks).map(i -> {
                        Tensor view = ClusterTesting.fill(whole.narrow(i * 1000L, 1000), i + rank);
                        int now = outstanding[rank].incrementAndGet();
                        synchronized (maxOutstanding) {
                            maxOutstanding[rank] = Math.max(maxOutstanding[rank], now);
                        }
                        return new Chunk(i, i * 1000L, view);
                    }));
                }
                StepVerifier.create(cluster.run(g -> g.allReduceStream(sources.get(g.rank()), ReduceOp.SUM, prefetch)
                                // a slow consumer: one chunk at a time, after a pause
                                .delayElements(Duration.ofMillis(2))
                                .doOnNext(c -> outstanding[g.rank()].decrementAndGet())
                                .map(c -> c.index() * 10_000 + (int) c.tensor().getDouble(999))
                                .collectList()))
                        .assertNext(out -> {
                            for (int r = 0; r < world; r++) {
                                List<Integer> got = out.get(r);
                                assertEquals(chunks, got.size());
                                for (int i = 0; i < chunks; i++) {
                                    // sum over ranks of (i + rank) = 3i + 3
                                    assertEquals(i * 10_000 + 3 * i + 3, got.get(i), "rank " + r + " chunk " + i);
                                }
                            }
                        })
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                for (int r = 0; r < world; r++) {
                    // at most prefetch chunks being reduced, plus one handed downstream and waiting in the delay
                    assertTrue(maxOutstanding[r] <= prefetch + 1, "rank " + r + " had " + maxOutstanding[r]
                            + " chunks outstanding, prefetch " + prefetch);
                    assertTrue(maxOutstanding[r] >= 2, "the stream did pipeline (max outstanding " + maxOutstanding[r] + ")");
                }
            } finally {
                owned.forEach(Tensor::release);
            }
            return null;
        });
    }

    /**
     * A stream's chunks in flight hold their memory: two chunks that overlap (their shared elements
     * reduced twice, in an order that differs between ranks: before, the ranks ended with different
     * values and no error) are refused, the stream fails on every rank, and the group carries on.
     */
    @Test
    void overlappingChunksInFlightAreRefusedOnEveryRank() {
        int world = 2;
        ClusterTesting.withCluster(world, options("stream-overlap"), cluster -> {
            List<Tensor> ts = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                ts.add(ClusterTesting.filled(DType.FLOAT32, 8, 1));
            }
            try {
                List<Object> out = cluster.run(g -> {
                    Tensor t = ts.get(g.rank());
                    Flux<Chunk> chunks = Flux.just(new Chunk(0, 0, t.narrow(0, 6)), new Chunk(1, 2, t.narrow(2, 6)));
                    return g.allReduceStream(chunks, ReduceOp.SUM, 2).count().<Object>map(n -> n)
                            .onErrorResume(e -> Mono.just(e));
                }).block(ClusterTesting.TIMEOUT);
                boolean refusedHere = false;
                for (int r = 0; r < world; r++) {
                    assertTrue(out.get(r) instanceof Throwable, "rank " + r + " completed: " + out);
                    String m = ((Throwable) out.get(r)).getMessage();
                    assertTrue(m.contains("allReduceStream: chunk 1: tensor") && m.contains("is in use by allReduceStream chunk 0"), m);
                    refusedHere |= out.get(r) instanceof IllegalArgumentException;
                }
                assertTrue(refusedHere, String.valueOf(out));
                for (Tensor t : ts) {
                    ClusterTesting.fill(t, 2);
                }
                assertEquals(List.of(4.0, 4.0), cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)
                        .map(t -> t.getDouble(7))).block(ClusterTesting.TIMEOUT));
            } finally {
                ClusterTesting.releaseAll(ts);
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ point to point

    @Test
    void sendRecvMatchesByTagAndOrderAndRecvAnySourceNamesTheSender() {
        ClusterTesting.withCluster(3, options("p2p").withSegmentBytes(1 << 16).withMaxFramePayload(1 << 20), cluster -> {
            MeshProcessGroup g0 = cluster.group(0);
            MeshProcessGroup g1 = cluster.group(1);
            MeshProcessGroup g2 = cluster.group(2);
            Tensor a = Tensor.fromInts(new int[] {1, 2, 3});
            Tensor b = Tensor.fromInts(new int[] {4, 5, 6});
            Tensor big = ClusterTesting.filled(DType.FLOAT32, 700_000, 2.5); // 2.8 MB: three fragments
            Tensor ra = Tensor.zeros(DType.INT32, 3);
            Tensor rb = Tensor.zeros(DType.INT32, 3);
            Tensor rbig = Tensor.zeros(DType.FLOAT32, 700_000);
            Tensor any = Tensor.zeros(DType.INT32, 3);
            Tensor wrong = Tensor.zeros(DType.INT32, 4);
            Tensor floats = ClusterTesting.filled(DType.FLOAT32, 3, 1.5);
            try {
                // tag 7 then tag 8 sent; received in the other order: tags, not arrival, match
                StepVerifier.create(Mono.when(g0.send(a, 1, 7), g0.send(b, 1, 8), g0.send(big, 1, 9))
                                .then(Mono.zip(g1.recv(rb, 0, 8), g1.recv(ra, 0, 7), g1.recv(rbig, 0, 9))))
                        .expectNextCount(1)
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                assertArrayEquals(new int[] {1, 2, 3}, ra.toIntArray());
                assertArrayEquals(new int[] {4, 5, 6}, rb.toIntArray());
                assertTrue(ClusterTesting.heapCopy(big).contentEquals(ClusterTesting.heapCopy(rbig)));
                StepVerifier.create(g1.recvAnySource(any, 3).zipWith(g2.send(b, 1, 3).then(Mono.just(0))))
                        .assertNext(t -> assertEquals(2, t.getT1()))
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                assertArrayEquals(new int[] {4, 5, 6}, any.toIntArray());
                // a message larger than the receive tensor is an error naming the sender, not a corruption
                StepVerifier.create(g0.send(wrong, 2, 1).then(g2.recv(ra, 0, 1)))
                        .expectErrorSatisfies(e -> {
                            assertTrue(e instanceof CollectiveException, e.toString());
                            assertTrue(e.getMessage().contains("rank 0"), e.getMessage());
                        })
                        .verify(ClusterTesting.TIMEOUT);
                // a message of another dtype of the same size is an error too, not its bytes read as ints
                StepVerifier.create(g0.send(floats, 2, 2).then(g2.recv(ra, 0, 2)))
                        .expectErrorSatisfies(e -> {
                            assertTrue(e instanceof CollectiveException, e.toString());
                            assertTrue(e.getMessage().contains("message from rank 0 with tag 2 holds float32, the receive"
                                    + " tensor is int32"), e.getMessage());
                        })
                        .verify(ClusterTesting.TIMEOUT);
                assertArrayEquals(new int[] {1, 2, 3}, ra.toIntArray(), "nothing written into the receive tensor");
            } finally {
                for (Tensor t : List.of(a, b, big, ra, rb, rbig, any, wrong, floats)) {
                    t.release();
                }
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ concurrency and cancellation

    @Test
    void severalCollectivesInFlightAtOnce() {
        int world = 4;
        ClusterTesting.withCluster(world, options("concurrent").withSegmentBytes(4096), cluster -> {
            int k = 12;
            List<List<Tensor>> perRank = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                List<Tensor> ts = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    ts.add(ClusterTesting.filled(DType.INT64, 5000 + i, r + i));
                }
                perRank.add(ts);
            }
            try {
                // every rank subscribes all k at once (Mono.when): they are in flight together
                StepVerifier.create(cluster.run(g -> {
                            List<Mono<Tensor>> all = new ArrayList<>();
                            for (Tensor t : perRank.get(g.rank())) {
                                all.add(g.allReduce(t, ReduceOp.SUM));
                            }
                            return Mono.when(all).thenReturn(g.rank());
                        }))
                        .expectNextCount(1)
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                for (int r = 0; r < world; r++) {
                    for (int i = 0; i < k; i++) {
                        Tensor t = perRank.get(r).get(i);
                        long want = 6 + 4L * i; // sum over ranks of (r + i)
                        assertEquals(want, t.getLong(0));
                        assertEquals(want, t.getLong(t.numel() - 1));
                    }
                }
            } finally {
                perRank.forEach(ClusterTesting::releaseAll);
            }
            return null;
        });
    }

    @Test
    void cancellingACollectiveAbortsItOnEveryRankAndTheGroupCarriesOn() {
        int world = 3;
        ClusterTesting.withCluster(world, options("cancel"), cluster -> {
            List<Tensor> ts = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                ts.add(ClusterTesting.filled(DType.FLOAT32, 1 << 20, 1));
            }
            try {
                // ranks 1 and 2 start the collective; rank 0 starts it too but cancels before ranks 1, 2 can finish
                // (they wait for rank 0's data, which it withholds by subscribing last and cancelling at once)
                Mono<Tensor> r1 = cluster.group(1).allReduce(ts.get(1), ReduceOp.SUM);
                Mono<Tensor> r2 = cluster.group(2).allReduce(ts.get(2), ReduceOp.SUM);
                StepVerifier.create(Mono.when(
                                r1.onErrorResume(e -> Mono.error(new AssertionError("rank 1", e))),
                                r2))
                        .then(() -> cluster.group(0).allReduce(ts.get(0), ReduceOp.SUM)
                                .timeout(Duration.ofMillis(1), Mono.empty()).subscribe())
                        .expectErrorSatisfies(e -> {
                            Throwable c = e instanceof AssertionError ? e.getCause() : e;
                            assertTrue(c instanceof CollectiveException, String.valueOf(c));
                            assertTrue(c.getMessage().contains("allReduce[seq=0]"), c.getMessage());
                            assertTrue(c.getMessage().contains("aborted by rank"), c.getMessage());
                        })
                        .verify(ClusterTesting.TIMEOUT);
                // the group is still usable: the next collective (seq 1) succeeds everywhere
                for (Tensor t : ts) {
                    ClusterTesting.fill(t, 2);
                }
                StepVerifier.create(cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)))
                        .expectNextCount(1)
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                for (Tensor t : ts) {
                    assertEquals(6.0, t.getDouble(0));
                    assertEquals(6.0, t.getDouble(t.numel() - 1));
                }
                // nothing left buffered for the aborted collective
                Mono.delay(Duration.ofMillis(100)).block();
                for (MeshProcessGroup g : cluster.groups()) {
                    assertEquals(0, g.unclaimedBytes(), "rank " + g.rank());
                }
            } finally {
                ClusterTesting.releaseAll(ts);
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ failures

    @Test
    void timeoutWhenARankNeverJoinsTheCollective() {
        ClusterTesting.withCluster(2, options("timeout"), cluster -> {
            Tensor t = Tensor.zeros(DType.FLOAT32, 10);
            try {
                StepVerifier.create(cluster.group(0).allReduce(t, ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofMillis(200))))
                        .expectErrorSatisfies(e -> {
                            assertTrue(e instanceof CollectiveTimeoutException, e.toString());
                            assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank 0: timed out after 200 ms waiting for rank 1"),
                                    e.getMessage());
                        })
                        .verify(ClusterTesting.TIMEOUT);
            } finally {
                t.release();
            }
            return null;
        });
    }

    @Test
    void peerClosingFailsInFlightCollectivesNamingThePeer() {
        LocalCluster cluster = LocalCluster.start(3, options("peer-closed")).block(ClusterTesting.TIMEOUT);
        Tensor t = Tensor.zeros(DType.FLOAT32, 100);
        try {
            StepVerifier.create(cluster.group(1).allReduce(t, ReduceOp.SUM))
                    .then(() -> cluster.group(2).close())
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof PeerFailureException, e.toString());
                        // close() is an orderly departure: the peers hear that the rank left, not a closed socket
                        assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank 1: peer 2 left the group"),
                                e.getMessage());
                    })
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            t.release();
            cluster.close();
        }
    }

    @Test
    void sizeMismatchIsAnErrorOnEveryRankNotAHang() {
        ClusterTesting.withCluster(2, options("mismatch"), cluster -> {
            Tensor a = Tensor.zeros(DType.FLOAT32, 10);
            Tensor b = Tensor.zeros(DType.FLOAT32, 12);
            try {
                StepVerifier.create(Mono.when(
                                cluster.group(0).allReduce(a, ReduceOp.SUM).onErrorResume(e -> Mono.empty()),
                                cluster.group(1).allReduce(b, ReduceOp.SUM)))
                        .expectErrorSatisfies(e -> assertTrue(e instanceof CollectiveMismatchException
                                || e.getMessage().contains("aborted by rank 0"), e.toString()))
                        .verify(ClusterTesting.TIMEOUT);
            } finally {
                a.release();
                b.release();
            }
            return null;
        });
    }

    @Test
    void startUpNamesTheRanksThatNeverAppeared() {
        HashStore store = new HashStore();
        try {
            GroupOptions o = options("missing").withConnectTimeout(Duration.ofMillis(500));
            StepVerifier.create(MeshProcessGroup.connect(store, 1, 4, o))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof MeshStartException, e.toString());
                        assertTrue(e.getMessage().contains("ranks [0, 2, 3] never appeared"), e.getMessage());
                    })
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            store.close();
        }
    }

    @Test
    void wrongSecretIsRejectedAtTheHandshake() {
        HashStore store = new HashStore();
        try {
            GroupOptions o = options("secret").withConnectTimeout(Duration.ofMillis(800));
            StepVerifier.create(Mono.zip(MeshProcessGroup.connect(store, 0, 2, o.withSecret("right")),
                            MeshProcessGroup.connect(store, 1, 2, o.withSecret("wrong"))))
                    .expectError()
                    .verify(ClusterTesting.TIMEOUT);
        } finally {
            store.close();
        }
    }

    // ------------------------------------------------------------------ bad arguments

    @Test
    void badArgumentsAreRejectedBeforeAnythingIsSent() {
        ClusterTesting.withCluster(4, options("args"), cluster -> {
            MeshProcessGroup g = cluster.group(0);
            Tensor f = Tensor.zeros(DType.FLOAT32, 4);
            Tensor bool = Tensor.zeros(DType.BOOL, 4);
            Tensor released = Tensor.zeros(DType.FLOAT32, 4);
            released.release();
            try {
                long before = g.nextSequence();
                expectIae(g.broadcast(f, 5), "broadcast: invalid root rank 5 for world size 4");
                expectIae(g.broadcast(f, -1), "broadcast: invalid root rank -1 for world size 4");
                expectIae(g.reduce(f, 4, ReduceOp.SUM, CollectiveOptions.DEFAULT), "reduce: invalid root rank 4 for world size 4");
                expectIae(g.allReduce(bool, ReduceOp.AVG), "allReduce: ReduceOp.AVG is not supported for bool tensors");
                expectIae(g.allReduce(f, ReduceOp.BXOR), "allReduce: ReduceOp.BXOR is only supported for integer");
                expectIae(g.allReduce(released, ReduceOp.SUM), "allReduce: tensor was already released");
                expectIae(g.allReduce(null, ReduceOp.SUM), "allReduce: tensor is null");
                expectIae(g.allReduceCoalesced(List.of(), ReduceOp.SUM, CollectiveOptions.DEFAULT),
                        "allReduceCoalesced: requires a non-empty list");
                expectIae(g.allReduceCoalesced(List.of(f, bool), ReduceOp.SUM, CollectiveOptions.DEFAULT),
                        "allReduceCoalesced: invalid tensor type");
                expectIae(g.allReduce(f, ReduceOp.SUM, CollectiveOptions.algorithm(io.reactivecollectives.core.Algorithm.PAIRWISE)),
                        "allReduce: algorithm PAIRWISE");
                expectIae(g.send(f, 0, 1), "send: rank 0 cannot send to itself");
                expectIae(g.send(f, 9, 1), "send: invalid destination rank 9");
                expectIae(g.recv(f, 4, 1), "recv: invalid source rank 4");
                StepVerifier.create(g.allReduceStream(Flux.empty(), ReduceOp.SUM, 0))
                        .expectErrorMessage("allReduceStream: prefetch must be >= 1, got 0")
                        .verify(ClusterTesting.TIMEOUT);
                // every refused collective (11; point-to-point calls take none) took its sequence number and
                // told the peers, whose copies of it fail with the reason: the ranks stay in step
                assertEquals(before + 11, g.nextSequence(), "a refused collective takes its sequence number");
                assertEquals(0, g.openCollectives());
            } finally {
                f.release();
                bool.release();
            }
            return null;
        });
    }

    private static void expectIae(Mono<?> mono, String prefix) {
        StepVerifier.create(mono)
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalArgumentException, e.toString());
                    assertTrue(e.getMessage().startsWith(prefix), "'" + e.getMessage() + "' should start with '" + prefix + "'");
                })
                .verify(ClusterTesting.TIMEOUT);
    }
}
