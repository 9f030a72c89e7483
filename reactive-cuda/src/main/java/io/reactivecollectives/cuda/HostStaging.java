package io.reactivecollectives.cuda;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * How {@link HostStagedProcessGroup} moves several tensors through host memory around one operation
 * of the wrapped group: whole ({@link #whole}: copy every device tensor in, run, copy back) or chunk
 * by chunk through the {@link ChunkPipeline} ({@link #chunked}); and the slicing of one tensor into
 * per-rank pieces that the chunked operations work on.
 */
final class HostStaging {

    private final ProcessGroup cpu;
    private final CopyEngine copier;
    private final ChunkPipeline pipeline;
    private final AtomicLong opIds = new AtomicLong();

    HostStaging(ProcessGroup cpu, CopyEngine copier, ChunkPipeline pipeline) {
        this.cpu = cpu;
        this.copier = copier;
        this.pipeline = pipeline;
    }

    /** The id of the next operation (stage events name it). */
    long nextOpId() {
        return opIds.incrementAndGet();
    }

    ChunkPipeline pipeline() {
        return pipeline;
    }

    /**
     * Copies the CUDA tensors of {@code ins} into new host tensors, runs {@code call} with a map from
     * every tensor to its host counterpart (CPU tensors map to themselves), copies the host
     * counterparts of the CUDA tensors of {@code outs} back, and releases the host tensors.
     */
    <T> Mono<T> whole(List<Tensor> ins, List<Tensor> outs, Function<Map<Tensor, Tensor>, Mono<T>> call) {
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
    Mono<Void> chunked(String op, List<Tensor> ins, List<Tensor> outs, Function<Map<Tensor, Tensor>, Mono<?>> call) {
        return chunked(op, ins, outs, 1 + cpu.size(), true, call);
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
    Mono<Void> chunked(String op, List<Tensor> ins, List<Tensor> outs, int slots, boolean sameSize,
                       Function<Map<Tensor, Tensor>, Mono<?>> call) {
        return Mono.defer(() -> {
            List<Tensor> all = new ArrayList<>(ins);
            all.addAll(outs);
            boolean device = false;
            boolean alike = !all.isEmpty();
            for (Tensor t : all) {
                CollectiveArguments.requireTensor(op, t, "tensor");
                device |= !t.isCpu();
                alike &= t.dtype() == all.get(0).dtype() && (!sameSize || t.numel() == all.get(0).numel());
            }
            if (!device || !alike) {
                return whole(ins, outs, m -> call.apply(m).then(Mono.just(Boolean.TRUE))).then();
            }
            DType dtype = all.get(0).dtype();
            long opId = nextOpId();
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

    /**
     * The {@code size()} consecutive slices of {@code numel} elements of {@code t}, or null if it is
     * not that big.
     */
    List<Tensor> slices(String op, Tensor t, long numel) {
        CollectiveArguments.requireTensor(op, t, "tensor");
        int size = cpu.size();
        if (t.numel() != numel * size) {
            return null;
        }
        long[] each = new long[size];
        Arrays.fill(each, numel);
        return splitSlices(t, each, 1);
    }

    /** The pieces of {@code t} (flattened) of {@code rows[p] x rowElements} elements, one per rank, in order. */
    static List<Tensor> splitSlices(Tensor t, long[] rows, long rowElements) {
        Tensor flat = t.flatten();
        List<Tensor> out = new ArrayList<>(rows.length);
        long at = 0;
        for (long r : rows) {
            out.add(flat.narrow(at, r * rowElements));
            at += r * rowElements;
        }
        return out;
    }

    /** Each tensor of {@code l} through {@code m} (device tensors to their host copies). */
    static List<Tensor> map(List<Tensor> l, Map<Tensor, Tensor> m) {
        List<Tensor> out = new ArrayList<>(l.size());
        for (Tensor t : l) {
            out.add(m.get(t));
        }
        return out;
    }
}
