package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaMemoryType;
import jcuda.runtime.cudaPointerAttributes;
import jcuda.runtime.cudaMemcpyKind;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.Objects;

/**
 * Asynchronous copies between host and device memory as completion signals.
 *
 * <p>Each copy is enqueued with {@code cudaMemcpyAsync} on the device's dedicated copy stream
 * ({@link CudaStreams}: one for host-to-device, one for device-to-host and device-to-device
 * copies), followed by {@code cudaEventRecord}; the wait for that event
 * ({@code cudaEventSynchronize}) runs on {@link CudaScheduler}, never on the subscriber's thread, and
 * the returned {@code Mono} completes after it. The waiting thread spins, as PyTorch's
 * {@code synchronize()} does, for the lowest latency; with the system property
 * {@code rc.cuda.blockingSync=true} the events are created with {@code cudaEventBlockingSync} and
 * the thread sleeps instead (for hosts with few cores). Before the copy, the copy stream waits (an event, not
 * the host) for the work already enqueued on the producer stream, the legacy default stream unless
 * another is given, as c10d makes its side streams wait for the current stream: a tensor written by a
 * kernel is copied after the kernel. When the {@code Mono} completes, the copied bytes are visible
 * to any work enqueued afterwards, on any stream.
 *
 * <p>Host memory may be pinned (a {@link PinnedBufferPool} slab: the copy is a DMA that overlaps
 * with everything else) or pageable (any direct buffer: CUDA stages it, and the copy takes longer).
 * A copy between pinned and device memory is enqueued on the subscribing thread itself, since
 * {@code cudaMemcpyAsync} then only queues the DMA and returns: the transfer starts at once instead
 * of after a scheduler thread wakes (tens of microseconds on a virtual machine), and only the wait
 * for its event goes to {@link CudaScheduler}. A copy that involves pageable memory, which CUDA may
 * stage synchronously, is enqueued and waited for on {@link CudaScheduler}.
 * Both tensors are retained while the copy runs, so a copy that was cancelled after it started
 * still finishes before their memory can be reused.
 */
public final class CudaCopies implements CopyEngine {

    private static final int WAIT_FLAGS = JCuda.cudaEventDisableTiming
            | (CudaSettings.BLOCKING_SYNC.get() ? JCuda.cudaEventBlockingSync : 0);

    private final CudaStream producer;

    private CudaCopies(CudaStream producer) {
        this.producer = producer;
    }

    /**
     * Copies whose copy streams wait for the legacy default stream of the device involved.
     *
     * @return copies for every device, ordered after each device's legacy default stream
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaCopies create() {
        Cuda.requireAvailable("CudaCopies.create");
        return new CudaCopies(null);
    }

    /**
     * Copies that wait for the work enqueued on {@code producer} (for tensors on its device; other
     * devices' copies wait for their legacy default stream).
     *
     * @param producer the stream whose enqueued work each copy waits for
     * @return copies ordered after {@code producer}
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static CudaCopies create(CudaStream producer) {
        Cuda.requireAvailable("CudaCopies.create");
        return new CudaCopies(Objects.requireNonNull(producer, "producer"));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Fails with {@link IllegalArgumentException} when the byte sizes differ or both tensors are
     * on the CPU, with {@link CudaException} when CUDA reports an error.
     */
    @Override
    public Mono<Void> copy(Tensor src, Tensor dst) {
        return Mono.defer(() -> {
            if (!Cuda.isAvailable()) {
                return Mono.error(Cuda.unavailable("CudaCopies.copy"));
            }
            if (src.nbytes() != dst.nbytes()) {
                return Mono.error(new IllegalArgumentException("copy: " + src + " has " + src.nbytes() + " bytes, "
                        + dst + " has " + dst.nbytes()));
            }
            if (src.isCpu() && dst.isCpu()) {
                return Mono.error(new IllegalArgumentException("copy: both " + src + " and " + dst
                        + " are on the CPU; CudaCopies copies to or from a device"));
            }
            if (src.nbytes() == 0) {
                return Mono.empty();
            }
            if (isPinnedOrDevice(src) && isPinnedOrDevice(dst)) {
                return enqueueHereWaitOnScheduler(src, dst);
            }
            return Mono.<Void>fromRunnable(() -> copyAndWait(src, dst)).subscribeOn(CudaScheduler.get());
        });
    }

    /**
     * True for device memory and for page-locked host memory (cudaHostAlloc, a {@link PinnedBufferPool}
     * slab): a {@code cudaMemcpyAsync} between such memories only enqueues a DMA and returns.
     */
    private static boolean isPinnedOrDevice(Tensor t) {
        if (!t.isCpu()) {
            return true;
        }
        cudaPointerAttributes attributes = new cudaPointerAttributes();
        int rc = JCuda.cudaPointerGetAttributes(attributes, new AddressPointer(t.address()));
        if (rc != cudaError.cudaSuccess) {
            JCuda.cudaGetLastError(); // older drivers report unregistered memory as an error: clear it
            return false;
        }
        return attributes.type == cudaMemoryType.cudaMemoryTypeHost;
    }

