package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.testkit.Guards;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CudaMemory's reference counting, driven through its package seam with host memory standing in
 * for device memory (the CUDA allocation itself is covered by {@link CudaDeviceTest}).
 */
class CudaMemoryTest {

    private static final class Freed {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final CountDownLatch latch = new CountDownLatch(1);
    }

    private static CudaMemory fake(long bytes, Scheduler scheduler, Freed freed, ByteBuf backing) {
        return CudaMemory.wrap(Device.cuda(0), backing.memoryAddress(), bytes, scheduler, a -> {
            freed.calls.add(Long.toHexString(a) + "@" + Thread.currentThread().getName());
            backing.release();
            freed.latch.countDown();
        });
    }

    @Test
    void slicesShareTheCountAndTheLastReleaseFreesOnceOnTheFreeScheduler() throws InterruptedException {
        Scheduler freeScheduler = Schedulers.newSingle("free-test");
        try {
            Freed freed = new Freed();
            ByteBuf backing = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            long base = backing.memoryAddress();
            CudaMemory m = fake(64, freeScheduler, freed, backing);
            assertEquals(1, m.refCnt());
            assertEquals(Device.cuda(0), m.device());
            CudaMemory s = m.slice(16, 32);
            assertEquals(base + 16, s.address());
            assertEquals(32, s.byteSize());
            CudaMemory ss = s.slice(8, 8);
            assertEquals(base + 24, ss.address());
            s.retain();
            assertEquals(2, m.refCnt(), "a slice's retain counts for the allocation");
            assertTrue(!m.release());
            assertTrue(freed.calls.isEmpty());
            assertTrue(ss.release(), "releasing a view releases the allocation");
            assertTrue(freed.latch.await(5, TimeUnit.SECONDS));
            Thread.sleep(20);
            assertEquals(1, freed.calls.size(), "freed exactly once: " + freed.calls);
            assertEquals(Long.toHexString(base) + "@", freed.calls.get(0).substring(0,
                    freed.calls.get(0).indexOf('@') + 1), "the allocation's own address is freed");
            assertTrue(freed.calls.get(0).contains("free-test"), "on the free scheduler: " + freed.calls);
            assertThrows(IllegalReferenceCountException.class, () -> m.slice(0, 1));
            assertThrows(IllegalReferenceCountException.class, m::retain);
        } finally {
            freeScheduler.dispose();
        }
    }

    @Test
    void sliceBoundsAreChecked() {
        Freed freed = new Freed();
        ByteBuf backing = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        CudaMemory m = fake(64, Schedulers.immediate(), freed, backing);
        try {
            assertThrows(IndexOutOfBoundsException.class, () -> m.slice(60, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> m.slice(-1, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> m.slice(0, -1));
            assertEquals(0, m.slice(64, 0).byteSize());
        } finally {
            m.release();
        }
        assertEquals(1, freed.calls.size());
    }

    @Test
    void aDeviceTensorOwnsItsMemoryAndItsViewsShareTheCount() {
        Freed freed = new Freed();
        ByteBuf backing = PooledByteBufAllocator.DEFAULT.directBuffer(40);
        Tensor t = fake(40, Schedulers.immediate(), freed, backing).asTensor(DType.FLOAT32, 2, 5);
        assertEquals(Device.cuda(0), t.device());
        assertTrue(!t.isCpu());
        Tensor row = t.slice(1, 2);
        assertEquals(backing.memoryAddress() + 20, row.address());
        Tensor piece = t.flatten().narrow(3, 4);
        assertEquals(backing.memoryAddress() + 12, piece.address());
        assertThrows(IllegalStateException.class, () -> t.getDouble(0), "no element access on a device tensor");
        assertThrows(IllegalArgumentException.class,
                () -> Tensor.onDevice(((CudaMemory) t.deviceMemory()).slice(0, 12), DType.FLOAT32, 4));
        row.release();
        assertEquals(1, freed.calls.size(), "the tensor's last release frees its device memory");
        assertEquals(0, t.refCnt());
    }

    @Test
    void anAllocationThatIsNeverReleasedIsReportedAsALeak() {
        leakOne();
        boolean found = false;
        for (int i = 0; i < 10 && !found; i++) {
            Guards.collectLeaks();
            // the detector polls its queue when a tracked object of the same kind is created
            Freed f = new Freed();
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(8);
            fake(8, Schedulers.immediate(), f, b).release();
            found = Guards.leaks().stream().anyMatch(l -> l.contains("CudaMemory"));
        }
        List<String> leaks = Guards.drainLeaks();
        assertTrue(found, "leak of a CudaMemory reported: " + leaks);
        // only the planted leak may be drained here: any other leak fails the test
        assertTrue(leaks.stream().allMatch(l -> l.contains("CudaMemory")), "other leaks: " + leaks);
    }

    private static void leakOne() {
        // backed by a heap-free fake address: nothing real leaks, only the tracked allocation
        CudaMemory.wrap(Device.cuda(0), 0x1000, 16, Schedulers.immediate(), a -> { });
    }
}
