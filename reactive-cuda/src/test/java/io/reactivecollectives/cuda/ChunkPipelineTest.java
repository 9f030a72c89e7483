package io.reactivecollectives.cuda;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The host-staging pipeline with host memory standing in for the device ({@link FakeDevice}): the
 * data path, the order of the network stage, the overlap of the three stages measured with
 * timestamps, and the return of every slab on success, error and cancel.
 */
class ChunkPipelineTest {

    private static final int CHUNK_FLOATS = 1024;

    /** "network": doubles every element of the host chunk in place, after a delay, recording the order. */
    private static Mono<Void> doubling(Tensor host, long delayMillis, List<Integer> order, int marker) {
        // the order is taken when the collective starts (is subscribed), the work after a delay
        return Mono.fromRunnable(() -> order.add((int) host.getDouble(0))).then(Mono.delay(Duration.ofMillis(delayMillis))).then(Mono.fromRunnable(() -> {
            assertTrue(host.isCpu(), "the collective runs on the host copy");
            for (long i = 0; i < host.numel(); i++) {
                host.setDouble(i, host.getDouble(i) * 2);
            }
        }));
    }

    private static float[] ramp(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    @Test
    void everyChunkGoesInThroughTheNetworkInOrderAndBackOut() {
        FakeDevice.Copies copies = new FakeDevice.Copies(0);
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), CHUNK_FLOATS * 4, 5)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, CHUNK_FLOATS * 4, 2, StageListener.NONE);
            int n = CHUNK_FLOATS * 7 + 100; // 8 chunks, the last one short
            Tensor dev = FakeDevice.floats(ramp(n));
            try {
                List<Integer> order = new CopyOnWriteArrayList<>();
                // subscribed on a non-blocking thread: BlockHound fails the class if any stage waits there
                StepVerifier.create(p.run("allReduce", 1, dev, true, true, h -> doubling(h, 1, order, 0))
                                .subscribeOn(Schedulers.parallel()))
                        .verifyComplete();
                float[] out = FakeDevice.read(dev);
                for (int i = 0; i < n; i++) {
                    assertEquals(2f * i, out[i], "element " + i);
                }
                List<Integer> expected = new ArrayList<>();
                for (int k = 0; k < 8; k++) {
                    expected.add(k * CHUNK_FLOATS);
                }
                assertEquals(expected, order, "the network stage starts the chunks in order");
                assertTrue(copies.threads.stream().allMatch(t -> t.startsWith("rc-cuda-")),
                        "copies complete on the CUDA scheduler: " + copies.threads);
                assertEquals(16, copies.threads.size(), "8 chunks in, 8 out");
                assertEquals(0, pool.leasedSlabs());
                assertTrue(pool.allocations() <= 5);
            } finally {
                dev.release();
            }
        }
    }

    @Test
    void stagesARankDoesNotNeedAreSkipped() {
        FakeDevice.Copies copies = new FakeDevice.Copies(0);
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), 4096, 3)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, 4096, 1, StageListener.NONE);
            Tensor dev = FakeDevice.floats(ramp(3000));
            try {
                // as a broadcast root: copy in, no copy back
                AtomicInteger calls = new AtomicInteger();
                StepVerifier.create(p.run("broadcast", 1, dev, true, false, h -> Mono.fromRunnable(() -> {
                    calls.incrementAndGet();
                    h.fill(-1);
                }))).verifyComplete();
                assertEquals(3, calls.get());
                assertEquals(3, copies.threads.size(), "3 copies in, none out");
                assertEquals(2999f, FakeDevice.read(dev)[2999], "the device tensor is unchanged");
                // as a receiver: no copy in, copy back what the network wrote
                StepVerifier.create(p.run("broadcast", 2, dev, false, true, h -> Mono.fromRunnable(() -> h.fill(7))))
                        .verifyComplete();
                assertEquals(6, copies.threads.size(), "3 more copies, out only");
                float[] out = FakeDevice.read(dev);
                assertEquals(7f, out[0]);
                assertEquals(7f, out[2999]);
            } finally {
                dev.release();
            }
        }
    }

    @Test
    void copyInOfTheNextChunkTheNetworkAndCopyOutOfThePreviousOverlap() {
        long copyMillis = 40;
        long netMillis = 25;
        FakeDevice.Copies copies = new FakeDevice.Copies(copyMillis);
        List<StageEvent> events = new CopyOnWriteArrayList<>();
        int chunks = 8;
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), CHUNK_FLOATS * 4, 3)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, CHUNK_FLOATS * 4, 1, events::add);
            Tensor dev = FakeDevice.floats(ramp(CHUNK_FLOATS * chunks));
            try {
                long t0 = System.nanoTime();
                StepVerifier.create(p.run("allReduce", 1, dev, true, true,
                        h -> doubling(h, netMillis, new CopyOnWriteArrayList<>(), 0))).verifyComplete();
                long total = System.nanoTime() - t0;
                assertEquals(3 * chunks, events.size(), events.toString());
                long sumOfStages = events.stream().mapToLong(StageEvent::nanos).sum();
                // on a loaded machine one stage can be late now and then; most chunks must overlap
                List<String> apart = new ArrayList<>();
                for (int k = 1; k < chunks - 1; k++) {
                    StageEvent in = find(events, k + 1, StageEvent.Stage.COPY_IN);
                    StageEvent net = find(events, k, StageEvent.Stage.NETWORK);
                    StageEvent out = find(events, k - 1, StageEvent.Stage.COPY_OUT);
                    long start = Math.max(in.startNanos(), Math.max(net.startNanos(), out.startNanos()));
                    long end = Math.min(in.endNanos(), Math.min(net.endNanos(), out.endNanos()));
                    if (end <= start) {
                        apart.add("chunk " + k + ": " + in + " " + net + " " + out);
                    }
                }
                assertTrue(apart.size() <= (chunks - 2) / 3, "copy in of chunk k+1, network of chunk k and copy out of "
                        + "chunk k-1 run at the same time for most k; apart: " + apart);
                // one stage after the other would take the sum of all stages; overlapped it takes about
                // chunks x the slowest stage plus the fill and drain
                assertTrue(total < 0.6 * sumOfStages, "total " + total / 1_000_000 + " ms vs stages one after the other "
                        + sumOfStages / 1_000_000 + " ms");
                for (int k = 0; k < chunks; k++) {
                    assertTrue(find(events, k, StageEvent.Stage.COPY_IN).endNanos() <= find(events, k, StageEvent.Stage.NETWORK).startNanos());
                    assertTrue(find(events, k, StageEvent.Stage.NETWORK).endNanos() <= find(events, k, StageEvent.Stage.COPY_OUT).startNanos());
                }
                assertEquals(2f * 5000, FakeDevice.read(dev)[5000]);
                assertEquals(0, pool.leasedSlabs());
            } finally {
                dev.release();
            }
        }
    }

    private static StageEvent find(List<StageEvent> events, int chunk, StageEvent.Stage stage) {
        return events.stream().filter(e -> e.chunk() == chunk && e.stage() == stage).findFirst()
                .orElseThrow(() -> new AssertionError("no " + stage + " of chunk " + chunk + " in " + events));
    }

    @Test
    void aNetworkErrorFailsTheOperationAndEverySlabComesBack() throws InterruptedException {
        FakeDevice.Copies copies = new FakeDevice.Copies(5);
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), 4096, 5)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, 4096, 2, StageListener.NONE);
            Tensor dev = FakeDevice.floats(ramp(1024 * 10));
            try {
                AtomicInteger seen = new AtomicInteger();
                StepVerifier.create(p.run("allReduce", 1, dev, true, true, h -> seen.incrementAndGet() == 4
                                ? Mono.error(new IllegalStateException("allReduce[seq=4] rank 0: peer 1 closed the connection"))
                                : Mono.empty()))
                        .expectErrorMessage("allReduce[seq=4] rank 0: peer 1 closed the connection")
                        .verify(Duration.ofSeconds(10));
                awaitNoLeases(pool);
                assertEquals(4, seen.get(), "no chunk after the failed one reaches the network");
            } finally {
                dev.release();
            }
        }
    }

    @Test
    void cancellingTheOperationReturnsEverySlab() throws InterruptedException {
        FakeDevice.Copies copies = new FakeDevice.Copies(5);
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), 4096, 5)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, 4096, 2, StageListener.NONE);
            Tensor dev = FakeDevice.floats(ramp(1024 * 10));
            try {
                StepVerifier.create(p.run("allReduce", 1, dev, true, true, h -> Mono.never()))
                        .expectSubscription()
                        .expectNoEvent(Duration.ofMillis(100))
                        .then(() -> assertTrue(pool.leasedSlabs() > 0, "slabs in use while the network stage waits"))
                        .thenCancel()
                        .verify(Duration.ofSeconds(5));
                awaitNoLeases(pool);
            } finally {
                dev.release();
            }
        }
    }

    @Test
    void anEmptyTensorStillRunsOneCollective() {
        FakeDevice.Copies copies = new FakeDevice.Copies(0);
        try (PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), 4096, 2)) {
            ChunkPipeline p = new ChunkPipeline(copies, pool, 4096, 2, StageListener.NONE);
            Tensor dev = FakeDevice.tensor(DType.FLOAT32, 0);
            try {
                AtomicInteger calls = new AtomicInteger();
                StepVerifier.create(p.run("allReduce", 1, dev, true, true, h -> Mono.fromRunnable(() -> {
                    assertEquals(0, h.numel());
                    calls.incrementAndGet();
                }))).verifyComplete();
                assertEquals(1, calls.get(), "every rank issues the same collectives, empty or not");
            } finally {
                dev.release();
            }
        }
    }

    private static void awaitNoLeases(PinnedBufferPool pool) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (pool.leasedSlabs() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, pool.leasedSlabs(), "every slab back: " + pool);
    }
}
