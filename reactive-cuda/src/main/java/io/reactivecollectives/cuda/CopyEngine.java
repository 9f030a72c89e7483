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
     */
    Mono<Void> copy(Tensor src, Tensor dst);

    /**
     * {@link #copy(Tensor, Tensor)} of a chunk; emits the chunk with the same index and offset over
     * {@code dst} once the copy completed.
     */
    default Mono<Chunk> copy(Chunk src, Tensor dst) {
        return copy(src.tensor(), dst).then(Mono.fromSupplier(() -> new Chunk(src.index(), src.elementOffset(), dst)));
    }
}
