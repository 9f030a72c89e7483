package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaMemcpyKind;
import reactor.core.publisher.Mono;

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
 * Both tensors are retained while the copy runs, so a copy that was cancelled after it started
 * still finishes before their memory can be reused.
 */
public final class CudaCopies implements CopyEngine {

    private static final int WAIT_FLAGS = JCuda.cudaEventDisableTiming
            | (Boolean.getBoolean("rc.cuda.blockingSync") ? JCuda.cudaEventBlockingSync : 0);

    private final CudaStream producer;

    private CudaCopies(CudaStream producer) {
        this.producer = producer;
    }

    /**
     * Copies whose copy streams wait for the legacy default stream of the device involved.
     *
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
            return Mono.<Void>fromRunnable(() -> copyAndWait(src, dst)).subscribeOn(CudaScheduler.get());
        });
    }

    /**
     * A {@code Mono} that completes once the work enqueued on {@code stream} so far has finished
     * (an event recorded now, waited for on {@link CudaScheduler}).
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
                boolean toDevice = src.isCpu();
                Cuda.setDevice(device.index());
                CudaStream stream = toDevice ? CudaStreams.hostToDevice(device) : CudaStreams.deviceToHost(device);
                waitForProducer(device, stream);
                long bytes = src.nbytes();
                String what = (toDevice ? "H2D" : dst.isCpu() ? "D2H" : "D2D") + " copy of " + bytes + " bytes on " + device;
                Cuda.check(JCuda.cudaMemcpyAsync(new AddressPointer(dst.address()), new AddressPointer(src.address()),
                        bytes, cudaMemcpyKind.cudaMemcpyDefault, stream.handle()), "cudaMemcpyAsync(" + what + ")");
                cudaEvent_t ev = newEvent(WAIT_FLAGS);
                try {
                    Cuda.check(JCuda.cudaEventRecord(ev, stream.handle()), "cudaEventRecord(" + what + ")");
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
