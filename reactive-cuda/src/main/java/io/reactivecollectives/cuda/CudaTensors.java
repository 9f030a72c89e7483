package io.reactivecollectives.cuda;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import jcuda.runtime.JCuda;
import reactor.core.publisher.Mono;

/**
 * Factories of CUDA tensors ({@code Tensor.onDevice} over {@link CudaMemory}) and copies between a
 * CPU and a CUDA tensor. Every method fails with {@code IllegalStateException("CUDA unavailable: ...")}
 * when CUDA cannot be used.
 */
public final class CudaTensors {

    private CudaTensors() {
    }

    /**
     * A new tensor on {@code device} whose contents are unspecified. Allocates on the calling
     * thread ({@link CudaMemory#allocate}); release it to free the memory.
     *
     * @param device the CUDA device
     * @param dtype  the element type
     * @param shape  the shape
     * @return a new tensor owned by the caller
     */
    public static Tensor empty(Device device, DType dtype, long... shape) {
        Cuda.requireAvailable("CudaTensors.empty");
        long numel = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("CudaTensors.empty: negative dimension " + d);
            }
            numel = Math.multiplyExact(numel, d);
        }
        CudaMemory m = CudaMemory.allocate(device, Math.multiplyExact(numel, (long) dtype.byteSize()));
        try {
            return Tensor.onDevice(m, dtype, shape);
        } catch (RuntimeException e) {
            m.release();
            throw e;
        }
    }

    /**
     * A new zero-filled tensor on {@code device} ({@code cudaMemset}, synchronous, on the calling thread).
     *
     * @param device the CUDA device
     * @param dtype  the element type
     * @param shape  the shape
     * @return a new zero-filled tensor owned by the caller
     */
    public static Tensor zeros(Device device, DType dtype, long... shape) {
        Cuda.requireAvailable("CudaTensors.zeros");
        Tensor t = empty(device, dtype, shape);
        try {
            Cuda.setDevice(device.index());
            Cuda.check(JCuda.cudaMemset(new AddressPointer(t.address()), 0, t.nbytes()), "cudaMemset(" + t + ")");
            return t;
        } catch (RuntimeException e) {
            t.release();
            throw e;
        }
    }

    /**
     * A cold {@code Mono} that allocates a tensor on {@code device} (on {@link CudaScheduler}), copies
     * {@code cpu} into it with {@code copies}, and emits it; the caller owns the result. {@code cpu}
     * is not released.
     *
     * @param cpu    the host tensor to copy
     * @param device the device to copy it to
     * @param copies the copy engine
     * @return a cold {@code Mono} emitting the new device tensor
     */
    public static Mono<Tensor> toDevice(Tensor cpu, Device device, CudaCopies copies) {
        return Mono.defer(() -> {
            if (!Cuda.isAvailable()) {
                return Mono.error(Cuda.unavailable("CudaTensors.toDevice"));
            }
            if (!cpu.isCpu()) {
                return Mono.error(new IllegalArgumentException("toDevice: " + cpu + " is not a CPU tensor"));
            }
            return Mono.usingWhen(
                    Mono.fromCallable(() -> empty(device, cpu.dtype(), cpu.shape())).subscribeOn(CudaScheduler.get()),
                    t -> copies.copy(cpu, t).then(Mono.fromSupplier(t::retain)),
                    t -> Mono.fromRunnable(t::release));
        });
    }

    /**
     * A cold {@code Mono} that copies the CUDA tensor {@code cuda} into a new CPU tensor and emits it;
     * the caller owns the result. {@code cuda} is not released.
     *
     * @param cuda   the device tensor to copy
     * @param copies the copy engine
     * @return a cold {@code Mono} emitting the new host tensor
     */
    public static Mono<Tensor> toHost(Tensor cuda, CudaCopies copies) {
        return Mono.defer(() -> {
            if (!Cuda.isAvailable()) {
                return Mono.error(Cuda.unavailable("CudaTensors.toHost"));
            }
            if (cuda.isCpu()) {
                return Mono.error(new IllegalArgumentException("toHost: " + cuda + " is already on the CPU"));
            }
            return Mono.usingWhen(Mono.fromSupplier(() -> Tensor.empty(cuda.dtype(), cuda.shape())),
                    t -> copies.copy(cuda, t).then(Mono.fromSupplier(t::retain)),
                    t -> Mono.fromRunnable(t::release));
        });
    }
}
