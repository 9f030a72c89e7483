package io.reactivecollectives.cuda;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * The operations of {@link HostStagedProcessGroup} on one tensor, which the {@link ChunkPipeline}
 * runs chunk by chunk (allReduce, allReduceCoalesced one tensor after the other, reduce, broadcast,
 * send, recv; recvAnySource whole): arguments checked with {@link CollectiveArguments} at
 * subscription, CPU tensors straight to the wrapped group; collectives in the group's turn
 * ({@link OrderedLane}), point-to-point at once.
 */
final class StagedPipelineOps {

    private final ProcessGroup cpu;
    private final ChunkPipeline pipeline;
    private final HostStaging staging;
    private final OrderedLane lane;

    StagedPipelineOps(ProcessGroup cpu, HostStaging staging, OrderedLane lane) {
        this.cpu = cpu;
        this.pipeline = staging.pipeline();
        this.staging = staging;
        this.lane = lane;
    }

    private int rank() {
        return cpu.rank();
    }

    private int size() {
        return cpu.size();
    }

    /**
     * For a CUDA tensor: the chunked pipeline, emitting {@code tensor} once the reduced bytes are back
     * on the device; for a CPU tensor, the wrapped group's allReduce.
     */
    Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions opts) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("allReduce", tensor, "tensor");
            CollectiveArguments.requireReduceOp("allReduce", op, tensor.dtype());
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.allReduce(tensor, op, opts));
            }
            return lane.run(() -> pipeline.run("allReduce", staging.nextOpId(), tensor, true, true,
                    h -> cpu.allReduce(h, op, opts)).thenReturn(tensor));
        });
    }

    /** Tensors all on the CPU or all on devices, of one dtype; CUDA ones are staged one after the other. */
    Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions opts) {
        return Mono.defer(() -> {
            String name = "allReduceCoalesced";
            CollectiveArguments.requireNonEmpty(name, tensors, "tensors");
            Tensor first = tensors.get(0);
            for (int i = 0; i < tensors.size(); i++) {
                CollectiveArguments.requireSameDtype(name, tensors.get(i), first.dtype(), "tensors[" + i + "]");
                CollectiveArguments.requireSamePlacement(name, tensors.get(i), first, "tensors");
            }
            CollectiveArguments.requireReduceOp(name, op, first.dtype());
            if (first.isCpu()) {
                return lane.run(() -> cpu.allReduceCoalesced(tensors, op, opts));
            }
            List<Tensor> copy = List.copyOf(tensors);
            long id = staging.nextOpId();
            return lane.run(() -> Flux.fromIterable(copy)
                    .concatMap(t -> pipeline.run(name, id, t, true, true, h -> cpu.allReduce(h, op, opts)))
                    .then(Mono.just(copy)));
        });
    }

    /** Every rank copies in; only {@code root} copies the result back. */
    Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions opts) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("reduce", tensor, "tensor");
            CollectiveArguments.requireRank("reduce", "root", root, size());
            CollectiveArguments.requireReduceOp("reduce", op, tensor.dtype());
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.reduce(tensor, root, op, opts));
            }
            return lane.run(() -> pipeline.run("reduce", staging.nextOpId(), tensor, true, rank() == root,
                    h -> cpu.reduce(h, root, op, opts)).thenReturn(tensor));
        });
    }

    /** The root copies in, the other ranks copy back; per chunk, the wrapped group's broadcast. */
    Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions opts) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("broadcast", tensor, "tensor");
            CollectiveArguments.requireRank("broadcast", "root", root, size());
            if (tensor.isCpu()) {
                return lane.run(() -> cpu.broadcast(tensor, root, opts));
            }
            boolean isRoot = rank() == root;
            return lane.run(() -> pipeline.run("broadcast", staging.nextOpId(), tensor, isRoot, !isRoot,
                    h -> cpu.broadcast(h, root, opts)).thenReturn(tensor));
        });
    }

    /** Copies each chunk in and sends it with {@code tag}, chunk after chunk. */
    Mono<Void> send(Tensor tensor, int dst, int tag) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("send", tensor, "tensor");
            CollectiveArguments.requireOtherRank("send", "peer", dst, rank(), size());
            if (tensor.isCpu()) {
                return cpu.send(tensor, dst, tag);
            }
            return pipeline.runOneAtATime("send", staging.nextOpId(), tensor, true, false, h -> cpu.send(h, dst, tag));
        });
    }

    /** Receives each chunk with {@code tag}, chunk after chunk, and copies it back. */
    Mono<Tensor> recv(Tensor tensor, int src, int tag) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("recv", tensor, "tensor");
            CollectiveArguments.requireOtherRank("recv", "peer", src, rank(), size());
            if (tensor.isCpu()) {
                return cpu.recv(tensor, src, tag);
            }
            return pipeline.runOneAtATime("recv", staging.nextOpId(), tensor, false, true, h -> cpu.recv(h, src, tag))
                    .thenReturn(tensor);
        });
    }

    /** Receives the whole tensor into host memory (one source), then copies it back. */
    Mono<Integer> recvAnySource(Tensor tensor, int tag) {
        return Mono.defer(() -> {
            CollectiveArguments.requireTensor("recvAnySource", tensor, "tensor");
            return staging.whole(List.of(), List.of(tensor), m -> cpu.recvAnySource(m.get(tensor), tag));
        });
    }
}
