package io.reactivecollectives.transport;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.transport.algorithms.AllGatherSparseAllReduce;
import io.reactivecollectives.transport.algorithms.BinomialTreeGather;
import io.reactivecollectives.transport.algorithms.BinomialTreeScatter;
import io.reactivecollectives.transport.algorithms.DirectGather;
import io.reactivecollectives.transport.algorithms.DirectScatter;
import io.reactivecollectives.transport.algorithms.MonitoredBarrier;
import io.reactivecollectives.transport.algorithms.PairwiseAllToAll;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.PhasePeers;
import io.reactivecollectives.transport.algorithms.Region;
import io.reactivecollectives.transport.algorithms.RingAllGather;
import io.reactivecollectives.transport.algorithms.RingReduceScatter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The gathers, scatters, reduce-scatters, all-to-alls, the monitored barrier and the sparse
 * all-reduce of {@link TcpProcessGroup}: argument checks (run before anything is sent) and bodies
 * that lay the tensors out as {@link Region}s and run one algorithm per op over one collective's
 * {@link Peers}. Stateless.
 */
final class FullSetCollectives {

    private FullSetCollectives() {
    }

    // ------------------------------------------------------------------ checks

    static void cpu(String op, List<Tensor> ts, String what) {
        if (ts != null) {
            for (int i = 0; i < ts.size(); i++) {
                CollectiveArguments.requireCpu(op, ts.get(i), what + "[" + i + "]");
            }
        }
    }

    static void checkAllGather(List<Tensor> outputs, Tensor input, int size) {
        CollectiveArguments.allGather(outputs, input, size);
        CollectiveArguments.requireCpu("allGather", input, "input");
        cpu("allGather", outputs, "outputs");
    }

    static void checkAllGatherInto(Tensor output, Tensor input, int size) {
        CollectiveArguments.allGatherInto(output, input, size);
        CollectiveArguments.requireCpu("allGatherInto", input, "input");
        CollectiveArguments.requireCpu("allGatherInto", output, "output");
    }

