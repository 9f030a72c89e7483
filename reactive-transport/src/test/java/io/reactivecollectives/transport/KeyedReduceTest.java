package io.reactivecollectives.transport;

import com.fasterxml.jackson.core.type.TypeReference;
import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.KeyedAlgorithm;
import io.reactivecollectives.core.KeyedDoubles;
import io.reactivecollectives.core.ObjectOptions;
import io.reactivecollectives.core.ReduceOp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keyed-map all-reduce on 4 real ranks: both algorithms and the automatic choice give, on every
 * rank, exactly the map one process gets by combining the ranks' maps in rank order; bad input
 * fails on every rank, naming the rank, and the group goes on.
 */
class KeyedReduceTest {

    private static final int WORLD = 4;
    private static final Duration PROMPT = Duration.ofSeconds(10);
    private static final Codec<String> STRINGS = Codec.json(String.class);
    private static final Codec<Long> LONGS = Codec.json(Long.class);
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(WORLD, GroupOptions.defaults().withGroupId("keyed")).block(ClusterTesting.TIMEOUT);
    }

    @AfterAll
    static void close() {
        cluster.close();
    }

    /** Rank r's sparse features: {@code shared} keys common to all ranks, the rest its own; values in eighths (sums exact). */
    private static KeyedDoubles features(int rank, int count, int shared, long seed) {
        Random rnd = new Random(seed * 31 + rank);
        long[] keys = new long[count];
        double[] values = new double[count];
        for (int i = 0; i < count; i++) {
            keys[i] = i < shared ? i * 7919L : (long) (rank + 1) << 40 | i;
            values[i] = (rnd.nextInt(64) - 32) / 8.0;
        }
        return KeyedDoubles.of(keys, values);
    }

    private static Map<Long, Double> reference(List<KeyedDoubles> all, ReduceOp op) {
        Map<Long, Double> m = new TreeMap<>();
        for (KeyedDoubles k : all) {
            for (int i = 0; i < k.size(); i++) {
                m.merge(k.key(i), k.value(i), (a, b) -> switch (op.kind()) {
                    case SUM -> a + b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                    default -> a * b;
                });
            }
        }
        return m;
    }

    @Test
    void keyedDoublesMatchOneProcessForEveryAlgorithmAndOp() {
        for (KeyedAlgorithm a : KeyedAlgorithm.values()) {
            for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT)) {
                for (int shared : new int[]{0, 300, 1000}) {
                    List<KeyedDoubles> inputs = new ArrayList<>();
                    for (int r = 0; r < WORLD; r++) {
                        inputs.add(features(r, 1000 + 37 * r, Math.min(shared, 1000), shared + 17));
                    }
                    Map<Long, Double> want = reference(inputs, op);
                    ObjectOptions o = ObjectOptions.DEFAULT.withKeyed(a);
                    List<KeyedDoubles> got = cluster.run(g -> g.allReduceMap(inputs.get(g.rank()), op, o))
                            .block(ClusterTesting.TIMEOUT);
                    for (int r = 0; r < WORLD; r++) {
                        assertEquals(want, got.get(r).toMap(), a + " " + op + " shared " + shared + " rank " + r);
                        assertEquals(got.get(0), got.get(r), "identical on every rank");
                    }
                }
            }
        }
    }

    @Test
    void emptyAndOneSidedMapsReduce() {
        List<KeyedDoubles> got = cluster.run(g -> g.allReduceMap(g.rank() == 2
                ? KeyedDoubles.of(new long[]{5, -3}, new double[]{1.5, 2}) : KeyedDoubles.empty(), ReduceOp.SUM))
                .block(ClusterTesting.TIMEOUT);
        got.forEach(k -> assertEquals(Map.of(-3L, 2.0, 5L, 1.5), k.toMap()));
        List<KeyedDoubles> none = cluster.run(g -> g.allReduceMap(KeyedDoubles.empty(), ReduceOp.MAX))
                .block(ClusterTesting.TIMEOUT);
        none.forEach(k -> assertEquals(0, k.size()));
    }

    @Test
    void genericMapsMatchOneProcessWithTheSameOrderOnEveryRank() {
        for (KeyedAlgorithm a : KeyedAlgorithm.values()) {
            List<Map<String, Long>> inputs = new ArrayList<>();
            for (int r = 0; r < WORLD; r++) {
                Map<String, Long> m = new HashMap<>();
                for (int i = 0; i < 500; i++) {
                    m.put(i % 3 == 0 ? "common-" + i : "rank" + r + "-" + i, (long) i * (r + 1));
                }
                m.put("ünïcödé 🎉", (long) r);
                inputs.add(m);
            }
            Map<String, Long> want = new HashMap<>();
            inputs.forEach(m -> m.forEach((k, v) -> want.merge(k, v, Long::sum)));
            ObjectOptions o = ObjectOptions.DEFAULT.withKeyed(a);
            StepVerifier.create(cluster.run(g -> g.allReduceMap(inputs.get(g.rank()), Long::sum, STRINGS, LONGS, o)))
                    .assertNext(got -> {
                        for (int r = 0; r < WORLD; r++) {
                            assertEquals(want, got.get(r), a + " rank " + r);
                            assertEquals(new ArrayList<>(got.get(0).keySet()), new ArrayList<>(got.get(r).keySet()),
                                    a + ": the same iteration order on every rank");
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        }
    }

    @Test
    void aCombineFunctionOfAnyTypeCombinesInRankOrder() {
        Codec<List<Integer>> lists = Codec.json(new TypeReference<>() { });
        List<Map<String, List<Integer>>> got = cluster.run(g -> g.allReduceMap(Map.of("k", List.of(g.rank())),
                (a, b) -> {
                    List<Integer> l = new ArrayList<>(a);
                    l.addAll(b);
                    return l;
                }, STRINGS, lists, ObjectOptions.DEFAULT.withKeyed(KeyedAlgorithm.PARTITIONED))).block(ClusterTesting.TIMEOUT);
        got.forEach(m -> assertEquals(Map.of("k", List.of(0, 1, 2, 3)), m));
    }

    private static List<Object> outcomes(BiFunction<io.reactivecollectives.core.ProcessGroup, Integer, Mono<?>> body) {
        long t0 = System.nanoTime();
        List<Object> res = cluster.run(g -> body.apply(g, g.rank()).map(v -> (Object) v).onErrorResume(e -> Mono.just(e)))
                .block(ClusterTesting.TIMEOUT);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < PROMPT.toMillis(), "took " + ms + " ms: " + res);
        return res;
    }

    private static void everyRankFails(List<Object> res, Class<? extends Throwable> type, String... says) {
        for (int r = 0; r < res.size(); r++) {
            Object o = res.get(r);
            assertInstanceOf(type, o, "rank " + r + ": " + o);
            String msg = ((Throwable) o).getMessage();
            assertTrue(msg.startsWith("allReduceMap[seq="), msg);
            for (String s : says) {
                assertTrue(msg.contains(s), "rank " + r + ": '" + msg + "' should say '" + s + "'");
            }
        }
    }

    private void nextCallWorks() {
        List<KeyedDoubles> got = cluster.run(g -> g.allReduceMap(KeyedDoubles.of(new long[]{1}, new double[]{g.rank()}),
                ReduceOp.SUM)).block(ClusterTesting.TIMEOUT);
        got.forEach(k -> assertEquals(Map.of(1L, 6.0), k.toMap()));
    }

    @Test
    void anUnsupportedOpOnOneRankFailsEveryRankNamingIt() {
        everyRankFails(outcomes((g, r) -> g.allReduceMap(KeyedDoubles.of(new long[]{1}, new double[]{1}),
                        r == 1 ? ReduceOp.AVG : ReduceOp.SUM)),
                CollectiveMismatchException.class, "doubles<AVG>", "doubles<SUM>");
        nextCallWorks();
        everyRankFails(outcomes((g, r) -> g.allReduceMap(KeyedDoubles.of(new long[]{1}, new double[]{1}), ReduceOp.AVG)),
                CollectiveException.class, "rank 0", "is not one of SUM, PRODUCT, MIN, MAX");
        nextCallWorks();
    }

    @Test
    void aNullValueOrMissingArgumentOnOneRankFailsEveryRankNamingIt() {
        Map<String, Long> bad = new HashMap<>();
        bad.put("x", null);
        everyRankFails(outcomes((g, r) -> g.allReduceMap(r == 2 ? bad : Map.of("x", 1L), Long::sum, STRINGS, LONGS)),
                CollectiveException.class, "rank 2", "a null value for key x");
        nextCallWorks();
        everyRankFails(outcomes((g, r) -> g.allReduceMap(r == 3 ? null : Map.of("x", 1L), Long::sum, STRINGS, LONGS)),
                CollectiveException.class, "rank 3", "the map is null");
        nextCallWorks();
    }

    @Test
    void keyCodecsThatDifferFailEveryRank() {
        Codec<Object> objects = Codec.json(Object.class);
        everyRankFails(outcomes((g, r) -> r == 0
                        ? g.allReduceMap(Map.<Object, Long>of("x", 1L), Long::sum, objects, LONGS)
                        : g.allReduceMap(Map.of("x", 1L), Long::sum, STRINGS, LONGS)),
                CollectiveMismatchException.class, "json:java.lang.Object", "json:java.lang.String");
        nextCallWorks();
    }

    @Test
    void anOwnerWhoseCombineFailsFailsEveryRank() {
        ObjectOptions partitioned = ObjectOptions.DEFAULT.withKeyed(KeyedAlgorithm.PARTITIONED);
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < 50; i++) {
            m.put("k" + i, (long) i);
        }
        everyRankFails(outcomes((g, r) -> g.allReduceMap(m, (a, b) -> {
                    if (a == 13L) {
                        throw new ArithmeticException("no 13s");
                    }
                    return a + b;
                }, STRINGS, LONGS, partitioned)),
                CollectiveException.class, "could not encode", "no 13s");
        nextCallWorks();
    }

    @Test
    void entriesOverTheLimitFailEveryRankBeforeTheyTravel() {
        KeyedDoubles big = features(0, 10_000, 0, 1);
        everyRankFails(outcomes((g, r) -> g.allReduceMap(big, ReduceOp.SUM, ObjectOptions.DEFAULT.withMaxBytes(100_000))),
                CollectiveException.class, "over the limit of 100000");
        nextCallWorks();
    }

    @Test
    void limitsThatDifferBetweenRanksFailEveryRankAtTheSmallest() {
        // before: only rank 0 (the smaller limit) failed; the others went on to the all-to-all and timed out
        KeyedDoubles big = features(0, 5_000, 0, 1);
        everyRankFails(outcomes((g, r) -> g.allReduceMap(big, ReduceOp.SUM,
                        r == 0 ? ObjectOptions.DEFAULT.withMaxBytes(50_000) : ObjectOptions.DEFAULT)),
                CollectiveException.class, "over the limit of 50000", "the smallest any rank set");
        nextCallWorks();
    }

    @Test
    void keyedAlgorithmsThatDifferBetweenRanksFailEveryRankNamingThem() {
        everyRankFails(outcomes((g, r) -> g.allReduceMap(features(r, 50, 10, 3), ReduceOp.SUM,
                        ObjectOptions.DEFAULT.withKeyed(r == 2 ? KeyedAlgorithm.GATHER_MERGE : KeyedAlgorithm.PARTITIONED))),
                CollectiveMismatchException.class, "PARTITIONED on rank 0", "GATHER_MERGE on rank 2");
        nextCallWorks();
    }

    @Test
    void aCombineThatReturnsNullOrThrowsFailsEveryRankNamingTheCombine() {
        for (KeyedAlgorithm a : new KeyedAlgorithm[]{KeyedAlgorithm.GATHER_MERGE, KeyedAlgorithm.PARTITIONED}) {
            ObjectOptions o = ObjectOptions.DEFAULT.withKeyed(a);
            // before: the key was dropped (Map.merge's null) and a later rank's value came back alone; and
            // (the audit) partitioned, the owner's failure read "rank 0 could not encode its object: ..."
            List<Object> nulls = outcomes((g, r) -> g.allReduceMap(Map.of("a", 1L + r, "b", 10L),
                    (x, y) -> x == 1L ? null : x + y, STRINGS, LONGS, o));
            everyRankFails(nulls, CollectiveException.class, "combine function returned null for key a");
            nulls.forEach(t -> assertFalse(((Throwable) t).getMessage().contains("could not encode its object"), a + ": " + t));
            nextCallWorks();
            everyRankFails(outcomes((g, r) -> g.allReduceMap(Map.of("a", 1L, "b", 2L), (x, y) -> Math.addExact(x, Long.MAX_VALUE),
                            STRINGS, LONGS, o)),
                    CollectiveException.class, "combine function failed for key", "ArithmeticException");
            nextCallWorks();
        }
    }

    @Test
    void equalKeysThatEncodeDifferentlyOnSomeRankFailInsteadOfOverwriting() {
        // one id, other bytes for equal keys: partitioned sends them to different owners
        Codec<Object> plain = Codec.json(Object.class);
        com.fasterxml.jackson.databind.ObjectMapper indenting = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        Codec<Object> pretty = Codec.json(indenting, indenting.constructType(Object.class));
        Map<Object, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            m.put(List.of(i, i), 1L);
        }
        List<Object> res = outcomes((g, r) -> g.allReduceMap(m, Long::sum, r == 1 ? pretty : plain, LONGS,
                ObjectOptions.DEFAULT.withKeyed(KeyedAlgorithm.PARTITIONED)));
        everyRankFails(res, CollectiveException.class, "came from two owners", "equal keys must encode to equal bytes");
        nextCallWorks();
    }
}
