package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Collectives on CUDA tensors through a CPU {@link ProcessGroup}, as ProcessGroupGloo's CUDA path:
 * device memory is copied to pinned host memory, the collective runs on the host copy, and the
 * result is copied back into the device tensor. CPU tensors go straight to the wrapped group.
 *
 * <h2>The pipeline</h2>
 * allReduce, reduce, broadcast, allReduceCoalesced, send and recv cut the device tensor into chunks
 * of {@link Options#chunkBytes()} and run each through three stages: copy in (device to a
 * {@link PinnedBufferPool} slab, on the device-to-host stream), the collective of that chunk on
 * the wrapped group, copy out (slab to device, on the host-to-device stream). The copy in of chunk
 * k+1, the collective of chunk k and the copy out of chunk k-1 run at the same time; pinned memory
 * in use is bounded by the pool. Each copy's completion is an event waited for on
 * {@link CudaScheduler}. Stages a rank does not need are skipped (the root of a broadcast copies
 * nothing back, the other ranks copy nothing in; only the root of a reduce copies back).
 * {@link #allReduceStream} stages each chunk of the stream the same way around the wrapped group's
 * stream. allGather, allGatherInto, gather, scatter, reduceScatter, reduceScatterTensor and
 * allToAllSingle with equal splits, whose tensors (or slices) all have one size, run chunk k of
 * every tensor through the same three stages, the chunk k of all of them sharing one slab.
 * allToAll and allToAllSingle with explicit splits, whose slices may differ in size per peer, do
 * the same with chunk k of each slice being its elements {@code [k c, (k+1) c)} (fewer or none
 * past its end); the ranks first agree on the number of chunks (one all-reduce of one number, MAX,
 * on the wrapped group), since each knows only its own slices. The rest (the coalesced lists;
 * batchSendRecv) copy whole tensors in, run the wrapped group's operation on host tensors, and
 * copy the outputs back.
 *
 * <h2>Order and synchronisation (c10d's Work semantics)</h2>
 * A collective on this group issues one collective per chunk on the wrapped group over time; to
 * keep those in the same order on every rank, this group runs its collectives one at a time, in
 * the order they were subscribed (which c10d requires to be the same on every rank). Point-to-point
 * operations (send, recv, recvAnySource, batchSendRecv) are matched by peer and tag and run at
 * once; the chunks of one send are sent in order with the same tag, and matched in order by the
 * receiving rank's recv, which must use the same chunk size. Copies wait for the work already
 * enqueued on the producer stream ({@link CudaCopies}); a returned {@code Mono} completes after the
 * last copy back has completed on the device, so any work the caller enqueues afterwards, on any
 * stream, sees the result, as after c10d's {@code work.wait()}. Per-call timeouts apply to each
 * chunk's collective. All ranks must use the same chunk size.
 */
public final class HostStagedProcessGroup implements ProcessGroup {

    /**
     * How the pipeline runs.
     *
     * @param chunkBytes bytes per chunk (at most the pool's slab size; the same on every rank)
     * @param depth      chunks copied in, and copied out, at the same time
     * @param poolSlabs  slabs of the pinned pool the factories create ({@code 2 * depth + 1} for full overlap)
     * @param listener   told of every completed stage
     */
    public record Options(int chunkBytes, int depth, int poolSlabs, StageListener listener) {

        /**
         * 32 MiB chunks, depth 2, 5 slabs (160 MiB of pinned memory at most), no listener: fewer,
         * larger collectives keep the connection busier (chunk sizes compared in {@code perf/RESULTS.md}).
         */
        public static final Options DEFAULT = new Options(32 << 20, 2, 5, StageListener.NONE);

        /**
         * Checks the options.
         *
         * @param chunkBytes bytes per chunk, at least 16
         * @param depth      chunks in flight per direction, at least 1
         * @param poolSlabs  slabs of the pinned pool, at least 1
         * @param listener   told of every completed stage, not null
         *
         * @throws IllegalArgumentException when {@code chunkBytes} is below 16, or {@code depth} or
         *         {@code poolSlabs} is below 1
         * @throws NullPointerException when {@code listener} is null
         */
        public Options {
            if (chunkBytes < 16) {
                throw new IllegalArgumentException("chunkBytes must be >= 16, got " + chunkBytes);
            }
            if (depth < 1) {
                throw new IllegalArgumentException("depth must be >= 1, got " + depth);
            }
            if (poolSlabs < 1) {
                throw new IllegalArgumentException("poolSlabs must be >= 1, got " + poolSlabs);
            }
            Objects.requireNonNull(listener, "listener");
        }

        /**
         * These options with another chunk size.
         *
         * @param bytes bytes per chunk
         * @return the new options
         */
        public Options withChunkBytes(int bytes) {
            return new Options(bytes, depth, poolSlabs, listener);
        }

        /**
         * These options with another pipeline depth; the pool grows to {@code 2 * d + 1} slabs when it
         * had fewer, so copies in and out can overlap fully.
         *
         * @param d chunks copied in, and copied out, at the same time
         * @return the new options
         */
        public Options withDepth(int d) {
            return new Options(chunkBytes, d, Math.max(poolSlabs, 2 * d + 1), listener);
        }

        /**
         * These options with another stage listener.
         *
         * @param l told of every completed stage
         * @return the new options
         */
        public Options withListener(StageListener l) {
            return new Options(chunkBytes, depth, poolSlabs, l);
        }
    }

    private final ProcessGroup cpu;
    private final CopyEngine copier;
    private final PinnedBufferPool pool;
    private final boolean ownsPool;
    private final Options options;
    private final ChunkPipeline pipeline;
    private final HostStaging staging;
    private final StagedPipelineOps single;
    private final StagedCollectives collectives;
    private final OrderedLane lane = new OrderedLane();

    /**
     * A staged group over {@code cpu} using {@code copier} and slabs of {@code pool} (which this
     * group does not close).
     *
     * @param cpu     the CPU process group the host copies are reduced through
     * @param copier  copies between device and pinned host memory
     * @param pool    the pinned slabs chunks are staged in
     * @param options chunk size, depth and listener
     * @throws IllegalArgumentException when the chunk is larger than the pool's slabs
     */
    public HostStagedProcessGroup(ProcessGroup cpu, CopyEngine copier, PinnedBufferPool pool, Options options) {
        this(cpu, copier, pool, false, options);
    }

    private HostStagedProcessGroup(ProcessGroup cpu, CopyEngine copier, PinnedBufferPool pool, boolean ownsPool,
                                   Options options) {
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.copier = Objects.requireNonNull(copier, "copier");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.options = Objects.requireNonNull(options, "options");
        if (options.chunkBytes() > pool.slabBytes()) {
            throw new IllegalArgumentException("HostStagedProcessGroup: chunk of " + options.chunkBytes()
                    + " bytes does not fit the pool's slabs of " + pool.slabBytes());
        }
        this.ownsPool = ownsPool;
        this.pipeline = new ChunkPipeline(copier, pool, options.chunkBytes(), options.depth(), options.listener());
        this.staging = new HostStaging(cpu, copier, pipeline);
        this.single = new StagedPipelineOps(cpu, staging, lane);
        this.collectives = new StagedCollectives(cpu, staging);
    }

    /**
     * A staged group over {@code cpu} with {@link CudaCopies} and its own pinned pool, with
     * {@link Options#DEFAULT}.
     *
     * @param cpu the CPU process group to stage through
     * @return the staged group, owning its pool
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static HostStagedProcessGroup create(ProcessGroup cpu) {
        return create(cpu, Options.DEFAULT);
    }

    /**
     * A staged group over {@code cpu} with {@link CudaCopies} (waiting for the legacy default
     * stream) and its own pinned pool of {@code options.poolSlabs()} slabs of
     * {@code options.chunkBytes()}, closed with the group.
     *
     * @param cpu     the CPU process group to stage through
     * @param options chunk size, depth, pool size and listener
     * @return the staged group, owning its pool
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static HostStagedProcessGroup create(ProcessGroup cpu, Options options) {
        Cuda.requireAvailable("HostStagedProcessGroup.create");
        return new HostStagedProcessGroup(cpu, CudaCopies.create(),
                PinnedBufferPool.pinned(options.chunkBytes(), options.poolSlabs()), true, options);
    }

    /**
     * As {@link #create(ProcessGroup, Options)}, with copies that wait for {@code producer}.
     *
     * @param cpu      the CPU process group to stage through
     * @param options  chunk size, depth, pool size and listener
     * @param producer the stream whose enqueued work every copy waits for
     * @return the staged group, owning its pool
     */
    public static HostStagedProcessGroup create(ProcessGroup cpu, Options options, CudaStream producer) {
        Cuda.requireAvailable("HostStagedProcessGroup.create");
        return new HostStagedProcessGroup(cpu, CudaCopies.create(producer),
                PinnedBufferPool.pinned(options.chunkBytes(), options.poolSlabs()), true, options);
    }

    /**
     * The wrapped CPU group.
     *
     * @return the CPU group
     */
    public ProcessGroup cpuGroup() {
        return cpu;
    }

    /**
     * The pool of pinned slabs.
     *
     * @return the pool
     */
    public PinnedBufferPool pool() {
        return pool;
    }

    /**
     * The options this group runs with.
     *
     * @return the options
     */
    public Options options() {
        return options;
    }

    @Override
    public int rank() {
        return cpu.rank();
    }

    @Override
    public int size() {
        return cpu.size();
    }

    @Override
    public String groupId() {
        return cpu.groupId();
    }

    // ------------------------------------------------------------------ reductions

    /**
     * For a CUDA tensor: the chunked pipeline, emitting {@code tensor} once the reduced bytes are back
     * on the device; for a CPU tensor, the wrapped group's allReduce.
     */
    @Override
    public Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions opts) {
        return single.allReduce(tensor, op, opts);
    }

    /** Tensors all on the CPU or all on devices, of one dtype; CUDA ones are staged one after the other. */
    @Override
    public Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions opts) {
        return single.allReduceCoalesced(tensors, op, opts);
    }

    /** Every rank copies in; only {@code root} copies the result back. */
    @Override
    public Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions opts) {
        return single.reduce(tensor, root, op, opts);
    }

    /**
     * Stages each CUDA chunk of {@code chunks} (copied in up to {@code prefetch} ahead) through the
     * wrapped group's {@code allReduceStream}, copies each reduced chunk back, and emits the original
     * chunks in order. CPU chunks pass through unstaged. Chunks larger than a slab are staged in
     * pooled direct memory.
     */
    @Override
    public Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch) {
        return Flux.defer(() -> {
            CollectiveArguments.requirePrefetch("allReduceStream", prefetch);
            long id = staging.nextOpId();
            return lane.runMany(() -> StagedStream.allReduce(cpu, pipeline, id, chunks, op, prefetch));
        });
    }

    // ------------------------------------------------------------------ data movement

    /** The root copies in, the other ranks copy back; per chunk, the wrapped group's broadcast. */
    @Override
    public Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions opts) {
        return single.broadcast(tensor, root, opts);
    }

    @Override
    public Mono<Void> barrier(CollectiveOptions opts) {
        return lane.run(() -> cpu.barrier(opts));
    }

    /** Copies each chunk in and sends it with {@code tag}, chunk after chunk. */
    @Override
    public Mono<Void> send(Tensor tensor, int dst, int tag) {
        return single.send(tensor, dst, tag);
    }

    /** Receives each chunk with {@code tag}, chunk after chunk, and copies it back. */
    @Override
    public Mono<Tensor> recv(Tensor tensor, int src, int tag) {
        return single.recv(tensor, src, tag);
    }

    /** Receives the whole tensor into host memory (one source), then copies it back. */
    @Override
    public Mono<Integer> recvAnySource(Tensor tensor, int tag) {
        return single.recvAnySource(tensor, tag);
    }

    // ------------------------------------------------------------------ several tensors (StagedCollectives)

    /** Chunk k of the input and of every output per all-gather on the wrapped group. */
    @Override
    public Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input) {
        return lane.run(() -> collectives.allGather(outputs, input));
    }

    /** As {@link #allGather} over the world slices of {@code output}. */
    @Override
    public Mono<Tensor> allGatherInto(Tensor output, Tensor input) {
        return lane.run(() -> collectives.allGatherInto(output, input));
    }

    /** Whole tensors staged. */
    @Override
    public Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs) {
        return lane.run(() -> collectives.allGatherCoalesced(outputs, inputs));
    }

    /** Chunk k of every rank's input per gather; the root copies chunk k of each output back. */
    @Override
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root) {
        return lane.run(() -> collectives.gather(outputs, input, root));
    }

    /** Chunk k of the root's inputs per scatter; every rank copies chunk k of its output back. */
    @Override
    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root) {
        return lane.run(() -> collectives.scatter(output, inputs, root));
    }

    /** Chunk k of every input per reduce-scatter on the wrapped group; chunk k of the output comes back. */
    @Override
    public Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
        return lane.run(() -> collectives.reduceScatter(output, inputs, op));
    }

    /** As {@link #reduceScatter} over the world slices of {@code input}. */
    @Override
    public Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
        return lane.run(() -> collectives.reduceScatterTensor(output, input, op));
    }

    /** Whole tensors staged. */
    @Override
    public Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        return lane.run(() -> collectives.reduceScatterTensorCoalesced(outputs, inputs, op));
    }

    /**
     * Chunk k of every input and output (chunks of up to slab / (2 x world) elements of each; a
     * tensor has none past its end) per all-to-all on the wrapped group, after the ranks agree on
     * the number of chunks. Tensors that are all on the host, or of mixed dtypes (the wrapped
     * group reports that), go whole.
     */
    @Override
    public Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs) {
        return lane.run(() -> collectives.allToAll(outputs, inputs));
    }

    /**
     * With equal splits (empty split arrays; then every rank's slices have one size), chunk k of
     * each of the world slices per all-to-all on the wrapped group. With explicit splits the same,
     * over slices that may differ in size, after the ranks agree on the number of chunks; splits
     * that do not fit the tensors fail at once, before anything is copied or sent.
     */
    @Override
    public Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits) {
        return lane.run(() -> collectives.allToAllSingle(output, input, outputSplits, inputSplits));
    }

    /** Whole tensors staged; matched by peer and tag, run at once (not in turn). */
    @Override
    public Mono<Void> batchSendRecv(List<P2POp> ops) {
        return Mono.defer(() -> collectives.batchSendRecv(ops));
    }

    @Override
    public Mono<Void> monitoredBarrier(Duration timeout, boolean waitAllRanks) {
        return lane.run(() -> cpu.monitoredBarrier(timeout, waitAllRanks));
    }

    /** The wrapped group's subgroup, staged the same way, with a pool of its own like this group's. */
    @Override
    public Mono<ProcessGroup> newGroup(List<Integer> ranks) {
        return lane.run(() -> cpu.newGroup(ranks).map(g -> new HostStagedProcessGroup(g, copier, pool.sibling(), true, options)));
    }

    /** Aborts the wrapped group at once (not in turn). */
    @Override
    public Mono<Void> abort() {
        return cpu.abort();
    }

    /** Closes the wrapped group, and the pool when this group created it. */
    @Override
    public void close() {
        try {
            cpu.close();
        } finally {
            if (ownsPool) {
                pool.close();
            }
        }
    }

    @Override
    public String toString() {
        return "HostStagedProcessGroup[" + cpu + ", chunk " + options.chunkBytes() + " bytes, depth " + options.depth() + "]";
    }
}
