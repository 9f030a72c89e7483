package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Quorum;
import io.reactivecollectives.core.QuorumLostException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shrink quorum and the membership generations with real ranks in one JVM: ranks are lost by
 * closing their groups; the survivors see them leave, then shrink.
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class GenerationsQuorumTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static GroupOptions options(String id) {
        return AbortShrinkTest.options(id).withTimeout(Duration.ofSeconds(10));
    }

    /**
     * Waits until every group of {@code groups} has seen each of {@code lost} leave (its departure
     * notice), without a collective: one among the survivors alone would leave their frames unclaimed.
     */
    private static void awaitSeen(List<? extends ProcessGroup> groups, int... lost) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        try {
            java.lang.reflect.Field f = MeshProcessGroup.class.getDeclaredField("runtime");
            f.setAccessible(true);
            for (ProcessGroup g : groups) {
                var failures = ((io.reactivecollectives.transport.runtime.GroupRuntime) f.get(g)).peerFailures();
                for (int p : lost) {
                    while (!failures.isDead(p)) {
                        assertTrue(System.nanoTime() < deadline, "rank " + g.rank() + " never saw rank " + p + " leave");
                        Thread.sleep(10);
                    }
                }
            }
        } catch (ReflectiveOperationException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static List<ProcessGroup> shrinkAll(List<? extends ProcessGroup> groups) {
        List<ProcessGroup> out = Flux.fromIterable(groups).flatMap(ProcessGroup::shrink).collectList().block(WAIT);
        assertNotNull(out);
        out.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        return out;
    }

    @Test
    void threeOfFourShrinkAndReportTheGenerationsThenALoneRankFailsWithTheQuorumError() {
        LocalCluster cluster = LocalCluster.start(4, options("gens")).block(ClusterTesting.TIMEOUT);
        List<GenerationEvent> seen = new ArrayList<>();
        List<ProcessGroup> gen1 = List.of();
        try {
            List<Throwable> ended = new ArrayList<>();
            cluster.group(1).generations().subscribe(seen::add, ended::add, () -> ended.add(null));
            cluster.group(3).close();
            List<MeshProcessGroup> survivors = cluster.groups().subList(0, 3);
            awaitSeen(survivors, 3);
            gen1 = shrinkAll(survivors);                      // 3 > 4 / 2: a majority
            assertEquals(3, gen1.size());
            GenerationEvent start = GenerationEvent.start("gens", 4);
            GenerationEvent shrunk = new GenerationEvent("gens@gen1", 1, GenerationEvent.Reason.SHRINK,
                    new int[] {0, 1, 2}, new int[] {3});
            assertEquals(List.of(start, shrunk), seen, "the original group's subscriber sees START then SHRINK");
            for (ProcessGroup g : gen1) {
                assertEquals(1, ((MeshProcessGroup) g).generation());
                StepVerifier.create(g.generations().take(2)).expectNext(start, shrunk).verifyComplete();
            }
            assertTrue(ended.isEmpty(), "the stream goes on across the shrink: " + ended);
            // generation 1 loses its ranks 1 and 2: rank 0, alone, is no majority of 3
            gen1.get(1).close();
            gen1.get(2).close();
            awaitSeen(gen1.subList(0, 1), 1, 2);
            long t0 = System.nanoTime();
            StepVerifier.create(gen1.get(0).shrink())
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof QuorumLostException, e.toString());
                        QuorumLostException q = (QuorumLostException) e;
                        assertTrue(q.getMessage().startsWith("shrink rank 0: generation 2 needs 2 of generation 1's 3 "
                                + "ranks (quorum: majority); rank 0 could count 1 alive (rank 0)"), q.getMessage());
                        assertTrue(q.getMessage().endsWith("it forms no group"), q.getMessage());
                        assertEquals(2, q.generation());
                        assertEquals(1, q.counted());
                        assertEquals(2, q.needed());
                        assertEquals("shrink", q.op());
                    })
                    .verify(WAIT);
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "the lone rank fails at once, waiting for no view");
            assertEquals(2, seen.size(), "a failed shrink makes no generation: " + seen);
            gen1.get(0).close();
            assertEquals(1, ended.size(), "closing the newest generation ends the stream");
            assertEquals(null, ended.get(0));
        } finally {
            gen1.forEach(ProcessGroup::close);
            cluster.close();
        }
    }

    @Test
    void halfOfFourIsNoMajorityButMeetsAQuorumOfTwo() {
        LocalCluster cluster = LocalCluster.start(4, options("half")).block(ClusterTesting.TIMEOUT);
        try {
            cluster.group(2).close();
            cluster.group(3).close();
            List<MeshProcessGroup> survivors = cluster.groups().subList(0, 2);
            awaitSeen(survivors, 2, 3);
            for (MeshProcessGroup g : survivors) {
                StepVerifier.create(g.shrink())
                        .expectErrorSatisfies(e -> {
                            assertTrue(e instanceof QuorumLostException, e.toString());
                            assertTrue(e.getMessage().startsWith("shrink rank " + g.rank() + ": generation 1 needs 3 of "
                                    + "generation 0's 4 ranks (quorum: majority); rank " + g.rank()
                                    + " could count 2 alive (ranks 0-1)"), e.getMessage());
                        })
                        .verify(WAIT);
                assertTrue(!g.isClosed(), "a failed shrink leaves the group to its owner");
            }
        } finally {
            cluster.close();
        }
        LocalCluster two = LocalCluster.start(4, options("half2").withMinQuorum(Quorum.atLeast(2)))
                .block(ClusterTesting.TIMEOUT);
        List<ProcessGroup> gen1 = List.of();
        try {
            two.group(0).close();
            two.group(2).close();
            List<MeshProcessGroup> survivors = List.of(two.group(1), two.group(3));
            awaitSeen(survivors, 0, 2);
            gen1 = shrinkAll(survivors);
            assertEquals(2, gen1.size());
            for (ProcessGroup g : gen1) {
                assertEquals(2, g.size());
                GenerationEvent last = g.generations().take(2).last().block(WAIT);
                assertNotNull(last);
                assertArrayEquals(new int[] {1, 3}, last.members());
                assertArrayEquals(new int[] {0, 2}, last.lost());
            }
            Tensor a = ClusterTesting.filled(DType.FLOAT32, 8, 1);
            Tensor b = ClusterTesting.filled(DType.FLOAT32, 8, 2);
            try {
                Flux.merge(gen1.get(0).allReduce(a, ReduceOp.SUM), gen1.get(1).allReduce(b, ReduceOp.SUM))
                        .then().block(WAIT);
                assertEquals(3f, a.buffer().getFloatLE(0));
                assertEquals(3f, b.buffer().getFloatLE(28));
            } finally {
                a.release();
                b.release();
            }
        } finally {
            gen1.forEach(ProcessGroup::close);
            two.close();
        }
    }
}
