package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.cuda.Cuda;
import io.reactivecollectives.cuda.CudaCopies;
import io.reactivecollectives.cuda.CudaTensors;
import io.reactivecollectives.cuda.HostStagedProcessGroup;
import io.reactivecollectives.cuda.PinnedBufferPool;
import io.reactivecollectives.transport.LocalCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;

/**
 * The CUDA benchmark of issue 8, for a machine with a GPU:
 * <ol>
 *   <li>pinned host-to-device and device-to-host copy bandwidth through {@link CudaCopies} (each copy
 *       a {@code Mono} that completes after its event, waited for on the CUDA scheduler), for 64 MiB
 *       and 1 GiB;</li>
 *   <li>the host-staged all-reduce of a 256 MiB FLOAT32 CUDA tensor between 2 ranks that share the
 *       GPU (a {@link HostStagedProcessGroup} over each rank of a {@code LocalCluster}), and its three
 *       stages timed alone on both ranks at once, with the same chunks and depth: copies in, the
 *       chunks' all-reduces on the host, copies out.</li>
 * </ol>
 * Prints the rows of {@code perf/scripts/torch_cuda_copy_bench.py} ({@code impl what bytes time_us GB/s}),
 * and the overlap ratio (total / slowest stage alone; the target is at most 1.15). Run both with
 * {@code perf/scripts/cuda_bench.sh}.
 */
