package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import jcuda.runtime.JCuda;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** On a machine with a GPU: discovery, copies, pinned slabs and device memory tied to the reference count. */
class CudaDeviceTest {

    private static final Device CUDA0 = Device.cuda(0);

    @BeforeEach
    void needsAGpu() {
        assumeTrue(Cuda.isAvailable(), () -> "no usable GPU: " + Cuda.unavailableReason());
    }

    private static float[] ramp(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i * 0.5f - 7;
        }
        return v;
    }

    @Test
    void devicesAreDiscovered() {
        assertTrue(Cuda.deviceCount() >= 1);
        CudaDeviceInfo info = Cuda.device(0);
        assertFalse(info.name().isBlank(), info.toString());
        assertTrue(info.totalMemory() > 0, info.toString());
        assertTrue(info.major() >= 3, info.toString());
        assertEquals(Cuda.deviceCount(), Cuda.devices().size());
        long[] mem = Cuda.memoryInfo(0);
        assertTrue(mem[0] > 0 && mem[0] <= mem[1], "free " + mem[0] + " of " + mem[1]);
    }

    @Test
    void hostToDeviceToHostRoundTripCompletesOnTheCudaScheduler() {
        CudaCopies copies = CudaCopies.create();
        Tensor src = Tensor.fromFloats(ramp(1 << 20));
        Tensor dev = CudaTensors.empty(CUDA0, DType.FLOAT32, 1 << 20);
        Tensor back = Tensor.zeros(DType.FLOAT32, 1 << 20);
        List<String> threads = new CopyOnWriteArrayList<>();
        try {
            assertEquals(CUDA0, dev.device());
            // subscribed from a parallel (non-blocking) thread: the wait must not happen there
            StepVerifier.create(copies.copy(src, dev)
                            .then(Mono.fromRunnable(() -> threads.add(Thread.currentThread().getName())))
                            .then(copies.copy(dev, back))
                            .then(Mono.fromRunnable(() -> threads.add(Thread.currentThread().getName())))
                            .subscribeOn(Schedulers.parallel()))
                    .expectComplete().verify(Duration.ofSeconds(60));
            assertTrue(back.contentEquals(src), "the bytes came back");
            assertTrue(threads.stream().allMatch(t -> t.startsWith("rc-cuda-")), threads.toString());
        } finally {
            src.release();
            dev.release();
            back.release();
        }
    }

    @Test
    void slicesOfDeviceTensorsCopyTheirOwnBytes() {
        CudaCopies copies = CudaCopies.create();
        Tensor src = Tensor.fromFloats(ramp(1000));
        Tensor dev = CudaTensors.zeros(CUDA0, DType.FLOAT32, 1000);
        try {
            Tensor part = src.narrow(100, 50);
            StepVerifier.create(copies.copy(part, dev.narrow(900, 50))).expectComplete().verify(Duration.ofSeconds(60));
            Tensor all = CudaTensors.toHost(dev, copies).block(Duration.ofSeconds(10));
            try {
                assertEquals(0f, (float) all.getDouble(899));
                assertEquals(src.getDouble(100), all.getDouble(900));
                assertEquals(src.getDouble(149), all.getDouble(949));
            } finally {
                all.release();
            }
        } finally {
            src.release();
            dev.release();
        }
    }

    @Test
    void copiesWaitForWorkOnTheProducerStream() {
        CudaCopies copies = CudaCopies.create();
        Tensor dev = CudaTensors.empty(CUDA0, DType.INT32, 1 << 24);
        Tensor host = Tensor.empty(DType.INT32, 1 << 24);
        try {
            Cuda.setDevice(0);
            // enqueued on the legacy default stream, not waited for by the host
            Cuda.check(JCuda.cudaMemsetAsync(new AddressPointer(dev.address()), 0x01, dev.nbytes(), JCuda.cudaStreamLegacy),
                    "cudaMemsetAsync");
            StepVerifier.create(copies.copy(dev, host)).expectComplete().verify(Duration.ofSeconds(60));
            assertEquals(0x01010101, host.getLong(0));
            assertEquals(0x01010101, host.getLong((1 << 24) - 1));
        } finally {
            dev.release();
            host.release();
        }
    }

    @Test
    void aCopyHasDroppedItsReferencesWhenItCompletes() {
        CudaCopies copies = CudaCopies.create();
        Tensor a = CudaTensors.empty(CUDA0, DType.FLOAT32, 1 << 20);
        Tensor b = CudaTensors.empty(CUDA0, DType.FLOAT32, 1 << 20);
        try {
            // read on the thread the completion arrives on, before anything else can run: a copy that released
            // its tensors after signalling would still hold one reference on each here
            StepVerifier.create(copies.copy(a, b).then(Mono.fromCallable(() -> a.refCnt() + "," + b.refCnt())))
                    .expectNext("1,1").expectComplete().verify(Duration.ofSeconds(60));
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void pinnedSlabsStageCopiesBothWays() {
        CudaCopies copies = CudaCopies.create();
        try (PinnedBufferPool pool = PinnedBufferPool.pinned(1 << 20, 2)) {
            assertEquals("pinned", pool.allocatorName());
            Tensor dev = CudaTensors.empty(CUDA0, DType.FLOAT32, 1 << 18);
            Tensor src = Tensor.fromFloats(ramp(1 << 18));
            try {
                // the view is released eagerly, before the completion reaches the verifier; the copies drop their
                // own references before they complete (seen on an H200 before they did: 1 slab still leased here)
                StepVerifier.create(pool.withSlab(slab -> {
                    slab.writerIndex(1 << 20);
                    return Mono.using(() -> Tensor.wrap(slab.retain(), DType.FLOAT32, 1 << 18), pinned -> {
                        pinned.copyFrom(src);
                        return copies.copy(pinned, dev)
                                .then(Mono.fromRunnable(() -> pinned.fill(0)))
                                .then(copies.copy(dev, pinned))
                                .then(Mono.fromCallable(() -> pinned.contentEquals(src)));
                    }, Tensor::release, true);
                })).expectNext(true).expectComplete().verify(Duration.ofSeconds(60));
                assertEquals(0, pool.leasedSlabs());
            } finally {
                dev.release();
                src.release();
            }
        }
    }

    @Test
    void deviceMemoryIsFreedWhenTheLastReferenceIsReleased() throws InterruptedException {
        long bytes = 512L << 20;
        long before = Cuda.memoryInfo(0)[0];
        Tensor t = CudaTensors.empty(CUDA0, DType.UINT8, bytes);
        long during = Cuda.memoryInfo(0)[0];
        assertTrue(before - during >= bytes, "allocated: free went from " + before + " to " + during);
        Tensor view = t.slice(0, 10).retain();
        t.release();
        Thread.sleep(200);
        assertTrue(Cuda.memoryInfo(0)[0] < before - bytes / 2, "a view still holds the memory");
        view.release();
        long deadline = System.nanoTime() + 10_000_000_000L;
        long after = Cuda.memoryInfo(0)[0];
        while (after < during + bytes && System.nanoTime() < deadline) {
            Thread.sleep(20);
            after = Cuda.memoryInfo(0)[0];
        }
        assertTrue(after >= during + bytes, "freed on the last release: free " + after + ", was " + during);
    }

    @Test
    void slabByteBufsAreReleasedByTensorsAndReused() {
        try (PinnedBufferPool pool = PinnedBufferPool.pinned(4096, 1)) {
            ByteBuf b = pool.acquire().block(Duration.ofSeconds(10));
            long address = b.memoryAddress();
            b.writerIndex(4096);
            Tensor.wrap(b, DType.UINT8, 4096).release();
            ByteBuf again = pool.acquire().block(Duration.ofSeconds(10));
            assertEquals(address, again.memoryAddress());
            again.release();
            assertEquals(1, pool.allocations());
        }
    }
}
