package io.reactivecollectives.cuda;

import reactor.core.scheduler.Scheduler;

import java.nio.ByteBuffer;

/**
 * Allocates the host memory of a {@link PinnedBufferPool}'s slabs: page-locked memory from
 * {@code cudaHostAlloc} ({@link #pinned()}) or plain direct memory ({@link #direct()}, for hosts
 * without CUDA and for tests of the pool's bookkeeping).
 */
public interface HostAllocator {

    /**
     * Allocates {@code bytes} of host memory. Runs on {@link #scheduler()}.
     *
     * @param bytes the capacity to allocate
     * @return a direct buffer in native order, position 0, capacity {@code bytes}
     */
    ByteBuffer allocate(int bytes);

    /**
     * Frees a buffer {@link #allocate} returned. Runs on {@link #scheduler()}.
     *
     * @param buffer a buffer this allocator returned, not used afterwards
     */
    void free(ByteBuffer buffer);

    /**
     * Where allocations and frees run (they may block: never an event loop).
     *
     * @return the scheduler that allocations and frees run on
     */
    Scheduler scheduler();

    /**
     * A short description for messages ({@code pinned}, {@code direct}).
     *
     * @return the allocator's name
     */
    String name();

    /**
     * Page-locked host memory from {@code cudaHostAlloc(cudaHostAllocPortable)}, usable for
     * asynchronous copies with every device; allocated and freed on {@link CudaScheduler}.
     *
     * @return the pinned allocator
     * @throws IllegalStateException when CUDA is unavailable
     */
    static HostAllocator pinned() {
        Cuda.requireAvailable("HostAllocator.pinned");
        return new CudaHostAllocator();
    }

    /**
     * Direct (pageable) memory from {@link ByteBuffer#allocateDirect}, allocated on the calling scheduler's thread.
     *
     * @return the pageable direct-memory allocator
     */
    static HostAllocator direct() {
        return new DirectHostAllocator();
    }
}
