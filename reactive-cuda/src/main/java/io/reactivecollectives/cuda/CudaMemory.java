package io.reactivecollectives.cuda;

import io.netty.util.AbstractReferenceCounted;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.DeviceMemory;
import io.reactivecollectives.core.Tensor;
import jcuda.runtime.JCuda;
import reactor.core.scheduler.Scheduler;

import java.util.function.LongConsumer;

/**
 * Memory of one CUDA device from {@code cudaMalloc}, reference counted.
 *
 * <p>A new allocation has a count of 1. {@link #slice} views share the count of the allocation they
 * view, as Netty's derived buffers do: releasing a view releases the allocation. When the count
 * reaches 0 the memory is handed to {@link CudaScheduler} and freed there with {@code cudaFree}
 * (which synchronises the device), so the last release may happen on any thread, an event loop
 * included. Allocations are watched by Netty's leak detector like buffers: one that is garbage
 * collected unreleased is reported.
 */
public final class CudaMemory implements DeviceMemory {

    private static final class LeakHolder {
        static final ResourceLeakDetector<CudaMemory> DETECTOR =
                ResourceLeakDetectorFactory.instance().newResourceLeakDetector(CudaMemory.class);
    }

    private final Root root;
    private final long offset;
    private final long length;

    private CudaMemory(Root root, long offset, long length) {
        this.root = root;
        this.offset = offset;
        this.length = length;
    }

    /**
     * Allocates {@code bytes} on {@code device} with {@code cudaMalloc}, on the calling thread
     * ({@code cudaMalloc} may wait for the device: call it off event loops).
     *
     * @param device the CUDA device to allocate on
     * @param bytes  the size in bytes
     * @return the allocation, owned by the caller (one reference)
     * @throws IllegalStateException when CUDA is unavailable
     * @throws IllegalArgumentException for a CPU device, a missing device or a negative size
     * @throws CudaException when the allocation fails (out of memory)
     */
    public static CudaMemory allocate(Device device, long bytes) {
        Cuda.requireAvailable("CudaMemory.allocate");
        if (!device.isCuda()) {
            throw new IllegalArgumentException("CudaMemory.allocate: " + device + " is not a CUDA device");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("CudaMemory.allocate: negative size " + bytes);
        }
        Cuda.checkIndex(device.index());
        Cuda.setDevice(device.index());
        AddressPointer p = new AddressPointer();
        // cudaMalloc(0) returns a null pointer; allocate one byte so that every allocation has an address
        Cuda.check(JCuda.cudaMalloc(p, Math.max(1, bytes)), "cudaMalloc(" + bytes + " bytes) on " + device);
        long address = p.address();
        int index = device.index();
        return wrap(device, address, bytes, CudaScheduler.get(), a -> {
            Cuda.setDevice(index);
            Cuda.check(JCuda.cudaFree(new AddressPointer(a)), "cudaFree on " + device);
        });
    }

    /**
     * Memory of {@code bytes} at {@code address} of {@code device}, freed by {@code free} on
     * {@code freeScheduler} once released. The seam through which tests drive the reference counting
     * with plain host memory standing in for a device.
     */
    static CudaMemory wrap(Device device, long address, long bytes, Scheduler freeScheduler, LongConsumer free) {
        Root root = new Root(device, address, bytes, freeScheduler, free);
        root.leak = LeakHolder.DETECTOR.track(root.view);
        return root.view;
    }

    /**
     * A new tensor of {@code dtype} and {@code shape} in this memory; takes ownership of one reference.
     *
     * @param dtype the element type
     * @param shape the tensor's shape; its byte size must fit this memory
     * @return a tensor over this memory, owning the reference taken
     */
    public Tensor asTensor(DType dtype, long... shape) {
        return Tensor.onDevice(this, dtype, shape);
    }

    @Override
    public Device device() {
        return root.device;
    }

    @Override
    public long address() {
        return root.address + offset;
    }

    @Override
    public long byteSize() {
        return length;
    }

    @Override
    public CudaMemory slice(long off, long len) {
        if (root.refCnt() == 0) {
            throw new IllegalReferenceCountException(0);
        }
        if (off < 0 || len < 0 || off + len > length) {
            throw new IndexOutOfBoundsException("slice [" + off + ", " + (off + len) + ") of " + length + " bytes");
        }
        return new CudaMemory(root, offset + off, len);
    }

    @Override
    public int refCnt() {
        return root.refCnt();
    }

    @Override
    public CudaMemory retain() {
        root.retain();
        return this;
    }

    @Override
    public CudaMemory retain(int increment) {
        root.retain(increment);
        return this;
    }

    @Override
    public CudaMemory touch() {
        root.touch();
        return this;
    }

    @Override
    public CudaMemory touch(Object hint) {
        root.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return root.release();
    }

    @Override
    public boolean release(int decrement) {
        return root.release(decrement);
    }

    @Override
    public String toString() {
        return "CudaMemory[" + root.device + " 0x" + Long.toHexString(address()) + ", " + length + " bytes, refCnt "
                + root.refCnt() + "]";
    }

    /** The allocation: holds the count, frees once. */
    private static final class Root extends AbstractReferenceCounted {
        final Device device;
        final long address;
        final long bytes;
        final Scheduler freeScheduler;
        final LongConsumer free;
        final CudaMemory view;
        ResourceLeakTracker<CudaMemory> leak;

        Root(Device device, long address, long bytes, Scheduler freeScheduler, LongConsumer free) {
            this.device = device;
            this.address = address;
            this.bytes = bytes;
            this.freeScheduler = freeScheduler;
            this.free = free;
            this.view = new CudaMemory(this, 0, bytes);
        }

        @Override
        public Root touch(Object hint) {
            if (leak != null) {
                leak.record(hint);
            }
            return this;
        }

        @Override
        protected void deallocate() {
            if (leak != null) {
                leak.close(view);
            }
            freeScheduler.schedule(() -> free.accept(address));
        }
    }
}
