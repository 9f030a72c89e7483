package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void issuingIsEagerAndCompletionIsRecorded() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.getOrSet();
        try {
            AtomicInteger subscribed = new AtomicInteger();
            Mono<String> collective = Mono.delay(Duration.ofSeconds(30))
                    .map(x -> "reduced")
                    .doOnSubscribe(s -> subscribed.incrementAndGet());
            Work work = Work.of(collective, OpType.ALLREDUCE, 41, 2);
            assertEquals(1, subscribed.get(), "Work.of must subscribe at once");
            assertFalse(work.isCompleted());
            assertFalse(work.isSuccess());
            assertEquals(WorkResult.UNKNOWN, work.result());
            assertTrue(work.duration().isEmpty());
            assertTrue(work.exception().isEmpty());

            vts.advanceTimeBy(Duration.ofSeconds(29));
            assertFalse(work.isCompleted());
            vts.advanceTimeBy(Duration.ofSeconds(1));
            assertTrue(work.isCompleted());
            assertTrue(work.isSuccess());
            assertEquals(WorkResult.SUCCESS, work.result());
            assertTrue(work.duration().isPresent());
            assertEquals("reduced", work.future().getNow(null));
            assertTrue(work.wait(Duration.ZERO), "a finished work waits no time");
            assertEquals(41, work.sequenceNumber());
            assertEquals(OpType.ALLREDUCE, work.opType());
            assertEquals(2, work.rank());
            assertEquals(Work.NO_SOURCE, work.sourceRank());
            assertEquals(1, subscribed.get(), "a Work runs its collective once");
        } finally {
            VirtualTimeScheduler.reset();
        }
    }

    @Test
    void futureViewUnderVirtualTime() {
        StepVerifier.withVirtualTime(() -> {
                    Work work = Work.of(Mono.delay(Duration.ofHours(1)).thenReturn(7), OpType.BROADCAST, 3);
                    return Mono.fromFuture(work.future()).map(v -> (Integer) v * 6);
                })
                .expectSubscription()
                .expectNoEvent(Duration.ofMinutes(59))
                .thenAwait(Duration.ofMinutes(1))
                .expectNext(42)
                .verifyComplete();
    }

    @Test
    void timeoutFailureReportsTimeout() {
        CollectiveTimeoutException failure = new CollectiveTimeoutException("allReduce", 1, 9, 3, Duration.ofSeconds(5),
                "peer 3 did not answer");
        StepVerifier.withVirtualTime(() -> {
                    Work work = Work.of(Mono.delay(Duration.ofSeconds(5)).then(Mono.error(failure)), OpType.ALLREDUCE, 9, 1);
                    return Mono.fromFuture(work.future()).then(Mono.just(work))
                            .onErrorResume(e -> Mono.just(work));
                })
                .thenAwait(Duration.ofSeconds(5))
                .assertNext(work -> {
                    assertTrue(work.isCompleted());
                    assertFalse(work.isSuccess());
                    assertEquals(WorkResult.TIMEOUT, work.result());
                    assertSame(failure, work.exception().orElseThrow());
                    assertSame(failure, assertThrows(CollectiveTimeoutException.class, () -> work.wait(WAIT)));
                })
                .verifyComplete();
    }

    @Test
    void communicationAndOtherFailures() {
        PeerFailureException peer = new PeerFailureException("broadcast", 0, 4, 2, "peer 2 closed the connection", null);
        Work commError = Work.of(Mono.error(peer), OpType.BROADCAST, 4, 0);
        assertEquals(WorkResult.COMM_ERROR, commError.result());
        PeerFailureException thrown = assertThrows(PeerFailureException.class, () -> commError.wait(WAIT));
        assertEquals("broadcast[seq=4] rank 0: peer 2 closed the connection", thrown.getMessage());

        IllegalArgumentException bad = new IllegalArgumentException("allReduce: AVG is not defined for BOOL");
        Work other = Work.of(Mono.error(bad), OpType.ALLREDUCE, 5);
        assertEquals(WorkResult.UNKNOWN, other.result());
        assertTrue(other.isCompleted());
        assertSame(bad, assertThrows(IllegalArgumentException.class, () -> other.wait(WAIT)));

        Exception checked = new java.io.IOException("disk");
        Work wrapped = Work.of(Mono.error(checked), OpType.BARRIER, 6);
        assertSame(checked, assertThrows(java.util.concurrent.CompletionException.class, () -> wrapped.wait(WAIT)).getCause());
        assertSame(checked, wrapped.exception().orElseThrow());
    }

    @Test
    void waitRunningOutThrowsATimeoutNamingTheOpAndLeavesItRunning() {
        AtomicInteger cancelled = new AtomicInteger();
        Work work = Work.of(Mono.never().doOnCancel(cancelled::incrementAndGet), OpType.ALLGATHER, 12, 3);
        long start = System.nanoTime();
        CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class, () -> work.wait(Duration.ofMillis(100)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(95));
        assertTrue(e.getMessage().startsWith("allGather[seq=12] rank 3: Work.wait timed out after 100 ms"), e.getMessage());
        assertEquals(WorkResult.TIMEOUT, e.workResult());
        assertTrue(e.elapsed().toMillis() >= 95);
        assertFalse(work.isCompleted(), "a wait that runs out does not end the work");
        assertEquals(0, cancelled.get());

        assertTrue(work.abort());
        assertEquals(1, cancelled.get(), "abort cancels the subscription");
        assertTrue(work.isCompleted());
        assertFalse(work.isSuccess());
        assertInstanceOf(CancellationException.class, work.exception().orElseThrow());
        assertEquals(WorkResult.UNKNOWN, work.result());
        assertThrows(CancellationException.class, () -> work.wait(WAIT));
        assertFalse(work.abort(), "a second abort changes nothing");
        assertTrue(work.duration().isPresent());
    }

    @Test
    void abortAfterSuccessChangesNothing() {
        Work work = Work.of(Mono.just(1), OpType.SEND, 0);
        assertFalse(work.abort());
        assertTrue(work.isSuccess());
        assertEquals(WorkResult.SUCCESS, work.result());
    }

    @Test
    void cancellingTheFutureAbortsAndCompletingItChangesNothing() {
        AtomicInteger cancelled = new AtomicInteger();
        Work work = Work.of(Mono.never().doOnCancel(cancelled::incrementAndGet), OpType.REDUCE, 8);
        CompletableFuture<Object> future = work.future();
        work.future().complete("forged");
        assertFalse(work.isCompleted());
        future.cancel(true);
        assertEquals(1, cancelled.get());
        assertTrue(work.isCompleted());
        assertInstanceOf(CancellationException.class, work.exception().orElseThrow());
    }

    @Test
    void waitRefusesNonBlockingThreads() {
        Work work = Work.of(Mono.just("x"), OpType.BARRIER, 1);
        StepVerifier.create(Mono.fromCallable(() -> work.wait(WAIT)).subscribeOn(Schedulers.parallel()))
                .expectErrorSatisfies(e -> {
                    assertInstanceOf(IllegalStateException.class, e);
                    assertTrue(e.getMessage().contains("non-blocking thread"), e.getMessage());
                    assertTrue(e.getMessage().startsWith("barrier[seq=1]"), e.getMessage());
                })
                .verify(WAIT);
        // allowed where blocking is allowed
        StepVerifier.create(Mono.fromCallable(() -> work.wait(WAIT)).subscribeOn(Schedulers.boundedElastic()))
                .expectNext(true)
                .verifyComplete();
    }

    @Test
    void recvAnySourceReportsTheSource() {
        Sinks.One<Integer> source = Sinks.one();
        Work work = Work.ofRecvAnySource(source.asMono(), 20, 0);
        assertEquals(OpType.RECVANYSOURCE, work.opType());
        assertEquals(Work.NO_SOURCE, work.sourceRank(), "no source while running");
        source.tryEmitValue(3).orThrow();
        assertTrue(work.wait(WAIT));
        assertEquals(3, work.sourceRank());

        Work viaOf = Work.of(Mono.just(5), OpType.RECVANYSOURCE, 21);
        assertEquals(5, viaOf.sourceRank());
        Work failed = Work.ofRecvAnySource(Mono.error(new PeerFailureException("recvAnySource", 0, 22, 1, "gone", null)), 22, 0);
        assertEquals(Work.NO_SOURCE, failed.sourceRank());
    }

    @Test
    void manyThreadsWaitForOneCompletionFromAnother() throws Exception {
        Sinks.One<String> result = Sinks.one();
        Work work = Work.of(result.asMono(), OpType.ALLREDUCE, 2);
        int n = 8;
        CountDownLatch started = new CountDownLatch(n);
        List<Thread> threads = new ArrayList<>();
        AtomicInteger succeeded = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    if (work.wait(WAIT)) {
                        succeeded.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "waiter-" + i);
            t.start();
            threads.add(t);
        }
        assertTrue(started.await(5, TimeUnit.SECONDS));
        Thread.sleep(50);
        assertEquals(0, succeeded.get());
        Thread completer = new Thread(() -> result.tryEmitValue("done").orThrow());
        completer.start();
        for (Thread t : threads) {
            t.join(WAIT.toMillis());
            assertFalse(t.isAlive());
        }
        assertEquals(null, failure.get());
        assertEquals(n, succeeded.get());
        assertTrue(work.duration().orElseThrow().toMillis() >= 45);
    }

    @Test
    void interruptedWaitKeepsTheFlag() throws Exception {
        Work work = Work.of(Mono.never(), OpType.BARRIER, 3);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                work.wait(WAIT);
            } catch (Throwable e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        Thread.sleep(50);
        t.interrupt();
        t.join(WAIT.toMillis());
        assertInstanceOf(IllegalStateException.class, thrown.get());
        assertTrue(flag.get());
        assertFalse(work.isCompleted());
        work.abort();
    }

    @Test
    void emptyMonoIsASuccessWithNoValue() {
        Work work = Work.of(Mono.empty(), OpType.BARRIER, 0);
        assertTrue(work.wait(WAIT));
        assertEquals(null, work.future().getNow("absent"));
        assertTrue(work.toString().contains("barrier[seq=0]"), work.toString());
    }
}
