package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pool's bookkeeping, with plain direct memory standing in for pinned memory. */
class PinnedBufferPoolTest {

    /** A direct allocator that counts allocations and frees, and can be told to fail. */
    static final class CountingAllocator implements HostAllocator {
        final AtomicInteger allocs = new AtomicInteger();
        final AtomicInteger frees = new AtomicInteger();
        volatile boolean fail;
        final HostAllocator direct = HostAllocator.direct();

        @Override
        public ByteBuffer allocate(int bytes) {
            if (fail) {
                throw new IllegalStateException("simulated out of pinned memory");
            }
            allocs.incrementAndGet();
            return direct.allocate(bytes);
        }

        @Override
        public void free(ByteBuffer buffer) {
            frees.incrementAndGet();
            direct.free(buffer);
        }

        @Override
        public Scheduler scheduler() {
            return Schedulers.immediate();
        }

        @Override
        public String name() {
            return "counting";
        }
    }

    private static ByteBuf take(PinnedBufferPool pool) {
        AtomicReference<ByteBuf> r = new AtomicReference<>();
        pool.acquire().subscribe(r::set);
        assertTrue(r.get() != null, "a slab was free: " + pool);
        return r.get();
    }

    @Test
    void slabsAreDirectBuffersOfTheSlabSizeWithAnAddress() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 4096, 2)) {
            ByteBuf b = take(pool);
            try {
                assertTrue(b.isDirect());
                assertTrue(b.hasMemoryAddress());
                assertNotEquals(0, b.memoryAddress());
                assertEquals(4096, b.capacity());
                assertEquals(0, b.readerIndex());
                assertEquals(0, b.writerIndex());
                b.writeLongLE(0x1122334455667788L);
                assertEquals(0x1122334455667788L, b.getLongLE(0));
                assertEquals(1, pool.leasedSlabs());
            } finally {
                b.release();
            }
            assertEquals(0, pool.leasedSlabs());
            assertEquals(1, pool.idleSlabs());
        }
        assertEquals(1, a.allocs.get());
        assertEquals(1, a.frees.get(), "close frees the idle slab");
    }

    @Test
    void releasedSlabsAreReusedNotReallocated() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 1024, 4)) {
            long address = -1;
            for (int i = 0; i < 20; i++) {
                ByteBuf b = take(pool);
                if (address < 0) {
                    address = b.memoryAddress();
                }
                assertEquals(address, b.memoryAddress(), "the same slab comes back");
                assertEquals(0, b.writerIndex(), "a reused slab starts empty");
                b.writerIndex(100);
                b.release();
            }
            assertEquals(1, pool.allocations());
            assertEquals(1, a.allocs.get());
        }
    }

    @Test
    void neverAllocatesMoreThanTheBoundAndWaitersGetReturnedSlabsInOrder() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 256, 2)) {
            ByteBuf first = take(pool);
            ByteBuf second = take(pool);
            List<String> served = new CopyOnWriteArrayList<>();
            List<ByteBuf> got = new CopyOnWriteArrayList<>();
            pool.acquire().subscribe(b -> { served.add("w1"); got.add(b); });
            pool.acquire().subscribe(b -> { served.add("w2"); got.add(b); });
            assertEquals(2, pool.waitingAcquirers());
            assertEquals(2, pool.allocatedSlabs());
            assertTrue(served.isEmpty(), "exhausted: acquirers wait");

            long secondAddress = second.memoryAddress();
            second.release();
            assertEquals(List.of("w1"), served, "the oldest waiter gets the first slab back");
            assertEquals(secondAddress, got.get(0).memoryAddress());
            first.release();
            assertEquals(List.of("w1", "w2"), served);
            assertEquals(2, a.allocs.get(), "no allocation beyond the bound");
            got.forEach(ByteBuf::release);
            assertEquals(2, pool.idleSlabs());
            assertEquals(0, pool.leasedSlabs());
        }
    }

    @Test
    void waitingAcquireCompletesWithoutHoldingAThread() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 256, 1)) {
            ByteBuf held = take(pool);
            long address = held.memoryAddress();
            StepVerifier.create(pool.acquire())
                    .expectSubscription()
                    .then(() -> assertEquals(1, pool.waitingAcquirers(), "waits, and the test thread goes on"))
                    .expectNoEvent(Duration.ofMillis(20))
                    .then(held::release)
                    .assertNext(b -> {
                        assertEquals(address, b.memoryAddress(), "the returned slab");
                        b.release();
                    })
                    .expectComplete()
                    .verify(Duration.ofSeconds(5));
        }
    }

    @Test
    void cancellingAWaitingAcquireWithdrawsItAndLosesNoSlab() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 256, 1)) {
            ByteBuf held = take(pool);
            AtomicReference<ByteBuf> late = new AtomicReference<>();
            Disposable waiting = pool.acquire().subscribe(late::set);
            assertEquals(1, pool.waitingAcquirers());
            waiting.dispose();
            assertEquals(0, pool.waitingAcquirers());
            held.release();
            assertNull(late.get(), "a cancelled acquirer gets nothing");
            assertEquals(1, pool.idleSlabs(), "the slab went back to the pool, not to the cancelled acquirer");
            ByteBuf again = take(pool);
            again.release();
            assertEquals(1, a.allocs.get());
        }
    }

    @Test
    void withSlabReturnsTheSlabOnSuccessErrorAndCancel() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 256, 1)) {
            StepVerifier.create(pool.withSlab(b -> Mono.just(b.capacity()))).expectNext(256).verifyComplete();
            assertEquals(0, pool.leasedSlabs());

            StepVerifier.create(pool.withSlab(b -> Mono.error(new IllegalStateException("boom"))))
                    .expectErrorMessage("boom").verify(Duration.ofSeconds(5));
            assertEquals(0, pool.leasedSlabs(), "released on error");
            assertEquals(1, pool.idleSlabs());

            StepVerifier.create(pool.withSlab(b -> Mono.never()))
                    .expectSubscription()
                    .then(() -> assertEquals(1, pool.leasedSlabs()))
                    .thenCancel()
                    .verify(Duration.ofSeconds(5));
            assertEquals(0, pool.leasedSlabs(), "released on cancel");
            assertEquals(1, a.allocs.get());
        }
    }

    @Test
    void aTensorWrappingASlabReturnsItWhenReleased() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 64, 1)) {
            ByteBuf b = take(pool);
            b.writerIndex(16);
            Tensor t = Tensor.wrap(b, DType.FLOAT32, 4);
            t.setDouble(3, 2.5);
            Tensor view = t.narrow(2, 2);
            assertEquals(2.5, view.getDouble(1));
            assertEquals(1, pool.leasedSlabs());
            t.release();
            assertEquals(0, pool.leasedSlabs());
            assertEquals(1, pool.idleSlabs());
            ByteBuf again = take(pool);
            assertEquals(2.5f, again.getFloatLE(12), "same memory");
            again.release();
        }
    }

    @Test
    void closeFailsWaitersFreesIdleSlabsNowAndLeasedOnesWhenReturned() {
        CountingAllocator a = new CountingAllocator();
        PinnedBufferPool pool = new PinnedBufferPool(a, 128, 2);
        ByteBuf one = take(pool);
        ByteBuf two = take(pool);
        two.release();
        AtomicReference<Throwable> waiterError = new AtomicReference<>();
        ByteBuf three = take(pool);
        pool.acquire().subscribe(b -> b.release(), waiterError::set);
        pool.close();
        assertTrue(waiterError.get() instanceof IllegalStateException, "waiter fails on close: " + waiterError.get());
        assertEquals(0, a.frees.get(), "both slabs are leased");
        one.release();
        three.release();
        assertEquals(2, a.frees.get(), "returned slabs are freed after close");
        assertEquals(0, pool.allocatedSlabs());
        StepVerifier.create(pool.acquire()).expectErrorMessage("PinnedBufferPool is closed").verify(Duration.ofSeconds(5));
    }

    @Test
    void anAllocationFailureFailsTheAcquirerAndIsRetriedLater() {
        CountingAllocator a = new CountingAllocator();
        try (PinnedBufferPool pool = new PinnedBufferPool(a, 128, 1)) {
            a.fail = true;
            StepVerifier.create(pool.acquire())
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof IllegalStateException);
                        assertTrue(e.getMessage().contains("counting allocation of 128 bytes failed"), e.getMessage());
                        assertTrue(e.getMessage().contains("simulated out of pinned memory"), e.getMessage());
                    })
                    .verify(Duration.ofSeconds(5));
            assertEquals(0, pool.allocatedSlabs(), "the failed slab does not count");
            a.fail = false;
            ByteBuf b = take(pool);
            b.release();
            assertEquals(1, pool.allocations());
        }
    }

    @Test
    void allocatesOnTheAllocatorsSchedulerAndBoundsConcurrentLeasesUnderLoad() throws InterruptedException {
        CountingAllocator counting = new CountingAllocator();
        Scheduler elastic = Schedulers.newBoundedElastic(2, 1000, "alloc-test");
        HostAllocator onElastic = new HostAllocator() {
            @Override
            public ByteBuffer allocate(int bytes) {
                assertTrue(Thread.currentThread().getName().startsWith("alloc-test"), Thread.currentThread().getName());
                return counting.allocate(bytes);
            }

            @Override
            public void free(ByteBuffer buffer) {
                counting.free(buffer);
            }

            @Override
            public Scheduler scheduler() {
                return elastic;
            }

            @Override
            public String name() {
                return "elastic";
            }
        };
        PinnedBufferPool pool = new PinnedBufferPool(onElastic, 512, 3);
        try {
            AtomicInteger maxInUse = new AtomicInteger();
            List<Long> sums = new ArrayList<>();
            StepVerifier.create(Flux.range(0, 300)
                            .flatMap(i -> pool.withSlab(b -> {
                                maxInUse.accumulateAndGet(pool.leasedSlabs(), Math::max);
                                b.writeIntLE(i);
                                return Mono.delay(Duration.ofMillis(i % 3))
                                        .then(Mono.fromCallable(() -> (long) b.getIntLE(0)));
                            }), 16)
                            .reduce(0L, Long::sum))
                    .assertNext(sums::add)
                    .verifyComplete();
            assertEquals(299L * 300 / 2, sums.get(0), "every lease saw only its own writes");
            assertTrue(maxInUse.get() <= 3, "at most 3 slabs leased at once, saw " + maxInUse.get());
            assertEquals(3, maxInUse.get(), "16 concurrent users use every slab");
            assertTrue(counting.allocs.get() <= 3, "allocations " + counting.allocs.get());
            assertEquals(0, pool.leasedSlabs());
            assertEquals(0, pool.waitingAcquirers());
            pool.close();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (counting.frees.get() < counting.allocs.get() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(counting.allocs.get(), counting.frees.get(), "close frees every slab on the allocator's scheduler");
        } finally {
            pool.close();
            elastic.dispose();
        }
    }
}
