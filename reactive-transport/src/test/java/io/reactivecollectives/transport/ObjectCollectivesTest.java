package io.reactivecollectives.transport;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.ObjectOptions;
import io.reactivecollectives.core.ProcessGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object collectives of {@link ProcessGroup} on three real ranks ({@link LocalCluster}, one
 * for the class, a collective timeout of 60 s): objects that take many rounds arrive byte for byte
 * for every op and root; ranks that disagree (op, root, codec), a rank whose codec cannot encode,
 * a limit exceeded and a wrong argument fail the call on every rank, promptly, naming the rank to
 * blame, with nothing delivered, and the group's next object call is right again; a decode failure
 * names the sender; null objects; two calls subscribed at once on every rank.
 */
class ObjectCollectivesTest {

    private static final int WORLD = 3;
    /** The collective timeout: a failure that waited it out would be far over {@link #PROMPT}. */
    private static final Duration GROUP_TIMEOUT = Duration.ofSeconds(60);
    /** Failures must come well before the group's timeout. */
    private static final Duration PROMPT = Duration.ofSeconds(10);

    private static final Codec<byte[]> BYTES = Codec.bytes();
    /** 64 KiB rounds (the smallest): a 3 MiB object takes about 50 of them. */
    private static final ObjectOptions ROUNDS = ObjectOptions.DEFAULT.withRoundBytes(64 << 10);
    /** 0, 1, about 200 KiB, about 3 MiB + 17 bytes. */
    private static final int[] LENGTHS = {0, 1, (200 << 10) + 3, (3 << 20) + 17};

