package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.ReferenceCounted;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A bounded pool of equally sized host buffers ("slabs"), page-locked for asynchronous CUDA copies
 * ({@link #pinned}), or of any {@link HostAllocator}.
 *
 * <p>{@link #acquire()} emits a slab as a Netty {@link ByteBuf} (direct, with a memory address,
 * capacity {@link #slabBytes()}, reader and writer index 0). Releasing that buffer, or the last
 * derived buffer or {@code Tensor} that shares its count ({@code Tensor.wrap(buf, dtype, shape)}
 * takes ownership of it), returns the slab to the pool; the memory is reused, never freed while the
 * pool is open. At most {@link #maxSlabs()} slabs are ever allocated, lazily, on the allocator's
 * scheduler. When all are in use, {@code acquire()} waits, without holding a thread, until one is
 * returned; waiting acquirers are served first come, first served, and cancelling a waiting
 * acquire withdraws it. Leases are watched by Netty's leak detector.
 *
 * <p>Use one pool per rank (per group): ranks that share a pool could hold each other's slabs while
 * waiting for each other's collectives.
 */
public final class PinnedBufferPool implements AutoCloseable {

    private static final class LeakHolder {
        static final ResourceLeakDetector<ByteBuf> DETECTOR =
                ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class);
    }

    private final HostAllocator allocator;
    private final int slabBytes;
    private final int maxSlabs;

    // guarded by this
    private final ArrayDeque<ByteBuffer> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int allocated;      // slabs allocated, or being allocated
    private int leased;
    private long allocations;   // successful allocator calls over the pool's life
    private boolean closed;

    /**
     * A pool of at most {@code maxSlabs} slabs of {@code slabBytes} from {@code allocator}.
     *
     * @param allocator where slabs are allocated and freed
     * @param slabBytes size of each slab in bytes
     * @param maxSlabs  the most slabs allocated at once
     * @throws IllegalArgumentException for a non-positive size or count
     */
    public PinnedBufferPool(HostAllocator allocator, int slabBytes, int maxSlabs) {
        if (slabBytes <= 0) {
            throw new IllegalArgumentException("PinnedBufferPool: slab size must be > 0, got " + slabBytes);
        }
        if (maxSlabs <= 0) {
            throw new IllegalArgumentException("PinnedBufferPool: slab count must be > 0, got " + maxSlabs);
        }
        this.allocator = allocator;
        this.slabBytes = slabBytes;
        this.maxSlabs = maxSlabs;
    }

    /**
     * A pool of page-locked slabs from {@code cudaHostAlloc}.
     *
     * @param slabBytes size of each slab in bytes
     * @param maxSlabs  the most slabs allocated at once
     * @return the pool
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static PinnedBufferPool pinned(int slabBytes, int maxSlabs) {
        Cuda.requireAvailable("PinnedBufferPool.pinned");
        return new PinnedBufferPool(HostAllocator.pinned(), slabBytes, maxSlabs);
    }

    /**
     * A new, empty pool with this pool's allocator, slab size and slab count.
     *
     * @return the new pool
     */
    public PinnedBufferPool sibling() {
        return new PinnedBufferPool(allocator, slabBytes, maxSlabs);
    }

    /**
     * A cold {@code Mono} that emits a free slab when one is available (at once when one is idle,
     * after an allocation when fewer than {@link #maxSlabs()} exist, else when one is returned), or
     * fails with {@link IllegalStateException} when the pool is closed, or with the allocator's
     * error. The subscriber owns the buffer and must release it.
     *
     * @return a cold {@code Mono} emitting a slab owned by the subscriber until returned
     */
    public Mono<ByteBuf> acquire() {
        return Mono.<ByteBuf>create(this::enqueue)
                .doOnDiscard(ByteBuf.class, ReferenceCounted::release);
    }

    /**
     * Acquires a slab, runs {@code use} with it, and returns the slab when the {@code Mono} that
     * {@code use} returned completes, fails or is cancelled ({@code use} must not release it).
     *
     * @param <T> what {@code use} emits
     * @param use the work done with the slab
     * @return a cold {@code Mono} emitting what {@code use} emits
     */
    public <T> Mono<T> withSlab(Function<ByteBuf, Mono<T>> use) {
        return Mono.usingWhen(acquire(), use, b -> Mono.fromRunnable(b::release),
                (b, e) -> Mono.fromRunnable(b::release), b -> Mono.fromRunnable(b::release));
    }

    private void enqueue(MonoSink<ByteBuf> sink) {
        Waiter w = new Waiter(sink);
        sink.onCancel(() -> withdraw(w));
        ByteBuffer ready = null;
        boolean grow = false;
        boolean isClosed;
        synchronized (this) {
            isClosed = closed;
            if (!closed) {
                if (!idle.isEmpty() && waiters.isEmpty()) {
                    ready = idle.pollFirst();
                    leased++;
                } else {
                    waiters.addLast(w);
                    if (allocated < maxSlabs && waiters.size() > idle.size()) {
                        allocated++;
                        grow = true;
                    }
                }
            }
        }
        if (isClosed) {
            sink.error(closedError());
        } else if (ready != null) {
            sink.success(lease(ready));
        } else if (grow) {
            allocateOne();
        }
    }

    private void allocateOne() {
        allocator.scheduler().schedule(() -> {
            ByteBuffer region;
            try {
                region = allocator.allocate(slabBytes);
            } catch (Throwable t) {
                Waiter w;
                synchronized (this) {
                    allocated--;
                    w = waiters.pollFirst();
                }
                if (w != null) {
                    w.sink.error(new IllegalStateException("PinnedBufferPool: " + allocator.name() + " allocation of "
                            + slabBytes + " bytes failed: " + t, t));
                }
                return;
            }
            synchronized (this) {
                allocations++;
            }
            dispatch(region);
        });
    }

    private void withdraw(Waiter w) {
        w.cancelled = true;
        synchronized (this) {
            waiters.remove(w);
        }
    }

    /** A slab came back (or was allocated): to the oldest live waiter, else idle; freed when closed. */
    private void dispatch(ByteBuffer region) {
        for (;;) {
            Waiter w;
            synchronized (this) {
                if (closed) {
                    allocated--;
                    w = null;
                } else {
                    w = waiters.pollFirst();
                    if (w == null) {
                        idle.addLast(region);
                        return;
                    }
                    if (w.cancelled) {
                        continue;
                    }
                    leased++;
                }
            }
            if (w == null) {
                freeRegion(region);
                return;
            }
            // a sink cancelled from here on discards the lease, and the discard hook returns it
            w.sink.success(lease(region));
            return;
        }
    }

    private void returned(ByteBuffer region) {
        synchronized (this) {
            leased--;
        }
        dispatch(region);
    }

    private ByteBuf lease(ByteBuffer region) {
        Slab slab = new Slab(this, region);
        slab.leak = LeakHolder.DETECTOR.track(slab);
        return slab;
    }

    private void freeRegion(ByteBuffer region) {
        allocator.scheduler().schedule(() -> allocator.free(region));
    }

    private static IllegalStateException closedError() {
        return new IllegalStateException("PinnedBufferPool is closed");
    }

    /**
     * Size of each slab in bytes.
     *
     * @return the slab size
     */
    public int slabBytes() {
        return slabBytes;
    }

    /**
     * The most slabs this pool allocates.
     *
     * @return the slab limit
     */
    public int maxSlabs() {
        return maxSlabs;
    }

    /**
     * Slabs allocated (or being allocated) now.
     *
     * @return the number of allocated slabs
     */
    public synchronized int allocatedSlabs() {
        return allocated;
    }

    /**
     * Slabs held by acquirers now.
     *
     * @return the number of leased slabs
     */
    public synchronized int leasedSlabs() {
        return leased;
    }

    /**
     * Slabs allocated and free now.
     *
     * @return the number of idle slabs
     */
    public synchronized int idleSlabs() {
        return idle.size();
    }

    /**
     * Acquirers waiting for a slab now.
     *
     * @return the number of waiting acquirers
     */
    public synchronized int waitingAcquirers() {
        return waiters.size();
    }

    /**
     * Successful allocations over the pool's life (never above {@link #maxSlabs()} while slabs are reused).
     *
     * @return the number of allocations so far
     */
    public synchronized long allocations() {
        return allocations;
    }

    /**
     * The allocator's name ({@code pinned}, {@code direct}).
     *
     * @return the allocator's name
     */
    public String allocatorName() {
        return allocator.name();
    }

    /**
     * Closes the pool: idle slabs are freed now (on the allocator's scheduler), leased ones when
     * they are released; waiting acquirers and later {@link #acquire()}s fail.
     */
    @Override
    public void close() {
        List<ByteBuffer> toFree;
        List<Waiter> toFail;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toFree = new ArrayList<>(idle);
            allocated -= idle.size();
            idle.clear();
            toFail = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (ByteBuffer b : toFree) {
            freeRegion(b);
        }
        for (Waiter w : toFail) {
            w.sink.error(closedError());
        }
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "PinnedBufferPool[" + allocator.name() + ", " + slabBytes + " bytes x " + maxSlabs + ": allocated "
                    + allocated + ", leased " + leased + ", idle " + idle.size() + ", waiting " + waiters.size() + "]";
        }
    }

    private static final class Waiter {
        final MonoSink<ByteBuf> sink;
        volatile boolean cancelled;

        Waiter(MonoSink<ByteBuf> sink) {
            this.sink = sink;
        }
    }

    /** One lease of a slab: a direct buffer over the slab's memory that gives the slab back when released. */
    private static final class Slab extends UnpooledUnsafeDirectByteBuf {
        private final PinnedBufferPool pool;
        private final ByteBuffer region;
        ResourceLeakTracker<ByteBuf> leak;

        Slab(PinnedBufferPool pool, ByteBuffer region) {
            super(UnpooledByteBufAllocator.DEFAULT, region.duplicate(), region.capacity());
            this.pool = pool;
            this.region = region;
            clear();
        }

        @Override
        public ByteBuf touch(Object hint) {
            if (leak != null) {
                leak.record(hint);
            }
            return this;
        }

        @Override
        @SuppressWarnings("deprecation")
        protected void freeDirect(ByteBuffer buffer) {
            // the slab's memory belongs to the pool
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            if (leak != null) {
                leak.close(this);
            }
            pool.returned(region);
        }
    }
}
