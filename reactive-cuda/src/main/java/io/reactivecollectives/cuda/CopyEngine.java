package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * Copies bytes between host and device tensors, surfacing each copy's completion as a signal.
 * {@link CudaCopies} is the CUDA implementation; {@link HostStagedProcessGroup} uses it through this
 * interface so that its pipeline can also run where host memory stands in for a device.
 */
public interface CopyEngine {

    /**
     * A cold {@code Mono} that copies {@code src}'s bytes into {@code dst} (equal byte sizes; any
     * direction between host and device) and completes once the bytes are in {@code dst}, or fails
     * with the copy's error. Neither tensor is released.
     *
     * @param src the tensor copied from
     * @param dst the tensor copied into, of {@code src}'s byte size
     * @return a cold {@code Mono} that completes once the bytes are in {@code dst}
     */
    Mono<Void> copy(Tensor src, Tensor dst);

    /**
     * {@link #copy(Tensor, Tensor)} of a chunk; emits the chunk with the same index and offset over
     * {@code dst} once the copy completed.
     *
     * @param src the chunk copied from
     * @param dst the tensor copied into, of the chunk's byte size
     * @return a cold {@code Mono} emitting the chunk over {@code dst} once the copy completed
     */
    default Mono<Chunk> copy(Chunk src, Tensor dst) {
        return copy(src.tensor(), dst).then(Mono.fromSupplier(() -> new Chunk(src.index(), src.elementOffset(), dst)));
    }
}