    /** What a rank's Mono that completed empty gives in {@link #outcomes}. */
    private static final Object EMPTY = new Object() {
        @Override
        public String toString() {
            return "(empty)";
        }
    };

    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(WORLD, GroupOptions.defaults().withGroupId("object-collectives")
                .withTimeout(GROUP_TIMEOUT)).block(ClusterTesting.TIMEOUT);
    }

    @AfterAll
    static void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ------------------------------------------------------------------ 1. multi-round correctness

    @Test
    void allGatherObjectOfBytesInManyRoundsIsExactOnEveryRank() {
        for (int s = 0; s < WORLD; s++) {
            int shift = s;
            byte[][] objects = objects(shift, 100 + shift);
            StepVerifier.create(cluster.run(g -> g.allGatherObject(objects[g.rank()], BYTES, ROUNDS)))
                    .assertNext(got -> {
                        assertEquals(WORLD, got.size());
                        for (int r = 0; r < WORLD; r++) {
                            assertEquals(WORLD, got.get(r).size(), "rank " + r);
                            for (int q = 0; q < WORLD; q++) {
                                assertArrayEquals(objects[q], got.get(r).get(q), "shift " + shift + ": rank " + r
                                        + "'s copy of rank " + q + "'s " + objects[q].length + " bytes");
                            }
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        }
    }

    @Test
    void broadcastObjectOfBytesInManyRoundsIsExactOnEveryRankFromEveryRoot() {
        for (int root = 0; root < WORLD; root++) {
            for (int length : LENGTHS) {
                int from = root;
                byte[] object = random(length, 1000L * root + length);
                StepVerifier.create(cluster.run(g -> g.broadcastObject(g.rank() == from ? object : null, from, BYTES, ROUNDS)))
                        .assertNext(got -> {
                            assertEquals(WORLD, got.size(), "every rank emits the root's object");
                            for (int r = 0; r < WORLD; r++) {
                                assertArrayEquals(object, got.get(r), "root " + from + ", " + length + " bytes, rank " + r);
                            }
                        })
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
            }
        }
    }

    @Test
    void gatherObjectOfBytesInManyRoundsIsExactOnEveryRoot() {
        for (int root = 0; root < WORLD; root++) {
            int to = root;
            byte[][] objects = objects(root, 200 + root);
            StepVerifier.create(cluster.run(g -> g.gatherObject(objects[g.rank()], to, BYTES, ROUNDS)))
                    .assertNext(got -> {
                        for (int r = 0; r < WORLD; r++) {
                            if (r != to) {
                                assertTrue(got.get(r).isEmpty(), "root " + to + ": rank " + r + " emits an empty list");
                                continue;
                            }
                            assertEquals(WORLD, got.get(r).size());
                            for (int q = 0; q < WORLD; q++) {
                                assertArrayEquals(objects[q], got.get(r).get(q), "root " + to + ": rank " + q
                                        + "'s " + objects[q].length + " bytes");
                            }
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        }
    }

    @Test
    void scatterObjectOfBytesInManyRoundsIsExactOnEveryRankFromEveryRoot() {
        for (int root = 0; root < WORLD; root++) {
            int from = root;
            List<byte[]> pieces = Arrays.asList(objects(root, 300 + root));
            StepVerifier.create(cluster.run(g -> g.scatterObject(g.rank() == from ? pieces : null, from, BYTES, ROUNDS)))
                    .assertNext(got -> {
                        assertEquals(WORLD, got.size());
                        for (int r = 0; r < WORLD; r++) {
                            assertArrayEquals(pieces.get(r), got.get(r), "root " + from + ": rank " + r + "'s piece of "
                                    + pieces.get(r).length + " bytes");
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
        }
    }

    @Test
    void allGatherObjectOfTwoMegabytesOfJsonWithTheDefaultOptions() throws IOException {
        Codec<Map<String, Object>> json = Codec.json(new TypeReference<Map<String, Object>>() { });
        List<Map<String, Object>> maps = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            maps.add(bigMap(r));
        }
        int encoded = new ObjectMapper().writeValueAsBytes(maps.get(0)).length;
        assertTrue(encoded > 1_900_000 && encoded < 2_500_000, "about 2 MB of JSON: " + encoded);
        StepVerifier.create(cluster.run(g -> g.allGatherObject(maps.get(g.rank()), json)))
                .assertNext(got -> {
                    for (int r = 0; r < WORLD; r++) {
                        assertEquals(maps, got.get(r), "rank " + r);
                    }
                })
                .expectComplete()
                .verify(ClusterTesting.TIMEOUT);
    }

    // ------------------------------------------------------------------ 2. mismatches

    @Test
    void codecsThatDifferFailOnEveryRankNamingBothCodecs() {
        Codec<Object> objectCodec = Codec.json(Object.class);
        @SuppressWarnings("rawtypes")
        Codec<Map> mapCodec = Codec.json(Map.class);
        List<Object> res = outcomes(PROMPT, (g, r) -> r == 0
                ? g.allGatherObject((Object) Map.of("rank", r), objectCodec)
                : g.allGatherObject((Map) Map.of("rank", r), mapCodec));
        everyRankFails(res, CollectiveMismatchException.class, r -> "allGatherObject",
                "'" + objectCodec.id() + "'", "'" + mapCodec.id() + "'");
        nextCallWorks();
    }

    @Test
    void opsThatDifferFailOnEveryRank() {
        Codec<String> json = Codec.json(String.class);
        List<Object> res = outcomes(PROMPT, (g, r) -> r == 0
                ? g.allGatherObject("rank " + r, json)
                : g.broadcastObject("rank " + r, 0, json));
        everyRankFails(res, CollectiveMismatchException.class, r -> r == 0 ? "allGatherObject" : "broadcastObject",
                "ops allGatherObject vs broadcastObject");
        nextCallWorks();
    }

    @Test
    void rootsThatDifferFailOnEveryRank() {
        Codec<String> json = Codec.json(String.class);
        // each rank names itself the root
        List<Object> res = outcomes(PROMPT, (g, r) -> g.broadcastObject("from " + r, r, json));
        everyRankFails(res, CollectiveMismatchException.class, r -> "broadcastObject", "roots 0 vs 1");
        nextCallWorks();
    }

    // ------------------------------------------------------------------ 3. encode failures

    @Test
    void anEncodeFailureOnOneRankFailsEveryRankAndDeliversNothing() {
        TaggedCodec codec = new TaggedCodec(1, -1);
        byte[][] objects = tagged(150 << 10);
        List<Object> res = outcomes(PROMPT, (g, r) -> g.allGatherObject(objects[r], codec, ROUNDS));
        everyRankFails(res, CollectiveException.class, r -> "allGatherObject", "rank 1 could not encode its object",
                "objects tagged 1 cannot be encoded");
        for (Object o : res) {
            assertEquals(1, ((CollectiveException) o).peer(), "rank 1 is the peer to blame: " + o);
        }
        everyRankFails(outcomes(PROMPT, (g, r) -> g.gatherObject(objects[r], 0, codec, ROUNDS)),
                CollectiveException.class, r -> "gatherObject", "rank 1 could not encode its object");
        everyRankFails(outcomes(PROMPT, (g, r) -> g.broadcastObject(objects[r], 1, codec, ROUNDS)),
                CollectiveException.class, r -> "broadcastObject", "rank 1 could not encode its object");
        // the root (rank 1) cannot encode the piece tagged 1 of its list
        List<byte[]> pieces = Arrays.asList(objects);
        everyRankFails(outcomes(PROMPT, (g, r) -> g.scatterObject(r == 1 ? pieces : null, 1, codec, ROUNDS)),
                CollectiveException.class, r -> "scatterObject", "rank 1 could not encode its object", "object 1");
        assertEquals(0, codec.decodes.get(), "no rank decoded any object of a call that failed to encode");
        nextCallWorks();
    }

    @Test
    void aCodecThatThrowsAnErrorOrWhoseIdFailsOnOneRankFailsEveryRankPromptly() {
        // an Error (an assertion, a class missing on one node), not an exception: before, the peers waited out the timeout
        Codec<byte[]> asserting = new Codec<>() {
            @Override
            public String id() {
                return "test:asserting";
            }

            @Override
            public void encode(byte[] value, OutputStream out) throws IOException {
                if (value[0] == 1) {
                    throw new AssertionError("not on rank " + value[0]);
                }
                out.write(value);
            }

            @Override
            public byte[] decode(InputStream in) throws IOException {
                return in.readAllBytes();
            }
        };
        everyRankFails(outcomes(PROMPT, (g, r) -> g.allGatherObject(new byte[]{(byte) (int) r}, asserting)),
                CollectiveException.class, r -> "allGatherObject", "rank 1 could not encode its object", "not on rank 1");
        nextCallWorks();
        Codec<byte[]> noId = new Codec<>() {
            @Override
            public String id() {
                throw new IllegalStateException("no id here");
            }

            @Override
            public void encode(byte[] value, OutputStream out) throws IOException {
                out.write(value);
            }

            @Override
            public byte[] decode(InputStream in) throws IOException {
                return in.readAllBytes();
            }
        };
        everyRankFails(outcomes(PROMPT, (g, r) -> g.allGatherObject(new byte[]{(byte) (int) r}, r == 2 ? noId : BYTES)),
                CollectiveException.class, r -> "allGatherObject", "rank 2 was called with a wrong argument", "no id here");
        nextCallWorks();
    }

    @Test
    void aNullCodecOnOneRankIsNamedAsSuchOnEveryRank() {
        // before: "codecs 'bytes' vs ''", the rank's own reason hidden behind the difference it made
        everyRankFails(outcomes(PROMPT, (g, r) -> g.allGatherObject(new byte[]{1}, r == 1 ? null : BYTES)),
                CollectiveException.class, r -> "allGatherObject", "rank 1 was called with a wrong argument", "the codec is null");
        nextCallWorks();
    }

    // ------------------------------------------------------------------ 4. limits

    @Test
    void aRankWhoseObjectIsOverItsOwnLimitFailsEveryRankNamingIt() {
        byte[][] objects = {random(100 << 10, 41), random(100 << 10, 42), random(100 << 10, 43)};
        List<Object> res = outcomes(PROMPT, (g, r) -> g.allGatherObject(objects[r], BYTES,
                r == 2 ? ROUNDS.withMaxBytes(50 << 10) : ROUNDS));
        everyRankFails(res, CollectiveException.class, r -> "allGatherObject",
                "rank 2 has more than its limit of " + (50 << 10) + " bytes");
        for (Object o : res) {
            assertEquals(2, ((CollectiveException) o).peer(), String.valueOf(o));
        }
        nextCallWorks();
    }

    @Test
    void objectsOverTheLimitTogetherFailEveryRankSayingWhatTheCallNeeds() {
        int[] lengths = {100 << 10, 110 << 10, 120 << 10};
        long sum = lengths[0] + lengths[1] + lengths[2];
        long limit = 250 << 10;   // more than any one object, less than all three
        ObjectOptions limited = ROUNDS.withMaxBytes(limit);
        byte[][] objects = new byte[WORLD][];
        for (int r = 0; r < WORLD; r++) {
            objects[r] = random(lengths[r], 50 + r);
        }
        everyRankFails(outcomes(PROMPT, (g, r) -> g.allGatherObject(objects[r], BYTES, limited)),
                CollectiveException.class, r -> "allGatherObject",
                "needs " + sum + " bytes", "over the limit of " + limit);
        everyRankFails(outcomes(PROMPT, (g, r) -> g.gatherObject(objects[r], 1, BYTES, limited)),
                CollectiveException.class, r -> "gatherObject",
                "needs " + sum + " bytes", "over the limit of " + limit);
        // under the same limit, one object alone goes through
        StepVerifier.create(cluster.run(g -> g.broadcastObject(g.rank() == 2 ? objects[2] : null, 2, BYTES, limited)))
                .assertNext(got -> got.forEach(b -> assertArrayEquals(objects[2], b)))
                .expectComplete()
                .verify(ClusterTesting.TIMEOUT);
        nextCallWorks();
    }

    // ------------------------------------------------------------------ 5. decode failures

    @Test
    void aDecodeFailureNamesTheRankTheBytesCameFrom() {
        TaggedCodec codec = new TaggedCodec(-1, 1);
        byte[][] objects = tagged(150 << 10);
        List<Object> res = outcomes(PROMPT, (g, r) -> g.allGatherObject(objects[r], codec, ROUNDS));
        everyRankFails(res, CollectiveException.class, r -> "allGatherObject", "from rank 1");
        for (Object o : res) {
            assertEquals(1, ((CollectiveException) o).peer(), String.valueOf(o));
            assertInstanceOf(IOException.class, ((Throwable) o).getCause(), "the codec's exception is the cause");
        }
        // a broadcast from rank 1: the receivers fail naming it, the root emits its own object
        res = outcomes(PROMPT, (g, r) -> g.broadcastObject(r == 1 ? objects[1] : null, 1, codec, ROUNDS));
        assertSame(objects[1], res.get(1), "the root emits the object it passed");
        for (int r : new int[]{0, 2}) {
            assertInstanceOf(CollectiveException.class, res.get(r), "rank " + r + ": " + res.get(r));
            String m = ((Throwable) res.get(r)).getMessage();
            assertTrue(m.startsWith("broadcastObject[seq=") && m.contains(" rank " + r + ": ") && m.contains("from rank 1"), m);
        }
        nextCallWorks();
    }

    // ------------------------------------------------------------------ 6. arguments and nulls

    @Test
    void aScatterListOfTheWrongSizeFailsEveryRankAndTheNextScatterWorks() {
        Codec<String> json = Codec.json(String.class);
        List<Object> res = outcomes(PROMPT, (g, r) -> g.scatterObject(r == 0 ? List.of("a", "b") : null, 0, json));
        everyRankFails(res, CollectiveException.class, r -> "scatterObject",
                "rank 0 was called with a wrong argument", "the root's list holds 2 objects for a world of 3");
        assertEquals(List.of("a", "b", "c"), outcomes(PROMPT, (g, r) ->
                g.scatterObject(r == 0 ? List.of("a", "b", "c") : null, 0, json)));
        nextCallWorks();
    }

    @Test
    void aRootOutOfRangeFailsTheCall() {
        Codec<String> json = Codec.json(String.class);
        everyRankFails(outcomes(PROMPT, (g, r) -> g.broadcastObject("x", 7, json)),
                CollectiveException.class, r -> "broadcastObject", "root 7");
        everyRankFails(outcomes(PROMPT, (g, r) -> g.gatherObject("x", -1, json)),
                CollectiveException.class, r -> "gatherObject", "root -1");
        nextCallWorks();
    }

    @Test
    void nullOptionsOnOneRankFailEveryRankPromptly() {
        Codec<String> json = Codec.json(String.class);
        everyRankFails(outcomes(PROMPT, (g, r) -> g.allGatherObject("x", json, r == 1 ? null : ObjectOptions.DEFAULT)),
                CollectiveException.class, r -> "allGatherObject", "rank 1 was called with a wrong argument", "the options are null");
        nextCallWorks();
    }

    /**
     * A root out of range on one rank only: that rank cannot take part, and the others must not
     * wait for it until the timeout (its own cluster, so that a hang leaves the others' alone).
     */
    @Test
    void aRootOutOfRangeOnOneRankFailsEveryRankPromptly() {
        ClusterTesting.withCluster(WORLD, GroupOptions.defaults().withGroupId("object-bad-root").withTimeout(GROUP_TIMEOUT), c -> {
            Codec<String> json = Codec.json(String.class);
            List<Object> res = outcomes(c, PROMPT, (g, r) -> g.broadcastObject("x", r == 0 ? 7 : 0, json));
            everyRankFails(res, CollectiveMismatchException.class, r -> "broadcastObject", "roots 7 vs 0");
            nextCallWorks(c);
            return null;
        });
    }

    @Test
    void nullObjects() {
        Codec<Object> json = Codec.json(Object.class);
        List<Object> gathered = outcomes(PROMPT, (g, r) -> g.allGatherObject(r == 1 ? null : (Object) ("o" + r), json));
        for (int r = 0; r < WORLD; r++) {
            assertEquals(Arrays.asList("o0", null, "o2"), gathered.get(r), "rank " + r);
        }
        List<Object> broadcast = outcomes(PROMPT, (g, r) -> g.broadcastObject(null, 0, json));
        assertEquals(List.of(EMPTY, EMPTY, EMPTY), broadcast, "a null object completes empty on every rank");
        List<Object> scattered = outcomes(PROMPT, (g, r) ->
                g.scatterObject(r == 2 ? Arrays.asList((Object) "s0", null, "s2") : null, 2, json));
        assertEquals(List.of("s0", EMPTY, "s2"), scattered, "a null piece completes empty");
        List<Object> gatheredToRoot = outcomes(PROMPT, (g, r) -> g.gatherObject(r == 0 ? null : (Object) r, 0, json));
        assertEquals(Arrays.asList(null, 1, 2), gatheredToRoot.get(0));
        assertEquals(List.of(), gatheredToRoot.get(1));
        nextCallWorks();
    }

    // ------------------------------------------------------------------ 7. concurrent calls

    /**
     * Four calls subscribed at once on every rank ({@code Mono.zip}), each of several rounds: all
     * are right, and each rank's codec saw them one at a time (every encode and decode of call k
     * before any of call k + 1: the objects of call k start with the byte k).
     */
    @Test
    void callsSubscribedTogetherOnEveryRankRunOneAtATimeAndAreRight() {
        int len = 500 << 10;
        byte[][] a = new byte[WORLD][];
        byte[][] b = new byte[WORLD][];
        byte[][] d = new byte[WORLD][];
        List<LoggingCodec> codecs = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            a[r] = tag(random(len + r, 700 + r), 0);
            b[r] = tag(random(len - r * 1000, 800 + r), 1);
            d[r] = tag(random(len + 3 * r, 1000 + r), 3);
            codecs.add(new LoggingCodec());
        }
        byte[] c = tag(random(len + 5, 900), 2);
        StepVerifier.create(cluster.run(g -> {
                    Codec<byte[]> codec = codecs.get(g.rank());
                    return Mono.zip(
                            g.allGatherObject(a[g.rank()], codec, ROUNDS),
                            g.allGatherObject(b[g.rank()], codec, ROUNDS),
                            g.broadcastObject(g.rank() == 1 ? c : null, 1, codec, ROUNDS),
                            g.gatherObject(d[g.rank()], 2, codec, ROUNDS));
                }))
                .assertNext(got -> {
                    for (int r = 0; r < WORLD; r++) {
                        for (int q = 0; q < WORLD; q++) {
                            assertArrayEquals(a[q], got.get(r).getT1().get(q), "first all-gather, rank " + r + ", from " + q);
                            assertArrayEquals(b[q], got.get(r).getT2().get(q), "second all-gather, rank " + r + ", from " + q);
                        }
                        assertArrayEquals(c, got.get(r).getT3(), "broadcast, rank " + r);
                        assertEquals(r == 2 ? WORLD : 0, got.get(r).getT4().size(), "gather, rank " + r);
                    }
                    for (int q = 0; q < WORLD; q++) {
                        assertArrayEquals(d[q], got.get(2).getT4().get(q), "gather to 2, from " + q);
                    }
                })
                .expectComplete()
                .verify(ClusterTesting.TIMEOUT);
        for (int r = 0; r < WORLD; r++) {
            List<Integer> log = codecs.get(r).log;
            for (int i = 1; i < log.size(); i++) {
                assertTrue(log.get(i - 1) <= log.get(i), "rank " + r + " ran the calls one at a time, in order: " + log);
            }
            assertTrue(log.containsAll(List.of(0, 1, 2, 3)), "rank " + r + " ran every call: " + log);
        }
    }

    @Test
    void aCallCancelledWhileItWaitsForItsTurnFailsOnEveryOtherRankAndTheGroupStaysInStep() {
        // before: the cancelled call took its object number but none of its rounds; the peers waited it out,
        // then every later collective of the group was one sequence number apart
        Codec<String> json = Codec.json(String.class);
        reactor.core.publisher.Sinks.One<Object> firstOnRank0 = reactor.core.publisher.Sinks.one();
        cluster.group(0).allGatherObject("a0", json).subscribe(firstOnRank0::tryEmitValue, firstOnRank0::tryEmitValue);
        reactor.core.Disposable second = cluster.group(0).allGatherObject("b0", json).subscribe();
        second.dispose();   // it waits behind the first, which waits for the other ranks
        List<Object> res = outcomes(PROMPT, (g, r) -> r == 0 ? firstOnRank0.asMono()
                : g.allGatherObject("a" + r, json).then(g.allGatherObject("b" + r, json)));
        assertEquals(List.of("a0", "a1", "a2"), res.get(0), "rank 0's first call");
        for (int r = 1; r < WORLD; r++) {
            CollectiveException e = assertInstanceOf(CollectiveException.class, res.get(r), "rank " + r + ": " + res.get(r));
            assertEquals(0, e.peer(), e.getMessage());
            assertTrue(e.getMessage().startsWith("allGatherObject[seq=" + e.sequence() + "] rank " + r + ": rank 0 cancelled its call: "
                    + "cancelled on rank 0 while it waited for its turn"), e.getMessage());
        }
        tensorsAndObjectsPairUp();
    }

    @Test
    void aCallCancelledWhileItsRoundsRunEndsOnEveryOtherRankAndTheGroupStaysInStep() {
        // before: a peer already in the next round never heard of the cancel and waited it out,
        // then every later collective of the group was out of step
        byte[][] objects = objects(0, 77);
        for (long delayMs : new long[]{0, 5, 40}) {
            reactor.core.Disposable cancelled = Mono.delay(Duration.ofMillis(delayMs))
                    .then(cluster.group(1).allGatherObject(objects[1], BYTES, ROUNDS)).subscribe();
            List<Object> res = outcomes(PROMPT, (g, r) -> r == 1
                    ? Mono.delay(Duration.ofMillis(delayMs + 20)).doOnNext(x -> cancelled.dispose()).thenReturn("cancelled")
                    : g.allGatherObject(objects[r], BYTES, ROUNDS));
            for (int r = 0; r < WORLD; r += 2) {
                @SuppressWarnings("unchecked")
                List<byte[]> got = (List<byte[]>) res.get(r);
                for (int q = 0; q < WORLD; q++) {
                    assertArrayEquals(objects[q], got.get(q), "rank " + r + ", from " + q + " (cancelled after " + delayMs + " ms)");
                }
            }
            tensorsAndObjectsPairUp();
        }
    }

    @Test
    void aRoundThatTimesOutFailsTheObjectCallUnderItsOwnNameAndKind() {
        // before: allGatherInto[seq=0] rank 0: timed out ... (the caller called allGatherObject)
        LocalCluster c = LocalCluster.start(2, GroupOptions.defaults().withGroupId("object-round-timeout")
                .withTimeout(Duration.ofMillis(500))).block(ClusterTesting.TIMEOUT);
        try {
            Throwable e = Mono.defer(() -> c.group(0).allGatherObject("alone", Codec.json(String.class)))
                    .map(x -> (Object) x).onErrorResume(Mono::just).block(ClusterTesting.TIMEOUT) instanceof Throwable t ? t : null;
            io.reactivecollectives.core.CollectiveTimeoutException timeout =
                    assertInstanceOf(io.reactivecollectives.core.CollectiveTimeoutException.class, e, String.valueOf(e));
            assertEquals("allGatherObject", timeout.op(), timeout.getMessage());
            assertEquals(0, timeout.sequence());
            assertEquals(1, timeout.peer(), timeout.getMessage());
            assertTrue(timeout.getMessage().startsWith("allGatherObject[seq=0] rank 0: its round allGatherInto[seq=0] failed: "
                    + "timed out after 500 ms waiting for rank 1"), timeout.getMessage());
            assertInstanceOf(io.reactivecollectives.core.CollectiveTimeoutException.class, timeout.getCause());
        } finally {
            c.close();
        }
    }

    /** The next tensor collective and object call pair up on every rank (each rank took part in the same rounds). */
    private static void tensorsAndObjectsPairUp() {
        List<Object> sums = outcomes(PROMPT, (g, r) -> Mono.using(
                () -> io.reactivecollectives.core.Tensor.fromFloats(new float[]{r + 1}),
                t -> g.allReduce(t, io.reactivecollectives.core.ReduceOp.SUM).map(x -> x.toFloatArray()[0]),
                io.reactivecollectives.core.Tensor::release));
        assertEquals(List.of(6f, 6f, 6f), sums);
        nextCallWorks();
    }

    // ------------------------------------------------------------------ helpers

    /** The group's next object call (a small JSON all-gather, then bytes in several rounds) is right on every rank. */
    private static void nextCallWorks() {
        nextCallWorks(cluster);
    }

    private static void nextCallWorks(LocalCluster c) {
        Codec<String> json = Codec.json(String.class);
        assertEquals(List.of(List.of("r0", "r1", "r2"), List.of("r0", "r1", "r2"), List.of("r0", "r1", "r2")),
                outcomes(c, PROMPT, (g, r) -> g.allGatherObject("r" + r, json)));
        byte[][] objects = {random(130 << 10, 7), random(1, 8), random(70 << 10, 9)};
        List<Object> res = outcomes(c, PROMPT, (g, r) -> g.allGatherObject(objects[r], BYTES, ROUNDS));
        for (int r = 0; r < WORLD; r++) {
            @SuppressWarnings("unchecked")
            List<byte[]> got = (List<byte[]>) res.get(r);
            for (int q = 0; q < WORLD; q++) {
                assertArrayEquals(objects[q], got.get(q), "the next call: rank " + r + ", from " + q);
            }
        }
    }

    private static List<Object> outcomes(Duration within, BiFunction<ProcessGroup, Integer, Mono<?>> body) {
        return outcomes(cluster, within, body);
    }

    /**
     * Runs {@code body} on every rank at once; each rank's outcome (its value, {@link #EMPTY}, or
     * its error), checking that all came within {@code within}.
     */
    private static List<Object> outcomes(LocalCluster c, Duration within, BiFunction<ProcessGroup, Integer, Mono<?>> body) {
        List<Mono<Object>> all = new ArrayList<>();
        for (int r = 0; r < c.size(); r++) {
            int rank = r;
            all.add(Mono.defer(() -> body.apply(c.group(rank), rank)).map(v -> (Object) v)
                    .defaultIfEmpty(EMPTY).onErrorResume(Mono::just));
        }
        long t0 = System.nanoTime();
        List<Object> res = Mono.zip(all, xs -> Arrays.asList(xs)).block(GROUP_TIMEOUT.plusSeconds(10));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < within.toMillis(), "took " + ms + " ms, over " + within.toMillis() + ": " + res);
        return res;
    }

    /**
     * Every rank failed with {@code type}; each message is {@code op[seq=N] rank R: ...} with rank
     * {@code r}'s op, its own rank and one sequence number on every rank, and holds each of
     * {@code fragments}.
     */
    private static void everyRankFails(List<Object> res, Class<? extends CollectiveException> type,
                                       IntFunction<String> op, String... fragments) {
        long seq = -2;
        for (int r = 0; r < res.size(); r++) {
            Object o = res.get(r);
            assertInstanceOf(type, o, "rank " + r + " fails: " + o);
            CollectiveException e = (CollectiveException) o;
            String m = e.getMessage();
            assertEquals(op.apply(r), e.op(), m);
            assertEquals(r, e.rank(), m);
            assertTrue(e.sequence() >= 0, m);
            assertTrue(seq == -2 || seq == e.sequence(), "one sequence number on every rank: " + res);
            seq = e.sequence();
            assertTrue(m.startsWith(op.apply(r) + "[seq=" + e.sequence() + "] rank " + r + ": "),
                    "rank " + r + ": the message names the op, its sequence number and the rank: " + m);
            for (String f : fragments) {
                assertTrue(m.contains(f), "rank " + r + ": '" + m + "' should say '" + f + "'");
            }
        }
    }

    /** Seeded random bytes. */
    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** One object per rank: rank q's length is {@code LENGTHS[(q + shift + 1) % 4]}, so every call has the 3 MiB one. */
    private static byte[][] objects(int shift, long seed) {
        byte[][] out = new byte[WORLD][];
        for (int q = 0; q < WORLD; q++) {
            out[q] = random(LENGTHS[(q + shift + 1) % LENGTHS.length], seed * 31 + q);
        }
        return out;
    }

    /** Random objects of {@code length} bytes whose first byte is the rank's number. */
    private static byte[][] tagged(int length) {
        byte[][] out = new byte[WORLD][];
        for (int q = 0; q < WORLD; q++) {
            out[q] = tag(random(length, 60 + q), q);
        }
        return out;
    }

    /** {@code bytes} with {@code k} as its first byte. */
    private static byte[] tag(byte[] bytes, int k) {
        bytes[0] = (byte) k;
        return bytes;
    }

    /** About 2 MB of JSON: many entries of numbers, strings and lists. */
    private static Map<String, Object> bigMap(int rank) {
        Random rnd = new Random(rank);
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < 22_000; i++) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("i", i);
            v.put("rank", rank);
            v.put("name", "entry-" + rank + "-" + Integer.toHexString(rnd.nextInt()));
            v.put("values", List.of(rnd.nextInt(1000), rnd.nextInt(1000), rnd.nextInt(1000)));
            v.put("ok", rnd.nextBoolean());
            m.put("key-" + rank + "-" + i, v);
        }
        return m;
    }

    /** The bytes as they are; logs the first byte of every object it encodes or decodes, in order. */
    private static final class LoggingCodec implements Codec<byte[]> {

        final List<Integer> log = Collections.synchronizedList(new ArrayList<>());

        @Override
        public String id() {
            return "test:logged-bytes";
        }

        @Override
        public void encode(byte[] value, OutputStream out) throws IOException {
            log.add((int) value[0]);
            out.write(value);
        }

        @Override
        public byte[] decode(InputStream in) throws IOException {
            byte[] b = in.readAllBytes();
            log.add((int) b[0]);
            return b;
        }
    }

    /**
     * The bytes as they are, under one id on every rank, whose encode fails for objects tagged
     * (first byte) {@code failEncode} and whose decode fails for bytes tagged {@code failDecode};
     * counts its decodes.
     */
    private static final class TaggedCodec implements Codec<byte[]> {

        final int failEncode;
        final int failDecode;
        final AtomicInteger decodes = new AtomicInteger();

        TaggedCodec(int failEncode, int failDecode) {
            this.failEncode = failEncode;
            this.failDecode = failDecode;
        }

        @Override
        public String id() {
            return "test:tagged-bytes";
        }

        @Override
        public void encode(byte[] value, OutputStream out) throws IOException {
            if (value.length > 0 && value[0] == failEncode) {
                throw new IOException("objects tagged " + failEncode + " cannot be encoded");
            }
            out.write(value);
        }

        @Override
        public byte[] decode(InputStream in) throws IOException {
            decodes.incrementAndGet();
            byte[] b = in.readAllBytes();
            if (b.length > 0 && b[0] == failDecode) {
                throw new IOException("bytes tagged " + failDecode + " cannot be decoded");
            }
            return b;
        }
    }
}
