package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every rank agrees on every collective (the issue "Never a wrong answer, never a split group"):
 * a rank-local argument error takes its sequence number and fails that collective on every rank;
 * ranks that disagree on op, dtype, reduce op, root or size fail on every rank within a second
 * (with the group's default 5-minute timeout) naming both sides; and the group's next collective
 * is correct again.
 */
class AgreementTest {

    /** Well under the group's timeout: a mismatch must never wait it out. */
    private static final Duration PROMPT = Duration.ofSeconds(3);

    private static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id);
    }

    /** Runs {@code body} on every rank at once; returns each rank's outcome (a value, or the error). */
    private static List<Object> outcomes(LocalCluster cluster, BiFunction<ProcessGroup, Integer, Mono<?>> body) {
        List<Mono<Object>> all = new ArrayList<>();
        for (int r = 0; r < cluster.size(); r++) {
            int rank = r;
            all.add(Mono.defer(() -> body.apply(cluster.group(rank), rank)).map(v -> (Object) v)
                    .defaultIfEmpty("done").onErrorResume(e -> Mono.just(e)));
        }
        long t0 = System.nanoTime();
        List<Object> res = Mono.zip(all, xs -> java.util.Arrays.asList(xs)).block(PROMPT.plusSeconds(2));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < PROMPT.toMillis(), "took " + ms + " ms: " + res);
        return res;
    }

    private static void allReduceIsCorrect(LocalCluster cluster) {
        List<Object> res = outcomes(cluster, (g, r) -> {
            Tensor t = ClusterTesting.filled(DType.FLOAT32, 1000, r + 1);
            return g.allReduce(t, ReduceOp.SUM).map(x -> x.getDouble(999)).doFinally(s -> t.release());
        });
        int n = cluster.size();
        for (Object o : res) {
            assertEquals((double) n * (n + 1) / 2, o, "the next collective is correct on every rank: " + res);
        }
    }

    private static void everyRankFailsWithMismatch(List<Object> res, String detail) {
        for (int r = 0; r < res.size(); r++) {
            Object o = res.get(r);
            assertInstanceOf(CollectiveMismatchException.class, o, "rank " + r + ": " + o);
            assertTrue(((Throwable) o).getMessage().contains(detail), "rank " + r + ": '" + ((Throwable) o).getMessage()
                    + "' should name '" + detail + "'");
        }
    }

    @Test
    void aRootOnlyArgumentErrorFailsTheGatherEverywhereAndTheNextCollectiveIsRight() {
        ClusterTesting.withCluster(3, options("agree-gather"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor in = ClusterTesting.filled(DType.FLOAT32, 4, 10 + r);
                List<Tensor> outs = new ArrayList<>();
                for (int i = 0; r == 0 && i < 4; i++) {   // 4 outputs on a world of 3: wrong, on rank 0 only
                    outs.add(ClusterTesting.filled(DType.FLOAT32, 4, 0));
                }
                return g.gather(outs, in, 0).doFinally(s -> {
                    in.release();
                    outs.forEach(Tensor::release);
                });
            });
            assertInstanceOf(IllegalArgumentException.class, res.get(0), String.valueOf(res.get(0)));
            for (int r = 1; r < 3; r++) {
                assertInstanceOf(CollectiveMismatchException.class, res.get(r), "rank " + r + ": " + res.get(r));
                assertTrue(((Throwable) res.get(r)).getMessage().contains("gather"), res.get(r).toString());
            }
            // a valid scatter from root 1: rank 0 gets rank 1's input for it, not stale gather data
            List<Object> scattered = outcomes(cluster, (g, r) -> {
                Tensor out = ClusterTesting.filled(DType.FLOAT32, 4, -1);
                List<Tensor> ins = new ArrayList<>();
                for (int i = 0; r == 1 && i < 3; i++) {
                    ins.add(ClusterTesting.filled(DType.FLOAT32, 4, 100 + i));
                }
                return g.scatter(out, ins, 1).map(t -> t.getDouble(0)).doFinally(s -> {
                    out.release();
                    ins.forEach(Tensor::release);
                });
            });
            assertEquals(List.of(100.0, 101.0, 102.0), scattered);
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void dtypesThatDisagreeFailOnEveryRankNamingBothSides() {
        ClusterTesting.withCluster(3, options("agree-dtype"), cluster -> {
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(r == 0 ? DType.FLOAT32 : DType.INT32, 1024, 1);
                return g.allReduce(t, ReduceOp.SUM).doFinally(s -> t.release());
            }), "dtype float32 on rank 0, int32 on rank ");
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void reduceOpsRootsSizesAndOpsThatDisagreeFailOnEveryRank() {
        ClusterTesting.withCluster(4, options("agree-more"), cluster -> {
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 256, r);
                return g.allReduce(t, r % 2 == 0 ? ReduceOp.MAX : ReduceOp.SUM).doFinally(s -> t.release());
            }), "reduce op ");
            allReduceIsCorrect(cluster);
            // 16 MiB against 16 MiB + 1 KiB: the frame sizes alone would not tell
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, (16 << 20) / 4 + (r == 3 ? 256 : 0), 1);
                return g.allReduce(t, ReduceOp.SUM).doFinally(s -> t.release());
            }), "element count ");
            allReduceIsCorrect(cluster);
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, (r < 2 ? 4 : 8) << 18, 1);
                return g.allReduce(t, ReduceOp.SUM).doFinally(s -> t.release());
            }), "element count ");
            allReduceIsCorrect(cluster);
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 1024, 1);
                return (r == 2 ? g.broadcast(t, 2) : g.allReduce(t, ReduceOp.SUM)).doFinally(s -> t.release());
            }), "op ");
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    /**
     * Roots that disagree (rank 0 names root 0, ranks 1 and 2 root 1): the roots only send, so they
     * wait for receipts and fail; rank 2 hears from rank 1 only in its view, so it either fails too
     * (when rank 0's frames reach it first) or holds root 1's data: never anything else.
     */
    @Test
    void rootsThatDisagreeFailTheRootsAndNeverGiveWrongData() {
        ClusterTesting.withCluster(3, options("agree-root"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 256, r);
                return g.broadcast(t, r == 0 ? 0 : 1).map(x -> x.getDouble(255)).doFinally(s -> t.release());
            });
            everyRankFailsWithMismatch(res.subList(0, 2), "root 0 on rank 0, 1 on rank ");
            Object third = res.get(2);
            assertTrue(third.equals(1.0) || third instanceof CollectiveMismatchException, "rank 2: " + third);
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    /** {@code Mono.when(m, m)}: the second subscription finds the tensor in use and is refused on every rank. */
    @Test
    void aTensorInUseByAnInFlightCollectiveIsRefused() {
        ClusterTesting.withCluster(2, options("agree-in-use"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 1 << 16, r + 1);
                Mono<Tensor> m = g.allReduce(t, ReduceOp.SUM);
                List<Object> each = new ArrayList<>();
                return Mono.when(m.doOnNext(x -> each.add("ok")).onErrorResume(e -> {
                            each.add(e);
                            return Mono.empty();
                        }), m.doOnNext(x -> each.add("ok")).onErrorResume(e -> {
                            each.add(e);
                            return Mono.empty();
                        }))
                        .then(Mono.fromCallable(() -> List.of(List.copyOf(each), t.getDouble(0), t.getDouble((1 << 16) - 1))))
                        .doFinally(s -> t.release());
            });
            int refusedHere = 0;
            for (int r = 0; r < 2; r++) {
                List<?> out = (List<?>) res.get(r);
                List<?> each = (List<?>) out.get(0);
                assertEquals(2, each.size(), "rank " + r + ": " + each);
                assertTrue(each.contains("ok"), "one of the two ran, rank " + r + ": " + each);
                Throwable refused = (Throwable) each.get(each.get(0).equals("ok") ? 1 : 0);
                // refused here, or (when this rank's first call had already ended) by the peer's notice
                assertTrue(refused instanceof IllegalArgumentException || refused instanceof CollectiveMismatchException,
                        "rank " + r + ": " + refused);
                assertTrue(refused.getMessage().matches("allReduce.*: tensor .* is in use by allReduce\\[seq=0\\].*"),
                        refused.getMessage());
                refusedHere += refused instanceof IllegalArgumentException ? 1 : 0;
                assertEquals(3.0, out.get(1), "the single all-reduce's result, rank " + r);
                assertEquals(3.0, out.get(2), "the single all-reduce's result, rank " + r);
            }
            assertTrue(refusedHere >= 1, "at least one rank refused the second call itself");
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    /**
     * A receive writes into its tensor as a collective does: a receive into a tensor an in-flight
     * all-reduce uses is refused, and so is an all-reduce of a tensor a pending receive will fill;
     * before, both ran, and the ranks ended the all-reduce with different results.
     */
    @Test
    void aReceiveAndACollectiveNeverShareATensor() {
        ClusterTesting.withCluster(2, options("agree-recv-in-use"), cluster -> {
            MeshProcessGroup g0 = cluster.group(0);
            MeshProcessGroup g1 = cluster.group(1);
            Tensor t0 = ClusterTesting.filled(DType.FLOAT32, 4, 1);
            Tensor t1 = ClusterTesting.filled(DType.FLOAT32, 4, 2);
            try {
                // rank 1's all-reduce waits for rank 0; a receive into its tensor meanwhile is refused
                Mono<Tensor> allReduce1 = g1.allReduce(t1, ReduceOp.SUM).cache();
                allReduce1.subscribe(x -> { }, e -> { });
                Throwable e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> g1.recv(t1, 0, 4).block(Duration.ofSeconds(20)));
                assertTrue(e.getMessage().matches("recv: tensor .* is in use by allReduce\\[seq=0\\].*"), e.getMessage());
                assertEquals(3.0, g0.allReduce(t0, ReduceOp.SUM).block(Duration.ofSeconds(20)).getDouble(3));
                assertEquals(3.0, allReduce1.block(Duration.ofSeconds(20)).getDouble(3), "both ranks agree");

                // a pending receive holds its tensor: an all-reduce of it is refused (and told to the peer)
                Mono<Tensor> recv1 = g1.recv(t1, 0, 5).cache();
                recv1.subscribe(x -> { }, x -> { });
                List<Object> res = outcomes(cluster, (g, r) -> g.allReduce(r == 0 ? t0 : t1, ReduceOp.SUM));
                assertInstanceOf(IllegalArgumentException.class, res.get(1));
                assertTrue(((Throwable) res.get(1)).getMessage().matches(
                        "allReduce: tensor .* is in use by recv from rank 0 with tag 5, still in flight.*"),
                        ((Throwable) res.get(1)).getMessage());
                t0.fill(7);
                g0.send(t0, 1, 5).block(Duration.ofSeconds(20));
                assertEquals(7.0, recv1.block(Duration.ofSeconds(20)).getDouble(3));
                // the receive gave its tensor back as it completed: a chained collective may use it
                t0.fill(1);
                List<Object> chained = outcomes(cluster, (g, r) -> r == 0
                        ? g.send(t0, 1, 6).then(g.allReduce(t0, ReduceOp.SUM))
                        : g.recv(t1, 0, 6).flatMap(t -> g.allReduce(t, ReduceOp.SUM)));
                assertEquals(List.of(t0, t1), chained);
                assertEquals(2.0, t0.getDouble(3));
                assertEquals(2.0, t1.getDouble(3));
            } finally {
                t0.release();
                t1.release();
            }
            return null;
        });
    }

    @Test
    void aMismatchMessageNamesTheOpTheRankAndTheSequence() {
        ClusterTesting.withCluster(2, options("agree-msg"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 64 + r, 1);
                return g.allReduce(t, ReduceOp.SUM).doFinally(s -> t.release());
            });
            for (int r = 0; r < 2; r++) {
                String m = ((Throwable) res.get(r)).getMessage();
                assertNotNull(m);
                assertTrue(m.startsWith("allReduce[seq=0] rank " + r + ": collective mismatch: element count 64 on rank 0, "
                        + "65 on rank 1"), m);
            }
            return null;
        });
    }

    @Test
    void nullOptionsOnOneRankFailThereAndThePeersPromptly() {
        ClusterTesting.withCluster(3, options("agree-null-options"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 64, 1);
                return g.allReduce(t, ReduceOp.SUM, r == 2 ? null : io.reactivecollectives.core.CollectiveOptions.DEFAULT)
                        .doFinally(s -> t.release());
            });
            assertInstanceOf(IllegalArgumentException.class, res.get(2), String.valueOf(res.get(2)));
            assertTrue(((Throwable) res.get(2)).getMessage().contains("options is null"), res.get(2).toString());
            for (int r = 0; r < 2; r++) {
                assertInstanceOf(io.reactivecollectives.core.CollectiveException.class, res.get(r), "rank " + r + ": " + res.get(r));
                assertTrue(((Throwable) res.get(r)).getMessage().contains("options is null"), res.get(r).toString());
            }
            allReduceIsCorrect(cluster);   // the refused call took its number on rank 2 too
            return null;
        });
    }

    @Test
    void algorithmsForcedOnSomeRanksOnlyFailOnEveryRankNamingThem() {
        ClusterTesting.withCluster(3, options("agree-algorithm"), cluster -> {
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 7, 1);
                var forced = io.reactivecollectives.core.CollectiveOptions.algorithm(
                        r == 1 ? io.reactivecollectives.core.Algorithm.RING : io.reactivecollectives.core.Algorithm.RECURSIVE_DOUBLING);
                return g.allReduce(t, ReduceOp.SUM, forced).doFinally(s -> t.release());
            }), "algorithm ");
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 4096, r == 0 ? 5 : 0);
                var forced = io.reactivecollectives.core.CollectiveOptions.algorithm(
                        r == 1 ? io.reactivecollectives.core.Algorithm.BINOMIAL_TREE : io.reactivecollectives.core.Algorithm.PIPELINED_CHAIN);
                return g.broadcast(t, 0, forced).doFinally(s -> t.release());
            }), "algorithm ");
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void anEmptyTensorOnSomeRanksOnlyFailsEveryRankAndEmptyEverywhereCompletes() {
        ClusterTesting.withCluster(3, options("agree-empty"), cluster -> {
            // all-reduce: rank 2 empty, the others 1 element
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, r == 2 ? 0 : 1, 1);
                return g.allReduce(t, ReduceOp.SUM).doFinally(s -> t.release());
            }), "element count ");
            // broadcast from root 1 (3 elements) to a rank with an empty tensor; and an empty root
            for (int emptyRank : new int[] {0, 1}) {
                everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                    Tensor t = ClusterTesting.filled(DType.FLOAT32, r == emptyRank ? 0 : 3, r == 1 ? 7 : 0);
                    return g.broadcast(t, 1).doFinally(s -> t.release());
                }), "element count ");
            }
            // reduce to root 0 with rank 1 empty
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, r == 1 ? 0 : 5, 1);
                return g.reduce(t, 0, ReduceOp.SUM).doFinally(s -> t.release());
            }), "element count ");
            // every rank empty: nothing to do, and done everywhere
            List<Object> empty = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 0, 0);
                return g.allReduce(t, ReduceOp.SUM).then(g.broadcast(t, 2)).then(g.reduce(t, 1, ReduceOp.MAX))
                        .map(x -> x.numel()).doFinally(s -> t.release());
            });
            assertEquals(List.of(0L, 0L, 0L), empty);
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void streamsWhoseReduceOpsDisagreeFailOnEveryRank() {
        ClusterTesting.withCluster(3, options("agree-stream-op"), cluster -> {
            everyRankFailsWithMismatch(outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 4, r + 1);
                return g.allReduceStream(reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, t)),
                        r == 1 ? ReduceOp.MAX : ReduceOp.SUM, 1).then().doFinally(s -> t.release());
            }), "reduce op ");
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void streamChunksWhoseDtypesDisagreeFailOnEveryRank() {
        // float32 and int32 have one width: before, rank 1's int bits were summed as floats
        ClusterTesting.withCluster(3, options("agree-stream-dtype"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor a = ClusterTesting.filled(DType.FLOAT32, 4, 1);
                Tensor b = ClusterTesting.filled(r == 1 ? DType.INT32 : DType.FLOAT32, 4, 1);
                return g.allReduceStream(reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, a),
                                new io.reactivecollectives.core.Chunk(1, 4, b)), ReduceOp.SUM, 1)
                        .then().doFinally(s -> {
                            a.release();
                            b.release();
                        });
            });
            everyRankFailsWithMismatch(res, "chunk 1");
            for (int r = 0; r < 3; r++) {
                String m = ((Throwable) res.get(r)).getMessage();
                assertTrue(m.contains("int32 on rank 1") && m.contains("float32 on rank"), "rank " + r + ": " + m);
            }
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void aStreamOfMixedDtypesThatEveryRankAgreesOnIsReduced() {
        ClusterTesting.withCluster(2, options("agree-stream-mixed"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor a = ClusterTesting.filled(DType.FLOAT32, 4, r + 1);
                Tensor b = ClusterTesting.filled(DType.INT64, 3, r + 2);
                return g.allReduceStream(reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, a),
                                new io.reactivecollectives.core.Chunk(1, 4, b)), ReduceOp.SUM, 2)
                        .then(Mono.fromCallable(() -> java.util.Arrays.toString(a.toFloatArray())
                                + java.util.Arrays.toString(b.toLongArray())))
                        .doFinally(s -> {
                            a.release();
                            b.release();
                        });
            });
            for (int r = 0; r < 2; r++) {
                assertEquals("[3.0, 3.0, 3.0, 3.0][5, 5, 5]", res.get(r), "rank " + r);
            }
            return null;
        });
    }

    @Test
    void aStreamWhoseSourceFailsOnOneRankFailsOnEveryRank() {
        ClusterTesting.withCluster(3, options("agree-stream-error"), cluster -> {
            List<Object> res = outcomes(cluster, (g, r) -> {
                Tensor a = ClusterTesting.filled(DType.FLOAT32, 4, 1);
                Tensor b = ClusterTesting.filled(DType.FLOAT32, 4, 1);
                reactor.core.publisher.Flux<io.reactivecollectives.core.Chunk> source = r == 0
                        ? reactor.core.publisher.Flux.concat(reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, a)),
                                reactor.core.publisher.Flux.error(new IllegalStateException("boom")))
                        : reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, a),
                                new io.reactivecollectives.core.Chunk(1, 4, b));
                return g.allReduceStream(source, ReduceOp.SUM, 2).then().doFinally(s -> {
                    a.release();
                    b.release();
                });
            });
            for (int r = 0; r < 3; r++) {
                assertInstanceOf(io.reactivecollectives.core.CollectiveException.class, res.get(r), "rank " + r + ": " + res.get(r));
                assertTrue(((Throwable) res.get(r)).getMessage().contains("boom"), "rank " + r + ": " + res.get(r));
            }
            allReduceIsCorrect(cluster);
            return null;
        });
    }

    @Test
    void aStreamWithFewerChunksOnOneRankFailsOnEveryRankAtOnce() {
        // before: rank 1 completed after its one chunk, the others waited for its chunk 1 until their timeout
        ClusterTesting.withCluster(3, options("agree-stream-count"), cluster -> {
            for (int fewer : new int[] {1, 0}) {     // one chunk short, and an empty stream
                List<Object> res = outcomes(cluster, (g, r) -> {
                    Tensor a = ClusterTesting.filled(DType.FLOAT32, 4, 1);
                    Tensor b = ClusterTesting.filled(DType.FLOAT32, 4, 1);
                    List<io.reactivecollectives.core.Chunk> chunks = List.of(new io.reactivecollectives.core.Chunk(0, 0, a),
                            new io.reactivecollectives.core.Chunk(1, 4, b));
                    return g.allReduceStream(reactor.core.publisher.Flux.fromIterable(r == 1 ? chunks.subList(0, fewer) : chunks),
                                    ReduceOp.SUM, 2)
                            .then().doFinally(s -> {
                                a.release();
                                b.release();
                            });
                });
                everyRankFailsWithMismatch(res, "stream ended after " + fewer + " chunk");
                for (int r = 0; r < 3; r++) {
                    assertTrue(((Throwable) res.get(r)).getMessage().contains("on rank 1"), "rank " + r + ": " + res.get(r));
                }
                allReduceIsCorrect(cluster);
            }
            return null;
        });
    }

    @Test
    void streamsOfEqualLengthsIncludingEmptyOnesComplete() {
        ClusterTesting.withCluster(2, options("agree-stream-lengths"), cluster -> {
            List<Object> empty = outcomes(cluster, (g, r) -> g.allReduceStream(reactor.core.publisher.Flux.empty(), ReduceOp.SUM, 1)
                    .count());
            assertEquals(List.of(0L, 0L), empty);
            List<Object> three = outcomes(cluster, (g, r) -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 3, r + 1);
                return g.allReduceStream(reactor.core.publisher.Flux.range(0, 3)
                                .map(i -> new io.reactivecollectives.core.Chunk(i, i, t.narrow(i, 1))), ReduceOp.SUM, 2)
                        .count().map(n -> n + " " + java.util.Arrays.toString(t.toFloatArray())).doFinally(s -> t.release());
            });
            assertEquals(List.of("3 [3.0, 3.0, 3.0]", "3 [3.0, 3.0, 3.0]"), three);
            // indices that skip some, the same on every rank: the end is tagged after the highest, not after the count
            for (int round = 0; round < 5; round++) {
                List<Object> skipping = outcomes(cluster, (g, r) -> {
                    Tensor t = ClusterTesting.filled(DType.FLOAT32, 2, r + 1);
                    return g.allReduceStream(reactor.core.publisher.Flux.just(new io.reactivecollectives.core.Chunk(0, 0, t.narrow(0, 1)),
                                    new io.reactivecollectives.core.Chunk(2, 1, t.narrow(1, 1))), ReduceOp.SUM, 2)
                            .count().map(n -> n + " " + java.util.Arrays.toString(t.toFloatArray())).doFinally(s -> t.release());
                });
                assertEquals(List.of("2 [3.0, 3.0]", "2 [3.0, 3.0]"), skipping);
            }
            return null;
        });
    }
}
