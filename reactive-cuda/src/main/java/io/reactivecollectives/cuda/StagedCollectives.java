package io.reactivecollectives.cuda;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

import static io.reactivecollectives.cuda.HostStaging.map;

/**
 * The operations of {@link HostStagedProcessGroup} on several tensors, each a call of the wrapped
 * group on host copies: the all-gathers, gather, scatter, the reduce-scatters and the all-to-alls
 * chunk by chunk ({@link HostStaging#chunked}), the coalesced lists and batchSendRecv whole
 * ({@link HostStaging#whole}). Called in the group's turn (its {@link OrderedLane}); the group's
 * Javadoc describes the pipeline.
 */
final class StagedCollectives {

    private final ProcessGroup cpu;
    private final HostStaging staging;

    StagedCollectives(ProcessGroup cpu, HostStaging staging) {
        this.cpu = cpu;
        this.staging = staging;
    }

    private int size() {
        return cpu.size();
    }

    Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input) {
        return staging.chunked("allGather", List.of(input), outputs,
                m -> cpu.allGather(map(outputs, m), m.get(input))).thenReturn(outputs);
    }

    Mono<Tensor> allGatherInto(Tensor output, Tensor input) {
        List<Tensor> slices = staging.slices("allGatherInto", output, input.numel());
        if (slices == null) {
            return staging.whole(List.of(input), List.of(output), m -> cpu.allGatherInto(m.get(output), m.get(input)))
                    .thenReturn(output);
        }
        return staging.chunked("allGatherInto", List.of(input), slices, m -> cpu.allGather(map(slices, m), m.get(input)))
                .thenReturn(output);
    }

    Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs) {
        List<Tensor> outs = new ArrayList<>();
        outputs.forEach(outs::addAll);
        return staging.whole(inputs, outs, m -> {
            List<List<Tensor>> hostOuts = new ArrayList<>();
            for (List<Tensor> l : outputs) {
                hostOuts.add(map(l, m));
            }
            return cpu.allGatherCoalesced(hostOuts, map(inputs, m));
        }).thenReturn(outputs);
    }

    Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root) {
        return staging.chunked("gather", List.of(input), outputs, m -> cpu.gather(map(outputs, m), m.get(input), root))
                .thenReturn(outputs);
    }

    Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root) {
        return staging.chunked("scatter", inputs, List.of(output), m -> cpu.scatter(m.get(output), map(inputs, m), root))
                .thenReturn(output);
    }

    Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
        return staging.chunked("reduceScatter", inputs, List.of(output),
                m -> cpu.reduceScatter(m.get(output), map(inputs, m), op)).thenReturn(output);
    }

    Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
        List<Tensor> slices = staging.slices("reduceScatterTensor", input, output.numel());
        if (slices == null) {
            return staging.whole(List.of(input), List.of(output), m -> cpu.reduceScatterTensor(m.get(output), m.get(input), op))
                    .thenReturn(output);
        }
        return staging.chunked("reduceScatterTensor", slices, List.of(output),
                m -> cpu.reduceScatter(m.get(output), map(slices, m), op)).thenReturn(output);
    }

    Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        return staging.whole(inputs, outputs, m -> cpu.reduceScatterTensorCoalesced(map(outputs, m), map(inputs, m), op))
                .thenReturn(outputs);
    }

    Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs) {
        try {
            CollectiveArguments.allToAll(outputs, inputs, cpu.rank(), size());
        } catch (RuntimeException e) {
            return Mono.error(e);  // before anything is copied or sent
        }
        return staging.chunked("allToAll", inputs, outputs, 2 * size(), false,
                m -> cpu.allToAll(map(outputs, m), map(inputs, m))).thenReturn(outputs);
    }

    Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits) {
        boolean equal = (outputSplits == null || outputSplits.length == 0) && (inputSplits == null || inputSplits.length == 0);
        List<Tensor> ins = equal && input.numel() % size() == 0 ? staging.slices("allToAllSingle", input, input.numel() / size()) : null;
        List<Tensor> outs = ins != null && output.numel() == input.numel()
                ? staging.slices("allToAllSingle", output, output.numel() / size()) : null;
        if (outs != null) {
            return staging.chunked("allToAllSingle", ins, outs, 2 * size(), true, m -> cpu.allToAll(map(outs, m), map(ins, m)))
                    .thenReturn(output);
        }
        if (equal) {
            return staging.whole(List.of(input), List.of(output),
                    m -> cpu.allToAllSingle(m.get(output), m.get(input), outputSplits, inputSplits)).thenReturn(output);
        }
        CollectiveArguments.AllToAllSplits splits;
        try {
            splits = CollectiveArguments.allToAllSingle(output, input, outputSplits, inputSplits, cpu.rank(), size());
        } catch (RuntimeException e) {
            return Mono.error(e);  // before anything is copied or sent
        }
        List<Tensor> sends = HostStaging.splitSlices(input, splits.inputRows(), splits.rowElements());
        List<Tensor> recvs = HostStaging.splitSlices(output, splits.outputRows(), splits.rowElements());
        return staging.chunked("allToAllSingle", sends, recvs, 2 * size(), false, m -> cpu.allToAll(map(recvs, m), map(sends, m)))
                .thenReturn(output);
    }

    Mono<Void> batchSendRecv(List<P2POp> ops) {
        List<Tensor> ins = new ArrayList<>();
        List<Tensor> outs = new ArrayList<>();
        for (P2POp p : ops) {
            (p.type() == P2POp.Type.SEND ? ins : outs).add(p.tensor());
        }
        return staging.whole(ins, outs, m -> {
            List<P2POp> hostOps = new ArrayList<>();
            for (P2POp p : ops) {
                hostOps.add(new P2POp(p.type(), m.get(p.tensor()), p.peer(), p.tag()));
            }
            return cpu.batchSendRecv(hostOps);
        }).then();
    }
}