    /**
     * The copy of pinned (or device) memory: enqueued at once on the subscribing thread, which only
     * queues a DMA, so the transfer starts without waiting for a scheduler thread to wake; the wait
     * for its event is a task on {@link CudaScheduler} that runs whether or not the subscriber is
     * still there, and only then are the tensors released, so a cancelled copy never frees memory
     * a DMA is still using. The completion is signalled after that release, so the subscriber finds
     * the tensors' reference counts as it left them.
     */
    private Mono<Void> enqueueHereWaitOnScheduler(Tensor src, Tensor dst) {
        src.retain();
        dst.retain();
        cudaEvent_t ev;
        String what;
        try {
            Device device = src.isCpu() ? dst.device() : src.device();
            boolean toDevice = src.isCpu();
            what = describe(src, dst, device);
            ev = enqueue(src, dst, device, toDevice, what);
        } catch (RuntimeException e) {
            dst.release();
            src.release();
            return Mono.error(e);
        }
        Sinks.One<Void> done = Sinks.one();
        CudaScheduler.get().schedule(() -> {
            Throwable failure = null;
            try {
                Cuda.check(JCuda.cudaEventSynchronize(ev), "cudaEventSynchronize(" + what + ")");
            } catch (Throwable e) {   // an Error too: the subscriber hears of it rather than waiting forever
                failure = e;
            } finally {
                JCuda.cudaEventDestroy(ev);
                dst.release();
                src.release();
            }
            if (failure == null) {
                done.tryEmitEmpty();
            } else {
                done.tryEmitError(failure);
            }
        });
        return done.asMono();
    }

    private static String describe(Tensor src, Tensor dst, Device device) {
        return (src.isCpu() ? "H2D" : dst.isCpu() ? "D2H" : "D2D") + " copy of " + src.nbytes() + " bytes on " + device;
    }

    /** Enqueues the copy and an event after it on the copy stream; returns the event. */
    private cudaEvent_t enqueue(Tensor src, Tensor dst, Device device, boolean toDevice, String what) {
        Cuda.setDevice(device.index());
        CudaStream stream = toDevice ? CudaStreams.hostToDevice(device) : CudaStreams.deviceToHost(device);
        waitForProducer(device, stream);
        // JCuda's wrapper rejects cudaMemcpyDefault ("Invalid cudaMemcpyKind given: 4"): name the direction.
        int kind = toDevice ? cudaMemcpyKind.cudaMemcpyHostToDevice
                : dst.isCpu() ? cudaMemcpyKind.cudaMemcpyDeviceToHost : cudaMemcpyKind.cudaMemcpyDeviceToDevice;
        Cuda.check(JCuda.cudaMemcpyAsync(new AddressPointer(dst.address()), new AddressPointer(src.address()),
                src.nbytes(), kind, stream.handle()), "cudaMemcpyAsync(" + what + ")");
        cudaEvent_t ev = newEvent(WAIT_FLAGS);
        int rc = JCuda.cudaEventRecord(ev, stream.handle());
        if (rc != cudaError.cudaSuccess) {
            JCuda.cudaEventDestroy(ev);
            Cuda.check(rc, "cudaEventRecord(" + what + ")");
        }
        return ev;
    }

    /**
     * A {@code Mono} that completes once the work enqueued on {@code stream} so far has finished
     * (an event recorded now, waited for on {@link CudaScheduler}).
     *
     * @param stream the stream to wait for
     * @return a cold {@code Mono} completing once the work enqueued on {@code stream} so far has finished
     */
    public Mono<Void> synchronize(CudaStream stream) {
        return Mono.<Void>fromRunnable(() -> {
            Cuda.setDevice(stream.device().index());
            cudaEvent_t ev = newEvent(WAIT_FLAGS);
            try {
                Cuda.check(JCuda.cudaEventRecord(ev, stream.handle()), "cudaEventRecord(" + stream + ")");
                Cuda.check(JCuda.cudaEventSynchronize(ev), "cudaEventSynchronize(" + stream + ")");
            } finally {
                JCuda.cudaEventDestroy(ev);
            }
        }).subscribeOn(CudaScheduler.get());
    }

    private void copyAndWait(Tensor src, Tensor dst) {
        src.retain();
        try {
            dst.retain();
            try {
                Device device = src.isCpu() ? dst.device() : src.device();
                String what = describe(src, dst, device);
                cudaEvent_t ev = enqueue(src, dst, device, src.isCpu(), what);
                try {
                    Cuda.check(JCuda.cudaEventSynchronize(ev), "cudaEventSynchronize(" + what + ")");
                } finally {
                    JCuda.cudaEventDestroy(ev);
                }
            } finally {
                dst.release();
            }
        } finally {
            src.release();
        }
    }

    /** Makes {@code stream} wait (on the device) for the work enqueued so far on the producer stream. */
    private void waitForProducer(Device device, CudaStream stream) {
        CudaStream p = producer != null && producer.device().equals(device) ? producer : null;
        cudaEvent_t ev = newEvent(JCuda.cudaEventDisableTiming);
        try {
            Cuda.check(JCuda.cudaEventRecord(ev, p != null ? p.handle() : JCuda.cudaStreamLegacy),
                    "cudaEventRecord(producer stream of " + device + ")");
            Cuda.check(JCuda.cudaStreamWaitEvent(stream.handle(), ev, 0), "cudaStreamWaitEvent(" + stream + ")");
        } finally {
            JCuda.cudaEventDestroy(ev);
        }
    }

    private static cudaEvent_t newEvent(int flags) {
        cudaEvent_t ev = new cudaEvent_t();
        Cuda.check(JCuda.cudaEventCreateWithFlags(ev, flags), "cudaEventCreateWithFlags");
        return ev;
    }
}