@Command(name = "cuda-bench", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Pinned copy bandwidth and host-staged all-reduce of CUDA tensors (reactive-cuda).")
public final class CudaBenchmark implements Callable<Integer> {

    @Option(names = "--sizes", split = ",", defaultValue = "67108864,1073741824", description = "copy sizes in bytes")
    long[] sizes;

    @Option(names = "--iters", defaultValue = "41", description = "timed copies per size and direction (the median is reported)")
    int iters;

    @Option(names = "--warmup", defaultValue = "50", description = "untimed copies per size first (the JIT compiles the path)")
    int warmup;

    @Option(names = "--device", defaultValue = "0")
    int device;

    @Option(names = "--allreduce-bytes", defaultValue = "268435456")
    long allReduceBytes;

    @Option(names = "--allreduce-iters", defaultValue = "9")
    int allReduceIters;

    @Option(names = "--chunk-bytes", defaultValue = "33554432", description = "chunk of the staged pipeline (the library default)")
    int chunkBytes;

    @Option(names = "--depth", defaultValue = "2", description = "chunks copied in (and out) at once")
    int depth;

    @Option(names = "--skip-copies")
    boolean skipCopies;

    @Option(names = "--skip-allreduce")
    boolean skipAllReduce;

    public static void main(String[] args) {
        int rc = Cli.execute(new CudaBenchmark(), args);
        System.exit(rc);
    }

    /** The benchmark's main thread waits for each measurement (a program, not library code). */
    private static <T> T await(Mono<T> m) {
        return m.toFuture().join();
    }

    private static void row(String what, long bytes, double seconds) {
        System.out.printf("%6s %-22s %12d %12.1f %8.2f%n", "rc", what, bytes, seconds * 1e6, bytes / seconds / 1e9);
    }

    private static Mono<Long> timed(Mono<?> work) {
        return Mono.defer(() -> {
            long t0 = System.nanoTime();
            return work.then(Mono.fromCallable(() -> System.nanoTime() - t0));
        });
    }

    @Override
    public Integer call() {
        if (!Cuda.isAvailable()) {
            System.err.println("CUDA unavailable: " + Cuda.unavailableReason());
            return 2;
        }
        System.out.println("# reactive-collectives cuda benchmark, " + Cuda.device(device));
        System.out.printf("%6s %-22s %12s %12s %8s%n", "impl", "what", "bytes", "time_us", "GB/s");
        if (!skipCopies) {
            copies();
        }
        if (!skipAllReduce) {
            allReduce();
        }
        return 0;
    }

    private static Tensor slabTensor(ByteBuf slab, DType dtype, long numel) {
        slab.writerIndex(Math.toIntExact(numel * dtype.byteSize()));
        return Tensor.wrap(slab, dtype, numel);
    }

    private void copies() {
        CudaCopies copies = CudaCopies.create();
        Device dev = Device.cuda(device);
        for (long n : sizes) {
            try (PinnedBufferPool pool = PinnedBufferPool.pinned(Math.toIntExact(n), 2)) {
                Tensor host = slabTensor(await(pool.acquire()), DType.UINT8, n);
                Tensor back = slabTensor(await(pool.acquire()), DType.UINT8, n);
                Tensor d = CudaTensors.empty(dev, DType.UINT8, n);
                try {
                    PlatformDependent.setMemory(host.address(), n, (byte) 3);
                    PlatformDependent.setMemory(back.address(), n, (byte) 0);
                    for (int i = 0; i < warmup; i++) {
                        await(copies.copy(host, d).then(copies.copy(d, back)));
                    }
                    long[] ins = new long[iters];
                    long[] outs = new long[iters];
                    for (int i = 0; i < iters; i++) {
                        ins[i] = await(timed(copies.copy(host, d)));
                        outs[i] = await(timed(copies.copy(d, back)));
                    }
                    java.util.Arrays.sort(ins);
                    java.util.Arrays.sort(outs);
                    for (long i = 0; i < n; i += 4093) {
                        if (PlatformDependent.getByte(back.address() + i) != 3) {
                            throw new IllegalStateException("round trip lost byte " + i);
                        }
                    }
                    row("h2d_pinned_median", n, ins[iters / 2] / 1e9);
                    row("d2h_pinned_median", n, outs[iters / 2] / 1e9);
                    row("h2d_pinned_best", n, ins[0] / 1e9);
                    row("d2h_pinned_best", n, outs[0] / 1e9);
                } finally {
                    host.release();
                    back.release();
                    d.release();
                }
            }
        }
    }

    private void allReduce() {
        long count = allReduceBytes / 4;
        LocalCluster cluster = await(LocalCluster.start(2));
        List<ProcessGroup> cpu = new ArrayList<>(cluster.groups());
        HostStagedProcessGroup.Options opts = HostStagedProcessGroup.Options.DEFAULT.withChunkBytes(chunkBytes).withDepth(depth);
        List<HostStagedProcessGroup> groups = new ArrayList<>();
        List<Tensor> dev = new ArrayList<>();
        CudaCopies copies = CudaCopies.create();
        Tensor ones = Tensor.empty(DType.FLOAT32, count);
        try {
            for (long i = 0; i < count; i++) {
                ones.buffer().setFloatLE((int) (i * 4), 1f);
            }
            for (ProcessGroup g : cpu) {
                groups.add(HostStagedProcessGroup.create(g, opts));
                dev.add(CudaTensors.empty(Device.cuda(device), DType.FLOAT32, count));
            }
            Mono<Void> reset = Flux.fromIterable(dev).concatMap(t -> copies.copy(ones, t)).then();
            Mono<Void> staged = Mono.when(groups.get(0).allReduce(dev.get(0), ReduceOp.SUM),
                    groups.get(1).allReduce(dev.get(1), ReduceOp.SUM));
            // correctness once
            await(reset.then(staged));
            Tensor check = await(CudaTensors.toHost(dev.get(1), copies));
            try {
                if (check.getDouble(0) != 2.0 || check.getDouble(count - 1) != 2.0) {
                    throw new IllegalStateException("staged all-reduce gave " + check.getDouble(0) + ", expected 2");
                }
            } finally {
                check.release();
            }

            long per = Math.max(1, chunkBytes / 4);
            int chunks = (int) ((count + per - 1) / per);
            BiFunction<Integer, Integer, Tensor> chunkOf = (r, k) -> dev.get(r).narrow(k * per, Math.min(per, count - k * per));

            Mono<Void> copyIn = Mono.when(stage(groups, r -> Flux.range(0, chunks).flatMapSequential(k ->
                    groups.get(r).pool().withSlab(s -> {
                        Tensor c = chunkOf.apply(r, k);
                        Tensor h = slabTensor(s.retain(), DType.FLOAT32, c.numel());
                        return copies.copy(c, h).doFinally(x -> h.release());
                    }), depth, 1).then()));
            Mono<Void> network = Mono.when(stage(groups, r -> Flux.range(0, chunks).flatMapSequential(k ->
                    groups.get(r).pool().withSlab(s -> {
                        Tensor h = slabTensor(s.retain(), DType.FLOAT32, chunkOf.apply(r, k).numel());
                        return cpu.get(r).allReduce(h, ReduceOp.SUM).doFinally(x -> h.release());
                    }), depth, 1).then()));
            Mono<Void> copyOut = Mono.when(stage(groups, r -> Flux.range(0, chunks).flatMap(k ->
                    groups.get(r).pool().withSlab(s -> {
                        Tensor c = chunkOf.apply(r, k);
                        Tensor h = slabTensor(s.retain(), DType.FLOAT32, c.numel());
                        return copies.copy(h, c).doFinally(x -> h.release());
                    }), depth).then()));

            double total = measure(reset, staged);
            double in = measure(reset, copyIn);
            double net = measure(reset, network);
            double out = measure(reset, copyOut);
            row("staged_allreduce", allReduceBytes, total);
            row("stage_copies_in_alone", allReduceBytes, in);
            row("stage_network_alone", allReduceBytes, net);
            row("stage_copies_out_alone", allReduceBytes, out);
            double slowest = Math.max(in, Math.max(net, out));
            System.out.printf("# overlap: total / slowest stage alone = %.3f (target <= 1.15); chunk %d bytes, depth %d, %d chunks%n",
                    total / slowest, chunkBytes, depth, chunks);
        } finally {
            ones.release();
            dev.forEach(Tensor::release);
            groups.forEach(HostStagedProcessGroup::close);
            cluster.close();
        }
    }

    private static List<Mono<Void>> stage(List<HostStagedProcessGroup> groups, java.util.function.IntFunction<Mono<Void>> perRank) {
        List<Mono<Void>> out = new ArrayList<>();
        for (int r = 0; r < groups.size(); r++) {
            out.add(perRank.apply(r));
        }
        return out;
    }

    /** Median seconds of {@code work} over the all-reduce iterations, {@code reset} run untimed before each. */
    private double measure(Mono<Void> reset, Mono<Void> work) {
        for (int i = 0; i < 3; i++) {
            await(reset.then(work));
        }
        long[] times = new long[allReduceIters];
        for (int i = 0; i < allReduceIters; i++) {
            await(reset);
            times[i] = await(timed(work));
        }
        java.util.Arrays.sort(times);
        return times[allReduceIters / 2] / 1e9;
    }
}
