package io.reactivecollectives.cuda;

import io.netty.util.internal.PlatformDependent;
import jcuda.runtime.JCuda;
import reactor.core.scheduler.Scheduler;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Page-locked host memory from {@code cudaHostAlloc}, portable to every device. */
final class CudaHostAllocator implements HostAllocator {

    @Override
    public ByteBuffer allocate(int bytes) {
        AddressPointer p = new AddressPointer();
        Cuda.check(JCuda.cudaHostAlloc(p, Math.max(1, bytes), JCuda.cudaHostAllocPortable),
                "cudaHostAlloc(" + bytes + " bytes)");
        return p.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
    }

    @Override
    public void free(ByteBuffer buffer) {
        long address = PlatformDependent.directBufferAddress(buffer);
        Cuda.check(JCuda.cudaFreeHost(new AddressPointer(address)), "cudaFreeHost");
    }

    @Override
    public Scheduler scheduler() {
        return CudaScheduler.get();
    }

    @Override
    public String name() {
        return "pinned";
    }
}
