package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

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
         * 32 MiB chunks, depth 2, 5 slabs (160 MiB of pinned memory at most), no listener. On an H100
         * (perf/RESULTS.md) 32 MiB chunks all-reduced 256 MiB in 163 ms where 8 MiB chunks took 225 ms:
         * fewer, larger collectives keep the connection busier.
         */
        public static final Options DEFAULT = new Options(32 << 20, 2, 5, StageListener.NONE);

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

        public Options withChunkBytes(int bytes) {
            return new Options(bytes, depth, poolSlabs, listener);
        }

        public Options withDepth(int d) {
            return new Options(chunkBytes, d, Math.max(poolSlabs, 2 * d + 1), listener);
        }

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
    private final OrderedLane lane = new OrderedLane();
    private final AtomicLong opIds = new AtomicLong();

    /**
     * A staged group over {@code cpu} using {@code copier} and slabs of {@code pool} (which this
     * group does not close).
     *
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
    }

    /**
     * A staged group over {@code cpu} with {@link CudaCopies} and its own pinned pool, with
     * {@link Options#DEFAULT}.
     *
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
     * @throws IllegalStateException when CUDA is unavailable
     */
    public static HostStagedProcessGroup create(ProcessGroup cpu, Options options) {
        Cuda.requireAvailable("HostStagedProcessGroup.create");
        return new HostStagedProcessGroup(cpu, CudaCopies.create(),
                PinnedBufferPool.pinned(options.chunkBytes(), options.poolSlabs()), true, options);
    }

    /** As {@link #create(ProcessGroup, Options)}, with copies that wait for {@code producer}. */
    public static HostStagedProcessGroup create(ProcessGroup cpu, Options options, CudaStream producer) {
        Cuda.requireAvailable("HostStagedProcessGroup.create");
        return new HostStagedProcessGroup(cpu, CudaCopies.create(producer),
                PinnedBufferPool.pinned(options.chunkBytes(), options.poolSlabs()), true, options);
    }

    /** The wrapped CPU group. */
    public ProcessGroup cpuGroup() {
        return cpu;
    }

    /** The pool of pinned slabs. */
    public PinnedBufferPool pool() {
        return pool;
    }

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
        return Mono.defer(() -> {
            checkTensor("allReduce", tensor);
            op.validate("allReduce", tensor.dtype());
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.allReduce(tensor, op, opts));
            }
            return lane.run(() -> pipeline.run("allReduce", opIds.incrementAndGet(), tensor, true, true,
                    h -> cpu.allReduce(h, op, opts)).thenReturn(tensor));
        });
    }

    /** Tensors all on the CPU or all on devices, of one dtype; CUDA ones are staged one after the other. */
    @Override
    public Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions opts) {
        return Mono.defer(() -> {
            if (tensors == null || tensors.isEmpty()) {
                throw new IllegalArgumentException("allReduceCoalesced: needs at least one tensor");
            }
            Tensor first = tensors.get(0);
            for (Tensor t : tensors) {
                checkTensor("allReduceCoalesced", t);
                if (t.dtype() != first.dtype()) {
                    throw new IllegalArgumentException("allReduceCoalesced: tensors must have one dtype, got "
                            + first.dtype() + " and " + t.dtype());
                }
                if (t.isCpu() != first.isCpu()) {
                    throw new IllegalArgumentException("allReduceCoalesced: tensors must all be on the CPU or all on CUDA devices, got "
                            + first.device() + " and " + t.device());
                }
            }
            op.validate("allReduceCoalesced", first.dtype());
            if (first.isCpu()) {
                return lane.run(() -> cpu.allReduceCoalesced(tensors, op, opts));
            }
            List<Tensor> copy = List.copyOf(tensors);
            long id = opIds.incrementAndGet();
            return lane.run(() -> Flux.fromIterable(copy)
                    .concatMap(t -> pipeline.run("allReduceCoalesced", id, t, true, true, h -> cpu.allReduce(h, op, opts)))
                    .then(Mono.just(copy)));
        });
    }

    /** Every rank copies in; only {@code root} copies the result back. */
    @Override
    public Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions opts) {
        return Mono.defer(() -> {
            checkTensor("reduce", tensor);
            checkRank("reduce", "root", root);
            op.validate("reduce", tensor.dtype());
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.reduce(tensor, root, op, opts));
            }
            return lane.run(() -> pipeline.run("reduce", opIds.incrementAndGet(), tensor, true, rank() == root,
                    h -> cpu.reduce(h, root, op, opts)).thenReturn(tensor));
        });
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
            if (prefetch < 1) {
                throw new IllegalArgumentException("allReduceStream: prefetch must be >= 1, got " + prefetch);
            }
            long id = opIds.incrementAndGet();
            return lane.runMany(() -> {
                ConcurrentLinkedQueue<StreamItem> inflight = new ConcurrentLinkedQueue<>();
                Flux<Chunk> staged = chunks
                        .flatMapSequential(c -> {
                            op.validate("allReduceStream", c.dtype());
                            if (c.tensor().isCpu()) {
                                return Mono.just(new StreamItem(c, new ChunkPipeline.Staged(c.index(), c.tensor(), c.tensor(), false)));
                            }
                            return pipeline.stageIn("allReduceStream", id, c.index(), c.tensor(), true)
                                    .map(s -> new StreamItem(c, s));
                        }, prefetch, 1)
                        .doOnNext(inflight::offer)
                        .map(i -> new Chunk(i.chunk.index(), i.chunk.elementOffset(), i.staged.host));
                return cpu.allReduceStream(staged, op, prefetch)
                        .flatMapSequential(reduced -> {
                            StreamItem i = inflight.poll();
                            if (i == null || i.chunk.index() != reduced.index()) {
                                if (i != null) {
                                    i.staged.release();
                                }
                                return Mono.error(new IllegalStateException("allReduceStream: reduced chunk "
                                        + reduced.index() + " does not match the staged chunk "
                                        + (i == null ? "(none)" : String.valueOf(i.chunk.index()))));
                            }
                            boolean copyBack = !i.chunk.tensor().isCpu();
                            return pipeline.stageOut("allReduceStream", id, i.staged, copyBack).thenReturn(i.chunk);
                        }, prefetch, 1)
                        .doOnDiscard(StreamItem.class, i -> i.staged.release())
                        .doOnDiscard(ChunkPipeline.Staged.class, ChunkPipeline.Staged::release)
                        .doFinally(sig -> {
                            StreamItem i;
                            while ((i = inflight.poll()) != null) {
                                i.staged.release();
                            }
                        });
            });
        });
    }

    /** A chunk of a stream and its host copy. */
    private record StreamItem(Chunk chunk, ChunkPipeline.Staged staged) {
    }

    // ------------------------------------------------------------------ data movement

    /** The root copies in, the other ranks copy back; per chunk, the wrapped group's broadcast. */
    @Override
    public Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions opts) {
        return Mono.defer(() -> {
            checkTensor("broadcast", tensor);
            checkRank("broadcast", "root", root);
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.broadcast(tensor, root, opts));
            }
            boolean isRoot = rank() == root;
            return lane.run(() -> pipeline.run("broadcast", opIds.incrementAndGet(), tensor, isRoot, !isRoot,
                    h -> cpu.broadcast(h, root, opts)).thenReturn(tensor));
        });
    }

    @Override
    public Mono<Void> barrier(CollectiveOptions opts) {
        return lane.run(() -> cpu.barrier(opts));
    }

    /** Copies each chunk in and sends it with {@code tag}, chunk after chunk. */
    @Override
    public Mono<Void> send(Tensor tensor, int dst, int tag) {
        return Mono.defer(() -> {
            checkTensor("send", tensor);
            checkPeer("send", dst);
            if (tensor.isCpu()) {
                return cpu.send(tensor, dst, tag);
            }
            return pipeline.runOneAtATime("send", opIds.incrementAndGet(), tensor, true, false, h -> cpu.send(h, dst, tag));
        });
    }

    /** Receives each chunk with {@code tag}, chunk after chunk, and copies it back. */
    @Override
    public Mono<Tensor> recv(Tensor tensor, int src, int tag) {
        return Mono.defer(() -> {
            checkTensor("recv", tensor);
            checkPeer("recv", src);
            if (tensor.isCpu()) {
                return cpu.recv(tensor, src, tag);
            }
            return pipeline.runOneAtATime("recv", opIds.incrementAndGet(), tensor, false, true, h -> cpu.recv(h, src, tag))
                    .thenReturn(tensor);
        });
    }

    /** Receives the whole tensor into host memory (one source), then copies it back. */
    @Override
    public Mono<Integer> recvAnySource(Tensor tensor, int tag) {
        return Mono.defer(() -> {
            checkTensor("recvAnySource", tensor);
            return whole(List.of(), List.of(tensor), m -> cpu.recvAnySource(m.get(tensor), tag));
        });
    }

    // ------------------------------------------------------------------ several tensors, chunk by chunk

    /** Chunk k of the input and of every output per all-gather on the wrapped group. */
    @Override
    public Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input) {
        return lane.run(() -> chunked("allGather", List.of(input), outputs,
                m -> cpu.allGather(map(outputs, m), m.get(input))).thenReturn(outputs));
    }

    /** As {@link #allGather} over the world slices of {@code output}. */
    @Override
    public Mono<Tensor> allGatherInto(Tensor output, Tensor input) {
        return lane.run(() -> {
            List<Tensor> slices = slices(output, input.numel());
            if (slices == null) {
                return whole(List.of(input), List.of(output), m -> cpu.allGatherInto(m.get(output), m.get(input)))
                        .thenReturn(output);
            }
            return chunked("allGatherInto", List.of(input), slices, m -> cpu.allGather(map(slices, m), m.get(input)))
                    .thenReturn(output);
        });
    }

    @Override
    public Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs) {
        return lane.run(() -> {
            List<Tensor> outs = new ArrayList<>();
            outputs.forEach(outs::addAll);
            return whole(inputs, outs, m -> {
                List<List<Tensor>> hostOuts = new ArrayList<>();
                for (List<Tensor> l : outputs) {
                    hostOuts.add(map(l, m));
                }
                return cpu.allGatherCoalesced(hostOuts, map(inputs, m));
            }).thenReturn(outputs);
        });
    }

    /** Chunk k of every rank's input per gather; the root copies chunk k of each output back. */
    @Override
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root) {
        return lane.run(() -> chunked("gather", List.of(input), outputs, m -> cpu.gather(map(outputs, m), m.get(input), root))
                .thenReturn(outputs));
    }

    /** Chunk k of the root's inputs per scatter; every rank copies chunk k of its output back. */
    @Override
    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root) {
        return lane.run(() -> chunked("scatter", inputs, List.of(output), m -> cpu.scatter(m.get(output), map(inputs, m), root))
                .thenReturn(output));
    }

    /** Chunk k of every input per reduce-scatter on the wrapped group; chunk k of the output comes back. */
    @Override
    public Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
        return lane.run(() -> chunked("reduceScatter", inputs, List.of(output),
                m -> cpu.reduceScatter(m.get(output), map(inputs, m), op)).thenReturn(output));
    }

    /** As {@link #reduceScatter} over the world slices of {@code input}. */
    @Override
    public Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
        return lane.run(() -> {
            List<Tensor> slices = slices(input, output.numel());
            if (slices == null) {
                return whole(List.of(input), List.of(output), m -> cpu.reduceScatterTensor(m.get(output), m.get(input), op))
                        .thenReturn(output);
            }
            return chunked("reduceScatterTensor", slices, List.of(output),
                    m -> cpu.reduceScatter(m.get(output), map(slices, m), op)).thenReturn(output);
        });
    }

    // ------------------------------------------------------------------ the rest: whole tensors staged

    @Override
    public Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        return lane.run(() -> whole(inputs, outputs, m -> cpu.reduceScatterTensorCoalesced(map(outputs, m), map(inputs, m), op))
                .thenReturn(outputs));
    }

    /**
     * Chunk k of every input and output (chunks of up to slab / (2 x world) elements of each; a
     * tensor has none past its end) per all-to-all on the wrapped group, after the ranks agree on
     * the number of chunks. Tensors that are all on the host, or of mixed dtypes (the wrapped
     * group reports that), go whole.
     */
    @Override
    public Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs) {
        return lane.run(() -> {
            try {
                CollectiveArguments.allToAll(outputs, inputs, rank(), size());
            } catch (RuntimeException e) {
                return Mono.error(e);  // before anything is copied or sent
            }
            return chunked("allToAll", inputs, outputs, 2 * size(), false,
                    m -> cpu.allToAll(map(outputs, m), map(inputs, m))).thenReturn(outputs);
        });
    }

    /**
     * With equal splits (empty split arrays; then every rank's slices have one size), chunk k of
     * each of the world slices per all-to-all on the wrapped group. With explicit splits the same,
     * over slices that may differ in size, after the ranks agree on the number of chunks; splits
     * that do not fit the tensors fail at once, before anything is copied or sent.
     */
    @Override
    public Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits) {
        return lane.run(() -> {
            boolean equal = (outputSplits == null || outputSplits.length == 0) && (inputSplits == null || inputSplits.length == 0);
            List<Tensor> ins = equal && input.numel() % size() == 0 ? slices(input, input.numel() / size()) : null;
            List<Tensor> outs = ins != null && output.numel() == input.numel() ? slices(output, output.numel() / size()) : null;
            if (outs != null) {
                return chunked("allToAllSingle", ins, outs, 2 * size(), true, m -> cpu.allToAll(map(outs, m), map(ins, m)))
                        .thenReturn(output);
            }
            if (equal) {
                return whole(List.of(input), List.of(output),
                        m -> cpu.allToAllSingle(m.get(output), m.get(input), outputSplits, inputSplits)).thenReturn(output);
            }
            CollectiveArguments.AllToAllSplits splits;
            try {
                checkTensor("allToAllSingle", input);
                checkTensor("allToAllSingle", output);
                splits = CollectiveArguments.allToAllSingle(output, input, outputSplits, inputSplits, rank(), size());
            } catch (RuntimeException e) {
                return Mono.error(e);  // before anything is copied or sent
            }
            List<Tensor> sends = splitSlices(input, splits.inputRows(), splits.rowElements());
            List<Tensor> recvs = splitSlices(output, splits.outputRows(), splits.rowElements());
            return chunked("allToAllSingle", sends, recvs, 2 * size(), false, m -> cpu.allToAll(map(recvs, m), map(sends, m)))
                    .thenReturn(output);
        });
    }

    /** The pieces of {@code t} (flattened) of {@code rows[p] x rowElements} elements, one per rank, in order. */
    private static List<Tensor> splitSlices(Tensor t, long[] rows, long rowElements) {
        Tensor flat = t.flatten();
        List<Tensor> out = new ArrayList<>(rows.length);
        long at = 0;
        for (long r : rows) {
            out.add(flat.narrow(at, r * rowElements));
            at += r * rowElements;
        }
        return out;
    }

    @Override
    public Mono<Void> batchSendRecv(List<P2POp> ops) {
        return Mono.defer(() -> {
            List<Tensor> ins = new ArrayList<>();
            List<Tensor> outs = new ArrayList<>();
            for (P2POp p : ops) {
                (p.type() == P2POp.Type.SEND ? ins : outs).add(p.tensor());
            }
            return whole(ins, outs, m -> {
                List<P2POp> hostOps = new ArrayList<>();
                for (P2POp p : ops) {
                    hostOps.add(new P2POp(p.type(), m.get(p.tensor()), p.peer(), p.tag()));
                }
                return cpu.batchSendRecv(hostOps);
            }).then();
        });
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

    // ------------------------------------------------------------------ helpers

    /**
     * Copies the CUDA tensors of {@code ins} into new host tensors, runs {@code call} with a map from
     * every tensor to its host counterpart (CPU tensors map to themselves), copies the host
     * counterparts of the CUDA tensors of {@code outs} back, and releases the host tensors.
     */
    private <T> Mono<T> whole(List<Tensor> ins, List<Tensor> outs, Function<Map<Tensor, Tensor>, Mono<T>> call) {
        return Mono.defer(() -> {
            Map<Tensor, Tensor> hostOf = new IdentityHashMap<>();
            List<Tensor> temps = new ArrayList<>();
            try {
                for (List<Tensor> l : List.of(ins, outs)) {
                    for (Tensor t : l) {
                        if (!hostOf.containsKey(t)) {
                            if (t.isCpu()) {
                                hostOf.put(t, t);
                            } else {
                                Tensor h = Tensor.empty(t.dtype(), t.shape());
                                temps.add(h);
                                hostOf.put(t, h);
                            }
                        }
                    }
                }
            } catch (RuntimeException e) {
                temps.forEach(Tensor::release);
                throw e;
            }
            Flux<Void> copyIn = Flux.fromIterable(ChunkPipeline.deviceTensors(ins)).flatMap(t -> copier.copy(t, hostOf.get(t)));
            Flux<Void> copyOut = Flux.fromIterable(ChunkPipeline.deviceTensors(outs)).flatMap(t -> copier.copy(hostOf.get(t), t));
            return copyIn.then(Mono.defer(() -> call.apply(hostOf)))
                    .flatMap(r -> copyOut.then(Mono.just(r)))
                    .switchIfEmpty(Mono.defer(() -> copyOut.then(Mono.empty())))
                    .doFinally(s -> temps.forEach(Tensor::release));
        });
    }

    /**
     * {@link ChunkPipeline#runMany} when some tensor is on a device and all have one dtype and one
     * size (which the operations chunked this way require of correct input), else {@link #whole}
     * (CPU tensors only, or input the wrapped group will reject with its own message). A chunk
     * holds 1 + world size tensors' worth of slots on every rank, so all ranks cut alike.
     */
    private Mono<Void> chunked(String op, List<Tensor> ins, List<Tensor> outs, Function<Map<Tensor, Tensor>, Mono<?>> call) {
        return chunked(op, ins, outs, 1 + size(), true, call);
    }

    /**
     * Chunk by chunk with {@code slots} tensors per chunk on every rank. With {@code sameSize}, every
     * tensor of the operation has one size on every rank, so every rank cuts the same chunks
     * ({@link ChunkPipeline#runMany}). Without (an all-to-all's per-peer pieces), each rank knows
     * only its own tensors: the ranks first agree on the number of chunks, the largest any of them
     * needs (an all-reduce of one number, MAX, on the wrapped group), and each then issues that many
     * collectives ({@link ChunkPipeline#runChunks}). All-host tensors, mixed dtypes, or (with
     * {@code sameSize}) sizes that differ go {@link #whole}.
     */
    private Mono<Void> chunked(String op, List<Tensor> ins, List<Tensor> outs, int slots, boolean sameSize,
                               Function<Map<Tensor, Tensor>, Mono<?>> call) {
        return Mono.defer(() -> {
            List<Tensor> all = new ArrayList<>(ins);
            all.addAll(outs);
            boolean device = false;
            boolean alike = !all.isEmpty();
            for (Tensor t : all) {
                checkTensor(op, t);
                device |= !t.isCpu();
                alike &= t.dtype() == all.get(0).dtype() && (!sameSize || t.numel() == all.get(0).numel());
            }
            if (!device || !alike) {
                return whole(ins, outs, m -> call.apply(m).then(Mono.just(Boolean.TRUE))).then();
            }
            DType dtype = all.get(0).dtype();
            long opId = opIds.incrementAndGet();
            if (sameSize) {
                return pipeline.runMany(op, opId, dtype, all.get(0).numel(), slots, ins, outs, call);
            }
            long per = pipeline.elementsPerSlot(dtype, slots);
            long needed = 1;
            for (Tensor t : all) {
                needed = Math.max(needed, (t.numel() + per - 1) / per);
            }
            Tensor count = Tensor.fromLongs(new long[] {needed});
            return cpu.allReduce(count, ReduceOp.MAX)
                    .map(c -> c.getLong(0))
                    .doFinally(sig -> count.release())
                    .flatMap(chunks -> pipeline.runChunks(op, opId, dtype, per, Math.toIntExact(chunks), ins, outs, call));
        });
    }

    /** The {@code size()} consecutive slices of {@code numel} elements of {@code t}, or null if it is not that big. */
    private List<Tensor> slices(Tensor t, long numel) {
        checkTensor("slices", t);
        if (t.numel() != numel * size()) {
            return null;
        }
        long[] each = new long[size()];
        Arrays.fill(each, numel);
        return splitSlices(t, each, 1);
    }

    private static List<Tensor> map(List<Tensor> l, Map<Tensor, Tensor> m) {
        List<Tensor> out = new ArrayList<>(l.size());
        for (Tensor t : l) {
            out.add(m.get(t));
        }
        return out;
    }

    private static void checkTensor(String op, Tensor t) {
        if (t == null) {
            throw new IllegalArgumentException(op + ": tensor is null");
        }
        if (t.refCnt() == 0) {
            throw new IllegalArgumentException(op + ": " + t + " was released");
        }
        if (!t.isCpu() && !t.device().isCuda()) {
            throw new IllegalArgumentException(op + ": " + t + " is on an unsupported device");
        }
    }

    private void checkRank(String op, String what, int r) {
        if (r < 0 || r >= size()) {
            throw new IllegalArgumentException(op + ": " + what + " " + r + " is not a rank of a group of " + size());
        }
    }

    private void checkPeer(String op, int peer) {
        checkRank(op, "peer", peer);
        if (peer == rank()) {
            throw new IllegalArgumentException(op + ": rank " + rank() + " cannot " + op + " to itself");
        }
    }
}