    static void checkAllGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs, int size) {
        CollectiveArguments.allGatherCoalesced(outputs, inputs, size);
        cpu("allGatherCoalesced", inputs, "inputs");
        for (int i = 0; i < outputs.size(); i++) {
            cpu("allGatherCoalesced", outputs.get(i), "outputs[" + i + "]");
        }
    }

    static void checkGather(List<Tensor> outputs, Tensor input, int root, int rank, int size, Algorithm forced) {
        CollectiveArguments.gather(outputs, input, root, rank, size);
        CollectiveArguments.requireCpu("gather", input, "input");
        cpu("gather", outputs, "outputs");
        rootedAlgorithm("gather", forced, 0, 0);
    }

    static void checkScatter(Tensor output, List<Tensor> inputs, int root, int rank, int size, Algorithm forced) {
        CollectiveArguments.scatter(output, inputs, root, rank, size);
        CollectiveArguments.requireCpu("scatter", output, "output");
        cpu("scatter", inputs, "inputs");
        rootedAlgorithm("scatter", forced, 0, 0);
    }

    static void checkReduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op, int size) {
        CollectiveArguments.reduceScatter(output, inputs, op, size);
        CollectiveArguments.requireCpu("reduceScatter", output, "output");
        cpu("reduceScatter", inputs, "inputs");
    }

    static void checkReduceScatterTensor(Tensor output, Tensor input, ReduceOp op, int size) {
        CollectiveArguments.reduceScatterTensor(output, input, op, size);
        CollectiveArguments.requireCpu("reduceScatterTensor", output, "output");
        CollectiveArguments.requireCpu("reduceScatterTensor", input, "input");
    }

    static void checkReduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op, int size) {
        CollectiveArguments.reduceScatterTensorCoalesced(outputs, inputs, op, size);
        cpu("reduceScatterTensorCoalesced", outputs, "outputs");
        cpu("reduceScatterTensorCoalesced", inputs, "inputs");
    }

    static void checkAllToAll(List<Tensor> outputs, List<Tensor> inputs, int rank, int size) {
        CollectiveArguments.allToAll(outputs, inputs, rank, size);
        cpu("allToAll", outputs, "outputs");
        cpu("allToAll", inputs, "inputs");
    }

    static CollectiveArguments.AllToAllSplits checkAllToAllSingle(Tensor output, Tensor input, long[] outputSplits,
                                                                  long[] inputSplits, int rank, int size) {
        CollectiveArguments.AllToAllSplits s = CollectiveArguments.allToAllSingle(output, input, outputSplits, inputSplits, rank, size);
        CollectiveArguments.requireCpu("allToAllSingle", output, "output");
        CollectiveArguments.requireCpu("allToAllSingle", input, "input");
        return s;
    }

    /** Binomial tree up to {@code smallBytes} in all, direct above; or the forced one. */
    static Algorithm rootedAlgorithm(String op, Algorithm forced, long totalBytes, long smallBytes) {
        switch (forced) {
            case AUTO:
                return totalBytes <= smallBytes ? Algorithm.BINOMIAL_TREE : Algorithm.DIRECT;
            case BINOMIAL_TREE:
            case DIRECT:
                return forced;
            default:
                throw new IllegalArgumentException(op + ": algorithm " + forced + " does not implement " + op
                        + " (use AUTO, BINOMIAL_TREE or DIRECT)");
        }
    }

    // ------------------------------------------------------------------ layouts

    private static Region[] regions(List<Tensor> ts) {
        Region[] out = new Region[ts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Region.of(ts.get(i));
        }
        return out;
    }

    /** {@code n} equal consecutive regions of a tensor's bytes. */
    private static Region[] split(Tensor t, int n) {
        Region all = Region.of(t);
        int each = all.length() / n;
        Region[] out = new Region[n];
        for (int i = 0; i < n; i++) {
            out[i] = all.sub(i * each, each);
        }
        return out;
    }

    private static Mono<Void> withBuffer(int bytes, java.util.function.Function<ByteBuf, Mono<Void>> body) {
        return Mono.usingWhen(Mono.fromCallable(() -> Region.allocate(bytes)), body,
                b -> Mono.fromRunnable(b::release));
    }

    // ------------------------------------------------------------------ gathers

    static Mono<Void> allGather(Peers p, List<Tensor> outputs, Tensor input) {
        return Mono.defer(() -> {
            Region[] blocks = regions(outputs);
            blocks[p.rank()].copyFrom(Region.of(input));
            return RingAllGather.run(p, blocks);
        });
    }

    static Mono<Void> allGatherInto(Peers p, Tensor output, Tensor input) {
        return Mono.defer(() -> {
            Region[] blocks = split(output, p.size());
            blocks[p.rank()].copyFrom(Region.of(input));
            return RingAllGather.run(p, blocks);
        });
    }

    /** Flattens the inputs into one block per rank (as gloo's allgather_coalesced), one ring, then copies out. */
    static Mono<Void> allGatherCoalesced(Peers p, List<List<Tensor>> outputs, List<Tensor> inputs) {
        int n = p.size();
        int total = 0;
        for (Tensor t : inputs) {
            total = Math.addExact(total, Math.toIntExact(t.nbytes()));
        }
        int block = total;
        return withBuffer(Math.multiplyExact(n, block), buf -> {
            Region all = new Region(buf, 0, n * block);
            Region[] blocks = new Region[n];
            for (int q = 0; q < n; q++) {
                blocks[q] = all.sub(q * block, block);
            }
            int off = 0;
            for (Tensor t : inputs) {
                int len = (int) t.nbytes();
                blocks[p.rank()].sub(off, len).copyFrom(Region.of(t));
                off += len;
            }
            return RingAllGather.run(p, blocks).then(Mono.fromRunnable(() -> {
                for (int q = 0; q < n; q++) {
                    int o = 0;
                    for (int i = 0; i < inputs.size(); i++) {
                        int len = (int) inputs.get(i).nbytes();
                        Region.of(outputs.get(i).get(q)).copyFrom(blocks[q].sub(o, len));
                        o += len;
                    }
                }
            }));
        });
    }

    static Mono<Void> gather(Peers p, List<Tensor> outputs, Tensor input, int root, Algorithm a) {
        return Mono.defer(() -> {
            Region[] outs = p.rank() == root ? regions(outputs) : null;
            return a == Algorithm.DIRECT ? DirectGather.run(p, root, Region.of(input), outs)
                    : BinomialTreeGather.run(p, root, Region.of(input), outs);
        });
    }

    static Mono<Void> scatter(Peers p, Tensor output, List<Tensor> inputs, int root, Algorithm a) {
        return Mono.defer(() -> {
            Region[] ins = p.rank() == root ? regions(inputs) : null;
            return a == Algorithm.DIRECT ? DirectScatter.run(p, root, ins, Region.of(output))
                    : BinomialTreeScatter.run(p, root, ins, Region.of(output));
        });
    }

    // ------------------------------------------------------------------ reduce-scatters

    static Mono<Void> reduceScatter(Peers p, Tensor output, List<Tensor> inputs, ReduceOp op) {
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM) {
            return Mono.defer(() -> reduceScatterBlocks(p, output, regions(inputs), op));
        }
        // PREMUL_SUM scales each rank's input once: on copies, the caller's inputs stay as they are
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    List<Tensor> copies = new ArrayList<>(inputs.size());
                    for (Tensor t : inputs) {
                        Tensor c = t.copy();
                        copies.add(c);
                        ReduceKernels.preprocess(op, c);
                    }
                    return copies;
                }),
                copies -> reduceScatterBlocks(p, output, regions(copies), op),
                copies -> Mono.fromRunnable(() -> copies.forEach(Tensor::release)));
    }

    static Mono<Void> reduceScatterTensor(Peers p, Tensor output, Tensor input, ReduceOp op) {
        if (op.kind() != ReduceOp.Kind.PREMUL_SUM) {
            return Mono.defer(() -> reduceScatterBlocks(p, output, split(input, p.size()), op));
        }
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    Tensor c = input.copy();
                    ReduceKernels.preprocess(op, c);
                    return c;
                }),
                c -> reduceScatterBlocks(p, output, split(c, p.size()), op),
                c -> Mono.fromRunnable(c::release));
    }

    private static Mono<Void> reduceScatterBlocks(Peers p, Tensor output, Region[] blocks, ReduceOp op) {
        return RingReduceScatter.run(p, op, output.dtype(), blocks, Region.of(output))
                .then(Mono.fromRunnable(() -> ReduceKernels.postprocess(op, output, p.size())));
    }

    /** One ring reduce-scatter per pair, one after the other, each in its own phase of the collective. */
    static Mono<Void> reduceScatterTensorCoalesced(Peers p, List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        return Flux.range(0, inputs.size())
                .concatMap(i -> reduceScatterTensor(PhasePeers.of(p, i), outputs.get(i), inputs.get(i), op))
                .then();
    }

    // ------------------------------------------------------------------ all-to-all

    static Mono<Void> allToAll(Peers p, List<Tensor> outputs, List<Tensor> inputs) {
        return Mono.defer(() -> PairwiseAllToAll.run(p, regions(inputs), regions(outputs)));
    }

    static Mono<Void> allToAllSingle(Peers p, Tensor output, Tensor input, CollectiveArguments.AllToAllSplits s) {
        return Mono.defer(() -> {
            int n = p.size();
            int es = input.dtype().byteSize();
            Region in = Region.of(input);
            Region out = Region.of(output);
            Region[] send = new Region[n];
            Region[] recv = new Region[n];
            for (int q = 0; q < n; q++) {
                send[q] = in.sub(Math.toIntExact(s.inputOffset(q) * es),
                        Math.toIntExact(s.inputRows()[q] * s.rowElements() * es));
                recv[q] = out.sub(Math.toIntExact(s.outputOffset(q) * es),
                        Math.toIntExact(s.outputRows()[q] * s.rowElements() * es));
            }
            return PairwiseAllToAll.run(p, send, recv);
        });
    }

    // ------------------------------------------------------------------ the rest

    static Mono<Void> monitoredBarrier(Peers p, Duration timeout, boolean waitAllRanks) {
        return MonitoredBarrier.run(p, timeout, waitAllRanks);
    }

    static Mono<SparseTensor> allReduceSparse(Peers p, SparseTensor tensor) {
        return AllGatherSparseAllReduce.run(p, tensor);
    }

}
