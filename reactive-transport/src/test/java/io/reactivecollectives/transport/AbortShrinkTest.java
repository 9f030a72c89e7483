package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.group.RemoteAbortException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code abort()}, {@code shrink()} and the TEAR_DOWN error-handling mode, with N ranks in one JVM. */
class AbortShrinkTest {

    static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id).withTimeout(Duration.ofSeconds(20))
                .withConnectTimeout(Duration.ofSeconds(20));
    }

    @Test
    void abortFailsInFlightHereAndOnPeersThenSurvivorsShrinkAndCarryOn() {
        LocalCluster cluster = LocalCluster.start(3, options("abort-shrink")).block(ClusterTesting.TIMEOUT);
        Tensor t0 = Tensor.zeros(DType.FLOAT32, 1000);
        Tensor t1 = Tensor.zeros(DType.FLOAT32, 1000);
        Tensor later = Tensor.zeros(DType.FLOAT32, 10);
        List<ProcessGroup> shrunk = null;
        try {
            // ranks 0 and 1 start an all-reduce that rank 2 has not joined: both are in flight
            Mono<Tensor> r0 = cluster.group(0).allReduce(t0, ReduceOp.SUM).cache();
            r0.subscribe(x -> { }, e -> { });
            StepVerifier.create(cluster.group(1).allReduce(t1, ReduceOp.SUM))
                    .then(() -> cluster.group(1).abort().block(Duration.ofSeconds(5)))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof GroupAbortedException, e.toString());
                        assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank 1: the group was aborted"),
                                e.getMessage());
                    })
                    .verify(Duration.ofSeconds(5));
            // the peer learns of it: its in-flight collective fails naming rank 1
            StepVerifier.create(r0)
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof RemoteAbortException, e.toString());
                        assertTrue(e.getMessage().startsWith("allReduce[seq=0] rank 0: peer 1 aborted the group"),
                                e.getMessage());
                    })
                    .verify(Duration.ofSeconds(5));
            // the aborted group refuses new work with a clear error
            StepVerifier.create(cluster.group(1).allReduce(later, ReduceOp.SUM))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof GroupAbortedException, e.toString());
                        assertTrue(e.getMessage().contains("the group was aborted"), e.getMessage());
                    })
                    .verify(Duration.ofSeconds(5));
            StepVerifier.create(cluster.group(1).send(later, 0, 7))
                    .expectError(GroupAbortedException.class)
                    .verify(Duration.ofSeconds(5));
            // rank 2 (never in that collective) also fails its next collective naming rank 1
            StepVerifier.create(Mono.delay(Duration.ofMillis(200)).then(cluster.group(2).allReduce(later, ReduceOp.SUM)))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof PeerFailureException, e.toString());
                        assertTrue(e.getMessage().contains("peer 1 aborted the group"), e.getMessage());
                    })
                    .verify(Duration.ofSeconds(5));

            // recovery: ranks 0 and 2 shrink into a group of two (generation 1) and all-reduce correctly
            shrunk = Flux.merge(cluster.group(0).shrink(), cluster.group(2).shrink()).collectList()
                    .block(Duration.ofSeconds(20));
            assertEquals(2, shrunk.size());
            shrunk.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
            for (int r = 0; r < 2; r++) {
                MeshProcessGroup g = (MeshProcessGroup) shrunk.get(r);
                assertEquals(r, g.rank());
                assertEquals(2, g.size());
                assertEquals(1, g.generation());
                assertEquals("abort-shrink@gen1", g.groupId());
            }
            assertTrue(cluster.group(0).isClosed() && cluster.group(2).isClosed(), "old groups are closed");
            Tensor a = Tensor.empty(DType.FLOAT32, 300_000);
            Tensor b = Tensor.empty(DType.FLOAT32, 300_000);
            try {
                for (int i = 0; i < 300_000; i++) {
                    a.buffer().setFloatLE(i * 4, i % 7);
                    b.buffer().setFloatLE(i * 4, 2 * (i % 7) + 1);
                }
                List<ProcessGroup> s = shrunk;
                Flux.merge(s.get(0).allReduce(a, ReduceOp.SUM), s.get(1).allReduce(b, ReduceOp.SUM))
                        .then().block(Duration.ofSeconds(20));
                for (int i = 0; i < 300_000; i += 997) {
                    assertEquals(3 * (i % 7) + 1, a.buffer().getFloatLE(i * 4), "element " + i);
                    assertEquals(3 * (i % 7) + 1, b.buffer().getFloatLE(i * 4), "element " + i);
                }
            } finally {
                a.release();
                b.release();
            }
        } finally {
            t0.release();
            t1.release();
            later.release();
            if (shrunk != null) {
                shrunk.forEach(ProcessGroup::close);
            }
            cluster.close();
        }
    }

    @Test
    void tearDownModeCallsTheExitHookOnceAfterAFailedCollectiveAndFailOperationsDoesNot() throws Exception {
        CountDownLatch exited = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger status = new AtomicInteger(-1);
        GroupOptions tearDown = options("teardown").withTimeout(Duration.ofMillis(300))
                .withErrorHandling(ErrorHandling.tearDown(s -> {
                    calls.incrementAndGet();
                    status.set(s);
                    exited.countDown();
                }));
        LocalCluster cluster = LocalCluster.start(2, tearDown).block(ClusterTesting.TIMEOUT);
        Tensor t = Tensor.zeros(DType.FLOAT32, 10);
        try {
            // bad arguments never tear down
            StepVerifier.create(cluster.group(0).broadcast(t, 5)).expectError(IllegalArgumentException.class)
                    .verify(Duration.ofSeconds(5));
            assertEquals(0, calls.get());
            // rank 1 never joins: rank 0 times out and the hook runs with the tear-down status
            StepVerifier.create(cluster.group(0).allReduce(t, ReduceOp.SUM))
                    .expectError()
                    .verify(Duration.ofSeconds(5));
            assertTrue(exited.await(5, TimeUnit.SECONDS), "exit hook not called");
            assertEquals(ErrorHandling.EXIT_STATUS, status.get());
            StepVerifier.create(cluster.group(0).allReduce(t, ReduceOp.SUM).onErrorResume(e -> Mono.empty()))
                    .verifyComplete();
            Thread.sleep(200);
            assertEquals(1, calls.get(), "the process is torn down once");
        } finally {
            t.release();
            cluster.close();
        }

        // a peer gone between two collectives: the next one is refused at once, and that tears down too
        // (ReliabilityProcessesTest saw a rank refused so live on in TEAR_DOWN mode)
        CountDownLatch exitedBetween = new CountDownLatch(1);
        LocalCluster between = LocalCluster.start(2, options("teardown-between")
                .withErrorHandling(ErrorHandling.tearDown(s -> exitedBetween.countDown()))).block(ClusterTesting.TIMEOUT);
        Tensor v = Tensor.zeros(DType.FLOAT32, 10);
        try {
            between.run(g -> g.allReduce(v.copy(), ReduceOp.SUM).doOnNext(Tensor::release).thenReturn(true)).block(ClusterTesting.TIMEOUT);
            between.group(1).close();
            Thread.sleep(500);   // rank 0 hears that rank 1 left
            StepVerifier.create(between.group(0).allReduce(v, ReduceOp.SUM))
                    .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("peer 1"), e.getMessage()))
                    .verify(Duration.ofSeconds(5));
            assertTrue(exitedBetween.await(5, TimeUnit.SECONDS), "exit hook not called for a refused collective");
        } finally {
            v.release();
            between.close();
        }

        AtomicInteger failOpsCalls = new AtomicInteger();
        GroupOptions failOps = options("failops").withTimeout(Duration.ofMillis(300))
                .withErrorHandling(new ErrorHandling(ErrorHandling.Mode.FAIL_OPERATIONS, s -> failOpsCalls.incrementAndGet()));
        LocalCluster c2 = LocalCluster.start(2, failOps).block(ClusterTesting.TIMEOUT);
        Tensor u = Tensor.zeros(DType.FLOAT32, 10);
        try {
            StepVerifier.create(c2.group(0).allReduce(u, ReduceOp.SUM)).expectError().verify(Duration.ofSeconds(5));
            Thread.sleep(200);
            assertEquals(0, failOpsCalls.get());
            assertFalse(c2.group(0).isClosed());
        } finally {
            u.release();
            c2.close();
        }
    }
}
