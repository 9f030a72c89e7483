package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The per-chunk pipeline of a host-staged collective on one device tensor:
 * <pre>
 *   chunk k:  acquire slab -> COPY_IN (device to slab) -> NETWORK (collective on the slab) -> COPY_OUT (slab to device) -> release slab
 * </pre>
 * COPY_IN runs up to {@code depth} chunks ahead ({@code flatMapSequential}), NETWORK starts the
 * chunks' collectives in chunk order, up to {@code depth} at once ({@code flatMapSequential}: every
 * rank issues the same collectives in the same order, and two in flight keep the connection busy
 * while one finishes its last step), COPY_OUT up to {@code depth} chunks at once ({@code flatMap}); so the copy in of chunk
 * k+1, the collective of chunk k and the copy out of chunk k-1 run at the same time, and pinned
 * memory in use is bounded by the pool, never by the tensor's size.
 */
final class ChunkPipeline {

    private final CopyEngine copier;
    private final PinnedBufferPool pool;
    private final int chunkBytes;
    private final int depth;
    private final StageListener listener;

    ChunkPipeline(CopyEngine copier, PinnedBufferPool pool, int chunkBytes, int depth, StageListener listener) {
        this.copier = copier;
        this.pool = pool;
        this.chunkBytes = chunkBytes;
        this.depth = depth;
        this.listener = listener;
    }

    /** Elements per chunk for {@code dtype}. */
    long chunkElements(DType dtype) {
        return Math.max(1, chunkBytes / dtype.byteSize());
    }

    /** Number of chunks for {@code numel} elements of {@code dtype} (1 for an empty tensor). */
    int chunkCount(long numel, DType dtype) {
        long per = chunkElements(dtype);
        return (int) Math.max(1, (numel + per - 1) / per);
    }

    /**
     * Runs {@code network} on a host copy of each chunk of {@code device}, copying the chunk in
     * first when {@code copyIn} and back out after when {@code copyOut}. Completes when every chunk
     * went through; the first error cancels the rest and is signalled once every slab is back.
     */
    Mono<Void> run(String op, long opId, Tensor device, boolean copyIn, boolean copyOut,
                   Function<Tensor, Mono<?>> network) {
        return run(op, opId, device, copyIn, copyOut, network, depth);
    }

    /**
     * {@link #run} with one chunk on the network at a time: for point-to-point transfers, which the
     * receiver matches by tag and arrival order, not by a sequence number as collectives are.
     */
    Mono<Void> runOneAtATime(String op, long opId, Tensor device, boolean copyIn, boolean copyOut,
                             Function<Tensor, Mono<?>> network) {
        return run(op, opId, device, copyIn, copyOut, network, 1);
    }

    private Mono<Void> run(String op, long opId, Tensor device, boolean copyIn, boolean copyOut,
                           Function<Tensor, Mono<?>> network, int networkConcurrency) {
        return Mono.defer(() -> {
            Tensor flat = device.flatten();
            long per = chunkElements(device.dtype());
            int n = chunkCount(device.numel(), device.dtype());
            return Flux.range(0, n)
                    .flatMapSequential(k -> stageIn(op, opId, k, flat.narrow(k * per, Math.min(per, flat.numel() - k * per)), copyIn),
                            depth, 1)
                    .flatMapSequential(s -> network(op, opId, s, network), networkConcurrency, 1)
                    .flatMap(s -> stageOut(op, opId, s, copyOut), depth)
                    .doOnDiscard(Staged.class, Staged::release)
                    .then();
        });
    }

    /** A slab-backed host tensor of {@code numel} elements, or a pooled direct tensor when the slab is too small. */
    Mono<Tensor> hostBuffer(DType dtype, long numel) {
        long bytes = numel * dtype.byteSize();
        if (bytes > pool.slabBytes()) {
            return Mono.fromSupplier(() -> Tensor.empty(dtype, numel));
        }
        return pool.acquire().map(buf -> wrap(buf, dtype, numel));
    }

    private static Tensor wrap(ByteBuf buf, DType dtype, long numel) {
        try {
            buf.writerIndex((int) (numel * dtype.byteSize()));
            return Tensor.wrap(buf, dtype, numel);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    Mono<Staged> stageIn(String op, long opId, int k, Tensor deviceChunk, boolean copyIn) {
        return hostBuffer(deviceChunk.dtype(), deviceChunk.numel()).flatMap(host -> {
            Staged s = new Staged(k, deviceChunk, host, true);
            if (!copyIn) {
                return Mono.just(s);
            }
            return guard(s, timed(op, opId, k, StageEvent.Stage.COPY_IN, s.bytes(), copier.copy(deviceChunk, host)));
        });
    }

    Mono<Staged> network(String op, long opId, Staged s, Function<Tensor, Mono<?>> network) {
        return guard(s, timed(op, opId, s.index, StageEvent.Stage.NETWORK, s.bytes(), Mono.defer(() -> network.apply(s.host))));
    }

    Mono<Staged> stageOut(String op, long opId, Staged s, boolean copyOut) {
        Mono<Void> copy = copyOut
                ? timed(op, opId, s.index, StageEvent.Stage.COPY_OUT, s.bytes(), copier.copy(s.host, s.device))
                : Mono.empty();
        return copy.then(Mono.just(s)).doFinally(x -> s.release());
    }

    /** {@code stage}, then {@code s}; releases {@code s} when the stage fails or is cancelled. */
    private static Mono<Staged> guard(Staged s, Mono<?> stage) {
        return stage.then(Mono.just(s)).doOnError(e -> s.release()).doOnCancel(s::release);
    }

    private Mono<Void> timed(String op, long opId, int chunk, StageEvent.Stage stage, long bytes, Mono<?> work) {
        if (listener == StageListener.NONE) {
            return work.then();
        }
        return Mono.defer(() -> {
            long t0 = System.nanoTime();
            return work.then().doOnSuccess(v -> listener.onStage(new StageEvent(op, opId, chunk, stage, bytes, t0, System.nanoTime())));
        });
    }

    /** A chunk and its host copy; owns one reference of the host copy when {@code owned}. */
    static final class Staged {
        final int index;
        final Tensor device;
        final Tensor host;
        private final AtomicBoolean released;

        Staged(int index, Tensor device, Tensor host, boolean owned) {
            this.index = index;
            this.device = device;
            this.host = host;
            this.released = new AtomicBoolean(!owned);
        }

        long bytes() {
            return host.nbytes();
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                host.release();
            }
        }
    }
}
