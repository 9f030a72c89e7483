package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * The pipeline for an operation over several tensors of {@code numel} elements each (an
     * all-gather's input and outputs, a scatter's inputs and output, ...): chunk k of every tensor
     * shares one host buffer (one slab, so a chunk never holds part of the pool while waiting for
     * the rest), the device tensors of {@code ins} are copied into it, {@code network} runs with
     * a map from each tensor to its host chunk (a CPU tensor maps to its own chunk, uncopied), and
     * the device tensors of {@code outs} are copied back. Chunks hold {@code slabBytes / slots}
     * bytes per tensor: {@code slots} is the most tensors any rank brings to the operation (1 +
     * world size for a gather), the same on every rank, so every rank cuts the same number of chunks
     * and issues the same collectives. Completes when every chunk went through.
     */
    Mono<Void> runMany(String op, long opId, DType dtype, long numel, int slots, List<Tensor> ins, List<Tensor> outs,
                       Function<Map<Tensor, Tensor>, Mono<?>> network) {
        return Mono.defer(() -> {
            long per = elementsPerSlot(dtype, slots);
            int n = (int) Math.max(1, (numel + per - 1) / per);
            return runChunks(op, opId, dtype, per, n, ins, outs, network);
        });
    }

    /** Elements of each tensor in one chunk when {@code slots} tensors share the chunk's slab. */
    long elementsPerSlot(DType dtype, int slots) {
        return Math.max(1, Math.min(chunkBytes, pool.slabBytes()) / ((long) Math.max(1, slots) * dtype.byteSize()));
    }

    /**
     * {@link #runMany} for tensors that may differ in size (an all-to-all's slices with explicit
     * splits): chunk k of a tensor is its elements {@code [k per, (k+1) per)}, fewer at its end and
     * none past it, and exactly {@code chunks} chunks go through (the caller agrees the count with
     * the other ranks, which issue one collective per chunk too). The chunk's host buffer holds
     * only the elements its tensors have; empty pieces are not copied.
     */
    Mono<Void> runChunks(String op, long opId, DType dtype, long per, int chunks, List<Tensor> ins, List<Tensor> outs,
                         Function<Map<Tensor, Tensor>, Mono<?>> network) {
        return Mono.defer(() -> {
            List<Tensor> all = distinct(ins, outs);
            List<Tensor> copyIn = deviceTensors(ins);
            List<Tensor> copyOut = deviceTensors(outs);
            return Flux.range(0, chunks)
                    .flatMapSequential(k -> stageInMany(op, opId, k, k * per, per, dtype, all, copyIn), depth, 1)
                    .flatMapSequential(g -> guard(g, timed(op, opId, g.index, StageEvent.Stage.NETWORK, g.bytes(),
                            Mono.defer(() -> network.apply(g.hostOf)))), depth, 1)
                    .flatMap(g -> stageOutMany(op, opId, g, copyOut), depth)
                    .doOnDiscard(StagedMany.class, StagedMany::release)
                    .then();
        });
    }

    private Mono<StagedMany> stageInMany(String op, long opId, int k, long offset, long per, DType dtype, List<Tensor> all,
                                         List<Tensor> copyIn) {
        long[] lengths = new long[all.size()];
        long total = 0;
        for (int i = 0; i < all.size(); i++) {
            lengths[i] = Math.max(0, Math.min(per, all.get(i).numel() - offset));
            total += lengths[i];
        }
        Mono<Tensor> host = total == 0 ? Mono.fromSupplier(() -> Tensor.empty(dtype, 0)) : hostBuffer(dtype, total);
        return host.flatMap(buffer -> {
            StagedMany g;
            try {
                Map<Tensor, Tensor> hostOf = new IdentityHashMap<>();
                Map<Tensor, Tensor> deviceOf = new IdentityHashMap<>();
                long at = 0;
                for (int i = 0; i < all.size(); i++) {
                    Tensor t = all.get(i);
                    Tensor chunk = t.flatten().narrow(Math.min(offset, t.numel()), lengths[i]);
                    deviceOf.put(t, chunk);
                    hostOf.put(t, t.isCpu() ? chunk : buffer.narrow(at, lengths[i]));
                    at += lengths[i];
                }
                g = new StagedMany(k, buffer, hostOf, deviceOf);
            } catch (RuntimeException e) {
                buffer.release();
                return Mono.error(e);
            }
            List<Tensor> copies = nonEmpty(copyIn, g);
            if (copies.isEmpty()) {
                return Mono.just(g);
            }
            return guard(g, timed(op, opId, k, StageEvent.Stage.COPY_IN, g.bytesOf(copies),
                    Flux.fromIterable(copies).flatMap(t -> copier.copy(g.deviceOf.get(t), g.hostOf.get(t))).then()));
        });
    }

    private Mono<StagedMany> stageOutMany(String op, long opId, StagedMany g, List<Tensor> copyOut) {
        List<Tensor> copies = nonEmpty(copyOut, g);
        Mono<Void> copy = copies.isEmpty() ? Mono.empty()
                : timed(op, opId, g.index, StageEvent.Stage.COPY_OUT, g.bytesOf(copies),
                        Flux.fromIterable(copies).flatMap(t -> copier.copy(g.hostOf.get(t), g.deviceOf.get(t))).then());
        return copy.then(Mono.just(g)).doFinally(x -> g.release());
    }

    /** The tensors of {@code l} whose piece in chunk {@code g} has elements. */
    private static List<Tensor> nonEmpty(List<Tensor> l, StagedMany g) {
        List<Tensor> out = new ArrayList<>(l.size());
        for (Tensor t : l) {
            if (g.deviceOf.get(t).numel() > 0) {
                out.add(t);
            }
        }
        return out;
    }

    /** The device (non-CPU) tensors of {@code l}, each once (by identity), in order: those to copy. */
    static List<Tensor> deviceTensors(List<Tensor> l) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : distinct(l, List.of())) {
            if (!t.isCpu()) {
                out.add(t);
            }
        }
        return out;
    }

    /** The tensors of both lists, each once (by identity), in order. */
    private static List<Tensor> distinct(List<Tensor> a, List<Tensor> b) {
        List<Tensor> out = new ArrayList<>();
        java.util.Set<Tensor> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (List<Tensor> l : List.of(a, b)) {
            for (Tensor t : l) {
                if (seen.add(t)) {
                    out.add(t);
                }
            }
        }
        return out;
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

    private static Mono<StagedMany> guard(StagedMany g, Mono<?> stage) {
        return stage.then(Mono.just(g)).doOnError(e -> g.release()).doOnCancel(g::release);
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

    /** Chunk k of several tensors: their device chunks, their host chunks, and the buffer it owns. */
    static final class StagedMany {
        final int index;
        final Tensor buffer;
        final Map<Tensor, Tensor> hostOf;
        final Map<Tensor, Tensor> deviceOf;
        private final AtomicBoolean released = new AtomicBoolean();

        StagedMany(int index, Tensor buffer, Map<Tensor, Tensor> hostOf, Map<Tensor, Tensor> deviceOf) {
            this.index = index;
            this.buffer = buffer;
            this.hostOf = hostOf;
            this.deviceOf = deviceOf;
        }

        long bytes() {
            return buffer.nbytes();
        }

        /** Bytes of the pieces of {@code tensors} in this chunk. */
        long bytesOf(List<Tensor> tensors) {
            long b = 0;
            for (Tensor t : tensors) {
                b += hostOf.get(t).nbytes();
            }
            return b;
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                buffer.release();
            }
        }
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
