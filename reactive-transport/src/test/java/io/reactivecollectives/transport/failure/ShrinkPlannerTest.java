package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.Quorum;
import io.reactivecollectives.core.QuorumLostException;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.Store;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ShrinkPlanner} with several ranks as concurrent {@code Mono}s over one {@link HashStore}. */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class ShrinkPlannerTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private final HashStore store = new HashStore(Duration.ofSeconds(30));

    @AfterEach
    void close() {
        store.close();
    }

    /** What one rank's plan ended with. */
    private record Outcome(int rank, ShrinkPlan plan, Throwable error) {
    }

    private static boolean[] dead(int size, int... ranks) {
        boolean[] d = new boolean[size];
        for (int r : ranks) {
            d[r] = true;
        }
        return d;
    }

    private static Mono<Outcome> outcome(Store store, String base, int gen, int rank, boolean[] seen, Duration timeout) {
        return ShrinkPlanner.plan(store, base, gen, rank, seen.length, seen, timeout)
                .subscribeOn(Schedulers.parallel())
                .map(p -> new Outcome(rank, p, null))
                .onErrorResume(e -> Mono.just(new Outcome(rank, null, e)));
    }

    /** Runs the given ranks' plans concurrently; outcomes ordered by rank. */
    private List<Outcome> run(String base, int gen, Map<Integer, boolean[]> views, Duration timeout) {
        List<Outcome> all = Flux.fromIterable(views.entrySet())
                .flatMap(e -> outcome(store, base, gen, e.getKey(), e.getValue(), timeout))
                .collectList().block(WAIT.plus(timeout.multipliedBy(4)));
        assertNotNull(all);
        all.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        return all;
    }

    private static String members(Store s, String base, int gen) {
        byte[] v = s.get(ShrinkPlanner.membersKey(base, gen), Duration.ofSeconds(1)).block(WAIT);
        return new String(v, StandardCharsets.UTF_8);
    }

    @Test
    void aShrinkThatWaitsForViewsSaysWhoseItStillWaitsFor() throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8));
        ShrinkPlan plan;
        try {
            // rank 0 waits for the views of ranks 1 and 2; rank 1 publishes its own after 1.2 s, rank 2 never
            java.util.concurrent.CompletableFuture<ShrinkPlan> r0 = ShrinkPlanner.plan(store, "w", 0, 0, 3, dead(3),
                    Duration.ofSeconds(3), Duration.ofMillis(500)).toFuture();
            Thread.sleep(1200);
            ShrinkPlanner.plan(store, "w", 0, 1, 3, dead(3), Duration.ofSeconds(3)).toFuture();
            plan = r0.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            System.setErr(saved);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertArrayEquals(new int[] {0, 1}, plan.members());
        assertTrue(text.contains("group 'w' rank 0: shrink to generation 1: waiting for ranks 1, 2 to publish their"
                + " views of the failure ("), text);
        assertTrue(text.contains("group 'w' rank 0: shrink to generation 1: waiting for rank 2 to publish its view of"
                + " the failure ("), text);
        assertTrue(text.contains(" of 3 s)"), text);
    }

    @Test
    void survivorsAgreeOnOneDecisionAndSkipTheRankAnotherSawDie() {
        long t0 = System.nanoTime();
        // only rank 0 noticed that rank 3 died; ranks 1 and 2 learn it from rank 0's view
        List<Outcome> out = run("g", 0, Map.of(0, dead(4, 3), 1, dead(4), 2, dead(4)), Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5000, "the survivors did not wait for rank 3's view: " + ms + " ms");
        int decider = out.get(0).plan().decider();
        for (Outcome o : out) {
            assertNull(o.error(), () -> "rank " + o.rank() + ": " + o.error());
            ShrinkPlan p = o.plan();
            assertArrayEquals(new int[] {0, 1, 2}, p.members());
            assertEquals(o.rank(), p.newRank());
            assertEquals(1, p.generation());
            assertEquals("g@gen1", p.groupId());
            assertEquals(decider, p.decider(), "every rank adopts the one written decision");
        }
        assertEquals("members=0,1,2;decider=" + decider, members(store, "g", 1));
    }

    @Test
    void aRankArrivingAfterTheDecisionIsExcludedAndDecidesNothing() {
        run("late", 1, Map.of(0, dead(4, 3), 1, dead(4, 3), 2, dead(4, 3)), Duration.ofSeconds(20));
        String decided = members(store, "late", 2);
        // rank 3 was stopped: when it resumes, it sees everybody else dead (or nobody: same answer)
        for (boolean[] seen : List.of(dead(4, 0, 1, 2), dead(4))) {
            long t0 = System.nanoTime();
            Outcome o = run("late", 1, Map.of(3, seen), Duration.ofSeconds(20)).get(0);
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "the late rank found the decision at once");
            assertTrue(o.error() instanceof PeerFailureException, String.valueOf(o.error()));
            String msg = o.error().getMessage();
            assertTrue(msg.startsWith("shrink rank 3: rank 3 was excluded from generation 2 by ranks 0-2 ("), msg);
            assertTrue(msg.contains("it forms no group"), msg);
            assertEquals(3, ((CollectiveException) o.error()).rank());
        }
        assertEquals(decided, members(store, "late", 2), "the decision is never rewritten");
        assertFalse(store.check(List.of(ShrinkPlanner.viewKey("late", 2, 3))).block(WAIT),
                "the late rank published no view: it took no part in deciding");
    }

    @Test
    void disagreeingViewsStillProduceExactlyOneDecisionEveryRankFollows() {
        for (int round = 0; round < 25; round++) {
            String base = "split-" + round;
            // ranks 0 and 3 each believe the other died; ranks 1 and 2 saw nothing
            List<Outcome> out = run(base, 0, Map.of(0, dead(4, 3), 1, dead(4), 2, dead(4), 3, dead(4, 0)),
                    Duration.ofSeconds(20));
            String decision = members(store, base, 1);
            int[] members = Arrays.stream(decision.split(";")[0].substring("members=".length()).split(","))
                    .mapToInt(Integer::parseInt).toArray();
            assertTrue(members.length >= 2 && members.length <= 3, decision);
            assertFalse(Arrays.stream(members).anyMatch(m -> m == 0) && Arrays.stream(members).anyMatch(m -> m == 3),
                    "ranks 0 and 3 reported each other dead; they cannot both be in: " + decision);
            for (Outcome o : out) {
                int idx = Arrays.binarySearch(members, o.rank());
                if (idx >= 0) {
                    assertNull(o.error(), () -> "member " + o.rank() + " of " + decision + ": " + o.error());
                    assertArrayEquals(members, o.plan().members(), "round " + base);
                    assertEquals(idx, o.plan().newRank());
                } else {
                    assertTrue(o.error() instanceof PeerFailureException, "rank " + o.rank() + ": " + o.error());
                    assertTrue(o.error().getMessage().contains("rank " + o.rank() + " was excluded from generation 1 by "
                            + ShrinkPlanner.describeRanks(members)), o.error().getMessage());
                }
            }
        }
    }

    @Test
    void aRankThatOthersSawDieIsExcludedEvenWhenItDecides() {
        // rank 2 saw nothing wrong, but ranks 0 and 1 saw it die
        List<Outcome> out = run("seen", 0, Map.of(0, dead(3, 2), 1, dead(3, 2), 2, dead(3)), Duration.ofSeconds(20));
        assertArrayEquals(new int[] {0, 1}, out.get(0).plan().members());
        assertArrayEquals(new int[] {0, 1}, out.get(1).plan().members());
        assertTrue(out.get(2).error() instanceof PeerFailureException, String.valueOf(out.get(2).error()));
        assertTrue(out.get(2).error().getMessage().contains("rank 2 was excluded from generation 1 by ranks 0-1"),
                out.get(2).error().getMessage());
    }

    @Test
    void aRankThatPublishesNoViewInTimeIsLeftOutAndLaterExcluded() {
        long t0 = System.nanoTime();
        // nobody saw rank 2 die, but it never calls shrink: the others decide without it after the timeout
        List<Outcome> out = run("silent", 0, Map.of(0, dead(3), 1, dead(3)), Duration.ofMillis(400));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 350, "the survivors waited for rank 2's view: " + ms + " ms");
        for (Outcome o : out) {
            assertNull(o.error(), () -> String.valueOf(o.error()));
            assertArrayEquals(new int[] {0, 1}, o.plan().members());
        }
        Outcome late = run("silent", 0, Map.of(2, dead(3)), Duration.ofMillis(400)).get(0);
        assertTrue(late.error().getMessage().contains("rank 2 was excluded from generation 1 by ranks 0-1"),
                String.valueOf(late.error()));
    }

    @Test
    void aStoreThatDoesNotAnswerFailsThePlanNamingTheStoreAndTheCall() {
        for (String frozenOp : List.of("check", "set", "compareSet")) {
            FrozenStore frozen = new FrozenStore(store, Set.of(frozenOp));
            long t0 = System.nanoTime();
            // a quorum of one: the lone survivor gets as far as the frozen call (the majority would stop it first)
            Outcome o = ShrinkPlanner.plan(frozen, "frozen-" + frozenOp, 0, 0, 2, dead(2, 1), Duration.ofMillis(300),
                            Duration.ZERO, Quorum.atLeast(1))
                    .map(p -> new Outcome(0, p, null)).onErrorResume(e -> Mono.just(new Outcome(0, null, e)))
                    .block(WAIT);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertNotNull(o);
            assertTrue(o.error() instanceof CollectiveTimeoutException, frozenOp + ": " + o.error());
            String msg = o.error().getMessage();
            assertTrue(msg.startsWith("shrink rank 0: store FrozenStore[10.9.8.7:29500] did not answer " + frozenOp
                    + " rc/frozen-" + frozenOp + "/shrink/gen1/"), msg);
            assertTrue(msg.contains("within 300 ms"), msg);
            assertTrue(ms < 3000, frozenOp + " failed after " + ms + " ms");
        }
    }

    @Test
    void aStoreCallLeftUnansweredIsReportedNamingTheStoreAndTheCall() {
        // the audit: the store's host stopped (kill -STOP); the check and the set of the own view were silent
        for (String frozenOp : List.of("check", "set")) {
            FrozenStore frozen = new FrozenStore(store, Set.of(frozenOp));
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            java.io.PrintStream saved = System.err;
            System.setErr(new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8));
            Throwable error;
            try {
                error = ShrinkPlanner.plan(frozen, "silent-" + frozenOp, 0, 0, 2, dead(2, 1), Duration.ofMillis(1500),
                                Duration.ofMillis(300), Quorum.atLeast(1))
                        .map(p -> (Throwable) null).onErrorResume(Mono::just).block(WAIT);
            } finally {
                System.setErr(saved);
            }
            assertTrue(error instanceof CollectiveTimeoutException, frozenOp + ": " + error);
            String text = bytes.toString(StandardCharsets.UTF_8);
            String key = frozenOp.equals("check") ? ShrinkPlanner.membersKey("silent-check", 1)
                    : ShrinkPlanner.viewKey("silent-set", 1, 0);
            assertTrue(text.contains("group 'silent-" + frozenOp + "' rank 0: shrink to generation 1: waiting for store "
                    + "FrozenStore[10.9.8.7:29500] to answer " + frozenOp + " " + key + " ("), frozenOp + ": " + text);
            assertTrue(text.contains(" of 1 s)"), text);
        }
    }

    @Test
    void aRankThatCanCountNoMajorityFailsWithTheQuorumErrorAndWritesNothing() {
        // rank 0 resumes after a stop and sees ranks 1-3 dead: 1 of 4 is no majority, nor the store's to decide
        Outcome o = run("lone", 0, Map.of(0, dead(4, 1, 2, 3)), Duration.ofSeconds(5)).get(0);
        assertTrue(o.error() instanceof QuorumLostException, String.valueOf(o.error()));
        QuorumLostException q = (QuorumLostException) o.error();
        assertEquals("shrink rank 0: generation 1 needs 3 of generation 0's 4 ranks (quorum: majority); rank 0 could "
                + "count 1 alive (rank 0) and no decision was in store " + store + ": it forms no group", q.getMessage());
        assertEquals(0, q.rank());
        assertEquals(1, q.generation());
        assertEquals(1, q.counted());
        assertEquals(3, q.needed());
        assertFalse(store.check(List.of(ShrinkPlanner.membersKey("lone", 1))).block(WAIT),
                "the lone rank decided nothing");
        assertEquals(ShrinkPlanner.LEFT_MARKER, new String(store.get(ShrinkPlanner.viewKey("lone", 1, 0), WAIT)
                .block(WAIT), StandardCharsets.UTF_8), "no view: only the marker that it left");
        // while three of four are a majority: 3 > 2
        for (Outcome m : run("three", 0, Map.of(1, dead(4, 0), 2, dead(4, 0), 3, dead(4, 0)), Duration.ofSeconds(20))) {
            assertNull(m.error(), () -> String.valueOf(m.error()));
            assertArrayEquals(new int[] {1, 2, 3}, m.plan().members());
        }
    }

    /**
     * The audit: of 4 ranks, 1 and 2 died; rank 0 saw both and left (no quorum), rank 3 saw rank 1 only
     * and waited out the timeout for the views of rank 0 (gone) and rank 2 (dead). Rank 0's marker
     * counts it out, which leaves too few for the quorum: rank 3 fails at once.
     */
    @Test
    void aRankThatLeftWithoutAViewIsNotWaitedForAndItsPeersFailAtOnce() {
        long t0 = System.nanoTime();
        List<Outcome> all = run("left", 0, Map.of(0, dead(4, 1, 2), 3, dead(4, 1)), Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        for (Outcome o : all) {
            assertTrue(o.error() instanceof QuorumLostException, o.rank() + ": " + o.error());
        }
        assertTrue(all.get(1).error().getMessage().startsWith("shrink rank 3: generation 1 needs 3 of generation 0's "
                + "4 ranks (quorum: majority); rank 3 could count 1 surviving (rank 3)"), all.get(1).error().getMessage());
        assertTrue(ms < 5000, "rank 3 failed after " + ms + " ms, not at once");
        assertFalse(store.check(List.of(ShrinkPlanner.membersKey("left", 1))).block(WAIT), "nobody decided");
    }

    @Test
    void halfTheGroupIsNoMajorityButMeetsAQuorumOfTwo() {
        Map<Integer, boolean[]> views = Map.of(0, dead(4, 2, 3), 1, dead(4, 2, 3));
        for (Outcome o : run("half", 0, views, Duration.ofSeconds(5))) {
            assertTrue(o.error() instanceof QuorumLostException, String.valueOf(o.error()));
            assertTrue(o.error().getMessage().startsWith("shrink rank " + o.rank() + ": generation 1 needs 3 of "
                    + "generation 0's 4 ranks (quorum: majority); rank " + o.rank() + " could count 2 alive (ranks 0-1)"),
                    o.error().getMessage());
        }
        List<Outcome> two = Flux.fromIterable(views.entrySet())
                .flatMap(e -> ShrinkPlanner.plan(store, "half2", 0, e.getKey(), 4, e.getValue(), Duration.ofSeconds(20),
                                Duration.ZERO, Quorum.parse("2")).subscribeOn(Schedulers.parallel())
                        .map(p -> new Outcome(e.getKey(), p, null)))
                .collectList().block(WAIT);
        assertNotNull(two);
        assertEquals(2, two.size());
        two.forEach(o -> assertArrayEquals(new int[] {0, 1}, o.plan().members()));
    }

    @Test
    void quorumsAreReadAndCounted() {
        assertEquals(3, Quorum.MAJORITY.required(4));
        assertEquals(2, Quorum.MAJORITY.required(3));
        assertEquals(2, Quorum.MAJORITY.required(2));
        assertEquals(1, Quorum.MAJORITY.required(1));
        assertEquals(Quorum.MAJORITY, Quorum.parse(" Majority "));
        assertEquals(2, Quorum.parse("2").required(8));
        assertEquals(2, Quorum.parse("0.5").required(4));
        assertEquals(3, Quorum.parse("60%").required(4));
        assertEquals(1, Quorum.fraction(0.1).required(3));
        assertEquals("at least 2 ranks", Quorum.atLeast(2).toString());
        for (String bad : List.of("0", "-1", "1.5", "0%", "most", "")) {
            assertThrows(IllegalArgumentException.class, () -> Quorum.parse(bad), bad);
        }
    }

    @Test
    void aStoreThatFailsACallFailsThePlanNamingTheStore() {
        store.close();
        Outcome o = outcome(store, "closed", 0, 1, dead(2, 0), Duration.ofMillis(300)).block(WAIT);
        assertNotNull(o);
        assertTrue(o.error() instanceof CollectiveException, String.valueOf(o.error()));
        assertTrue(o.error().getMessage().startsWith("shrink rank 1: store " + store + " failed check"),
                o.error().getMessage());
    }

    @Test
    void argumentsAreChecked() {
        assertThrows(IllegalArgumentException.class,
                () -> ShrinkPlanner.plan(store, "a", 0, 3, 3, dead(3), WAIT).block(WAIT));
        assertThrows(IllegalArgumentException.class,
                () -> ShrinkPlanner.plan(store, "a", 0, 0, 3, dead(2), WAIT).block(WAIT));
        assertThrows(IllegalArgumentException.class,
                () -> ShrinkPlanner.plan(store, "a", 0, 0, 3, dead(3), Duration.ZERO).block(WAIT));
    }

    @Test
    void rankListsAreShortened() {
        assertEquals("rank 2", ShrinkPlanner.describeRanks(new int[] {2}));
        assertEquals("ranks 0-2", ShrinkPlanner.describeRanks(new int[] {0, 1, 2}));
        assertEquals("ranks 0, 2-4, 7", ShrinkPlanner.describeRanks(new int[] {0, 2, 3, 4, 7}));
    }
}
