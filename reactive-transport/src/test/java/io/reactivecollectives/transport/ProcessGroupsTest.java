package io.reactivecollectives.transport;

import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ProcessGroups}: three ranks of one JVM join from launcher-style environments (one map per
 * rank, as collectives-run or torchrun would set), all-reduce, and leave nothing behind.
 */
class ProcessGroupsTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void threeRanksJoinFromTheirEnvironmentsAllReduceAndCloseTheStoreWithTheGroup() throws IOException {
        int port = FreePorts.one();
        List<Long> sums = Flux.range(0, 3)
                .flatMap(rank -> ProcessGroups.run(env(port, rank, 3), GroupOptions.defaults().withConnectTimeout(WAIT), group -> {
                    assertEquals(rank, group.rank());
                    return Mono.using(() -> Tensor.fromLongs(new long[] {rank + 1}, 1),
                            t -> group.allReduce(t, ReduceOp.SUM).map(r -> r.toLongArray()[0]), Tensor::release);
                }), 3)
                .collectList().block(WAIT);
        // the same call in every rank; the environments differ only in RANK and LOCAL_RANK
        assertEquals(List.of(6L, 6L, 6L), sums);
        assertPortFree(port, "rank 0's store server is closed with its group");
    }

    @Test
    void tryWithResourcesClosesTheStoreServerOnRankZero() throws IOException {
        int port = FreePorts.one();
        List<MeshProcessGroup> groups = joinAll(port, 2);
        try (MeshProcessGroup g0 = groups.get(0); MeshProcessGroup g1 = groups.get(1)) {
            assertEquals(2, g0.size());
            assertEquals(1, g1.rank());
            assertTrue(!portFree(port), "the store server listens while the group is open");
        }
        assertTrue(groups.get(0).isClosed() && groups.get(1).isClosed());
        assertPortFree(port, "closing the group closes the store");
    }

    @Test
    void aBadEnvironmentFailsOnSubscriptionNamingTheVariableAndStartsNothing() throws IOException {
        int port = FreePorts.one();
        Map<String, String> env = env(port, 0, 2);
        env.put("RANK", "two");
        Mono<MeshProcessGroup> join = ProcessGroups.fromEnvironment(env, GroupOptions.defaults());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> join.block(WAIT));
        assertTrue(e.getMessage().contains("RANK"), e.getMessage());
        assertPortFree(port, "nothing was started");

        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> ProcessGroups.fromEnvironment(Map.of(), GroupOptions.defaults()).block(WAIT));
        assertTrue(none.getMessage().contains("collectives-run"), none.getMessage());
    }

    @Test
    void aJoinThatTimesOutClosesWhatItOpened() throws IOException {
        int port = FreePorts.one();
        // rank 0 of 2 alone: its store starts, the group waits for rank 1, which never comes
        Mono<MeshProcessGroup> join = ProcessGroups.fromEnvironment(env(port, 0, 2),
                GroupOptions.defaults().withConnectTimeout(Duration.ofSeconds(2)));
        RuntimeException e = assertThrows(RuntimeException.class, () -> join.block(WAIT));
        assertTrue(String.valueOf(e.getMessage()).contains("ranks [1] never appeared"), "names the missing rank: " + e.getMessage());
        assertPortFree(port, "the failed join closed rank 0's store server");
    }

    @Test
    void cancellingAJoinClosesTheStoreServer() throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.one();
            java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
            var subscription = ProcessGroups.fromEnvironment(env(port, 0, 2), GroupOptions.defaults().withConnectTimeout(WAIT))
                    .subscribe(g -> { }, failed::set);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (portFree(port) && failed.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (failed.get() != null && attempt < 3) {
                // another test's listener took the port between its pick and the bind (tests run two JVMs at once)
                subscription.dispose();
                continue;
            }
            assertTrue(!portFree(port), "rank 0 started its store: " + failed.get());
            subscription.dispose();
            assertPortFree(port, "cancelling the join closed the store server");
            return;
        }
    }

    @Test
    void rcGroupTimeoutIsEachCollectivesTimeoutWhereTheProgramLeavesTheDefault() throws IOException {
        // before: only GroupOptions.withTimeout in code could shorten the 5 min; a launched job could not
        int port = FreePorts.one();
        List<MeshProcessGroup> groups = Flux.range(0, 2)
                .flatMap(r -> {
                    Map<String, String> env = env(port, r, 2);
                    env.put("RC_GROUP_TIMEOUT", "700ms");
                    return ProcessGroups.fromEnvironment(env, GroupOptions.defaults().withConnectTimeout(WAIT));
                })
                .collectSortedList((a, b) -> Integer.compare(a.rank(), b.rank()))
                .block(WAIT);
        try (MeshProcessGroup g0 = groups.get(0); MeshProcessGroup g1 = groups.get(1)) {
            Tensor t = Tensor.fromFloats(new float[] {1f}, 1);
            try {
                long t0 = System.nanoTime();
                io.reactivecollectives.core.CollectiveTimeoutException e = assertThrows(
                        io.reactivecollectives.core.CollectiveTimeoutException.class,
                        () -> g0.allReduce(t, ReduceOp.SUM).block(WAIT));   // rank 1 never calls
                assertTrue(e.getMessage().contains("timed out after 700 ms waiting for rank 1"), e.getMessage());
                assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(20).toNanos());
            } finally {
                t.release();
            }
        }
        GroupOptions d = GroupOptions.defaults();
        assertEquals(Duration.ofSeconds(3), ProcessGroups.fromSettings(d.withTimeout(Duration.ofSeconds(3)),
                Map.of("RC_GROUP_TIMEOUT", "7s")).timeout(), "the program's own timeout wins");
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> ProcessGroups.fromSettings(d, Map.of("RC_GROUP_TIMEOUT", "0")));
        assertTrue(zero.getMessage().contains("RC_GROUP_TIMEOUT") && zero.getMessage().contains("positive"), zero.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ProcessGroups.fromSettings(d, Map.of("RC_GROUP_TIMEOUT", "soon")));
        assertTrue(bad.getMessage().contains("RC_GROUP_TIMEOUT"), bad.getMessage());
    }

    private static List<MeshProcessGroup> joinAll(int port, int n) {
        return Flux.fromStream(IntStream.range(0, n).boxed())
                .flatMap(r -> ProcessGroups.fromEnvironment(env(port, r, n), GroupOptions.defaults().withConnectTimeout(WAIT)))
                .collectSortedList((a, b) -> Integer.compare(a.rank(), b.rank()))
                .block(WAIT);
    }

    /** What {@code bin/collectives-run} (or torchrun) sets for one rank on one node. */
    static Map<String, String> env(int port, int rank, int world) {
        Map<String, String> env = new HashMap<>();
        env.put("MASTER_ADDR", "127.0.0.1");
        env.put("MASTER_PORT", Integer.toString(port));
        env.put("RANK", Integer.toString(rank));
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(world));
        return env;
    }


    private static boolean portFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("0.0.0.0", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void assertPortFree(int port, String why) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!portFree(port) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertTrue(portFree(port), why + ": port " + port + " is still bound");
    }
}
