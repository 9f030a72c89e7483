package io.reactivecollectives.perf;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.TcpProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark CLI, in the layout of NVIDIA's nccl-tests: {@code op bytes count time_us algbw busbw}.
 *
 * <p>Run without {@code --rank}, it is the launcher: it starts an embedded TCP store, launches
 * {@code --world} rank JVMs of itself on this host, relays rank 0's table and exits with the first
 * failing rank's exit code. Each rank times {@code --iters} back-to-back collectives per size (a
 * tenth of them, at least 5, from 1 MiB up, as the peers' scripts do) after warm-up, and the slowest
 * rank's mean is reported. busbw uses nccl-tests' bus factors.
 */
@Command(name = "collectives-perf", mixinStandardHelpOptions = true,
        description = "Collective benchmarks in the nccl-tests layout (op bytes count time_us algbw busbw).")
public final class CollectivesPerf implements Callable<Integer> {

    @Option(names = "--op", defaultValue = "all_reduce",
            description = "all_reduce, broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter (default ${DEFAULT-VALUE})")
    String op;

    @Option(names = {"--world", "-n"}, defaultValue = "2", description = "number of rank processes (default ${DEFAULT-VALUE})")
    int world;

    @Option(names = {"--min", "-b"}, defaultValue = "4", description = "smallest size in bytes, K/M/G suffixes allowed (default ${DEFAULT-VALUE})")
    String min;

    @Option(names = {"--max", "-e"}, defaultValue = "64M", description = "largest size in bytes (default ${DEFAULT-VALUE})")
    String max;

    @Option(names = {"--step", "-f"}, defaultValue = "4", description = "size multiplication factor (default ${DEFAULT-VALUE})")
    int step;

    @Option(names = {"--dtype", "-d"}, defaultValue = "float32", description = "element type (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = {"--iters", "-i"}, defaultValue = "200", description = "collectives per timed batch below 1 MiB; a tenth (>= 5) from 1 MiB (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = {"--warmup", "-w"}, defaultValue = "5", description = "warm-up iterations per size (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--algorithm", defaultValue = "AUTO", description = "force an algorithm: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    Algorithm algorithm;

    @Option(names = "--repeat", defaultValue = "1", description = "time each size this many times and report the median (default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--min-time-ms", defaultValue = "500",
            description = "each timing runs batches of --iters collectives until at least this long (default ${DEFAULT-VALUE})")
    long minTimeMs;

    @Option(names = "--segment", defaultValue = "default",
            description = "the group's pipelined segment size in bytes, K/M suffixes allowed (default: the group's own)")
    String segment;

    @Option(names = "--depth", defaultValue = "0", description = "the group's pipeline depth (default: the group's own)")
    int depth;

    @Option(names = "--socket-buffer", defaultValue = "default",
            description = "SO_SNDBUF/SO_RCVBUF in bytes, K/M suffixes allowed (default: the kernel's)")
    String socketBuffer;

    @Option(names = "--results", defaultValue = "EVENT_LOOP",
            description = "where results are delivered: EVENT_LOOP (the group's default) or LIBRARY_THREADS")
    io.reactivecollectives.transport.ResultDelivery results;

    @Option(names = "--rank", hidden = true, defaultValue = "-1")
    int rank;

    @Option(names = "--tls-dir", description = "mutual TLS between the ranks with DIR/cert.pem and DIR/key.pem "
            + "(PKCS#8; the certificate trusts itself), e.g. from openssl req -x509 (see perf/RESULTS.md)")
    String tlsDir;

    @Option(names = "--env", description = "run as one rank of a launcher's job (torchrun's RANK, WORLD_SIZE, "
            + "MASTER_ADDR, MASTER_PORT; rank 0 serves the store), as across hosts (perf/scripts/multihost_compare.sh)")
    boolean env;

    @Option(names = "--store-port", hidden = true, defaultValue = "0")
    int storePort;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CollectivesPerf()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        validate();
        if (env) {
            java.util.Map<String, String> vars = System.getenv();
            try (io.reactivecollectives.transport.launch.Rendezvous rdv =
                         io.reactivecollectives.transport.launch.EnvRendezvous.connect(vars).block(Duration.ofSeconds(120))) {
                rank = rdv.rank();
                world = rdv.worldSize();
                return runRank(rdv.store(), io.reactivecollectives.transport.launch.EnvRendezvous.groupHost(vars));
            }
        }
        return rank < 0 ? PerfLauncher.launch(this) : runRank();
    }

    private void validate() {
        if (world < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--world must be >= 1, got " + world);
        }
        if (!BusFactor.known(op)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "unknown --op '" + op + "'; expected one of " + BusFactor.names());
        }
        if (step < 2 || iters < 1 || warmup < 0 || repeat < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "need --step >= 2, --iters >= 1, --warmup >= 0, --repeat >= 1");
        }
        DType.parse(dtype);
        if (Sizes.parse(min) > Sizes.parse(max)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--min is larger than --max");
        }
    }

    // ------------------------------------------------------------------ one rank

    private int runRank() {
        Store store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", storePort).withTimeout(Duration.ofSeconds(60)))
                .block(Duration.ofSeconds(60));
        try {
            return runRank(store, "127.0.0.1");
        } finally {
            store.close();
        }
    }

    private int runRank(Store store, String host) {
        DType dt = DType.parse(dtype);
        GroupOptions go = GroupOptions.defaults().withGroupId("perf").withResultDelivery(results).withHost(host);
        if (tlsDir != null && !tlsDir.isEmpty()) {
            java.io.File cert = new java.io.File(tlsDir, "cert.pem");
            try {
                go = go.withTls(io.reactivecollectives.transport.mesh.MeshTls.fromPem(cert, new java.io.File(tlsDir, "key.pem"), cert));
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalArgumentException("--tls-dir " + tlsDir + ": " + e.getMessage(), e);
            }
        }
        if (!"default".equals(segment)) {
            go = go.withSegmentBytes((int) Sizes.parse(segment));
        }
        if (depth > 0) {
            go = go.withPipelineDepth(depth);
        }
        if (!"default".equals(socketBuffer)) {
            go = go.withSocketBufferBytes((int) Sizes.parse(socketBuffer));
        }
        ProcessGroup group = TcpProcessGroup.connect(store, rank, world, go).block(Duration.ofSeconds(120));
        try {
            CollectiveOptions options = CollectiveOptions.algorithm(algorithm);
            if (rank == 0) {
                System.out.println("# reactive-collectives transport=" + Transport.describe(group) + " algorithm="
                        + Transport.algorithm(algorithm, op, go, world) + " jvm=" + System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.version") + " world=" + world + " op=" + op + " dtype=" + dt
                        + " kernels=" + io.reactivecollectives.core.kernels.ReduceKernels.implementation()
                        + " results=" + results);
                System.out.printf("%14s %12s %10s %10s %8s %8s%n", "op", "bytes", "count", "time_us", "algbw", "busbw");
                System.out.flush();
            }
            long maxBytes = Sizes.parse(max);
            warmUpEverySize(group, dt, maxBytes, options);
            for (long size = Sizes.parse(min); size <= maxBytes; size *= step) {
                long count = count(size, dt);
                int n = size < (1 << 20) ? iters : Math.max(5, iters / 10);
                try (OpBench bench = OpBench.create(op, group, dt, count, options)) {
                    double[] runs = new double[repeat];
                    for (int k = 0; k < repeat; k++) {
                        runs[k] = timeOnce(group, bench, n);
                    }
                    Arrays.sort(runs);
                    double seconds = runs[repeat / 2];
                    if (rank == 0) {
                        double bytes = (double) count * dt.byteSize();
                        double algbw = bytes / seconds / 1e9;
                        System.out.printf("%14s %12d %10d %10.1f %8.3f %8.3f%n", op, (long) bytes, count, seconds * 1e6,
                                algbw, algbw * BusFactor.of(op, world));
                        System.out.flush();
                    }
                }
            }
            return 0;
        } finally {
            group.close();
        }
    }

    /** Elements of {@code dt} benchmarked for {@code size} bytes (split ops: a multiple of the world size). */
    private long count(long size, DType dt) {
        long count = Math.max(1, size / dt.byteSize());
        if (BusFactor.splitsByWorld(op)) {
            count = Math.max(world, (count / world) * world);
        }
        return count;
    }

    /** Least time each size is warmed up for before it is timed. */
    private static final long WARMUP_NANOS = 300_000_000L;
    /** Least warm-up of the first size timed, while the JIT's queue from the sweep warm-up drains. */
    private static final long FIRST_WARMUP_NANOS = 2_000_000_000L;
    private boolean firstTiming = true;
    /** Least time of the first warm-up over every size of the sweep, while the JIT compiles each size's path. */
    private static final long SWEEP_WARMUP_NANOS = 8_000_000_000L;

    /**
     * Before anything is timed, runs the op at every size of the sweep (up to 4 MiB, where each
     * algorithm of the sweep has run; largest first, so that each round ends where the timings
     * start) round after round for {@link #SWEEP_WARMUP_NANOS}: the JIT
     * compiles every path then, instead of inside the timings of the first sizes (a JVM is measured
     * in its steady state, as JMH does; every rank runs the same rounds).
     */
    private void warmUpEverySize(ProcessGroup group, DType dt, long maxBytes, CollectiveOptions options) {
        List<OpBench> benches = new ArrayList<>();
        try {
            for (long size = Sizes.parse(min); size <= Math.min(maxBytes, 4L << 20); size *= step) {
                benches.add(0, OpBench.create(op, group, dt, count(size, dt), options));
            }
            long start = System.nanoTime();
            untilAllAgree(group, () -> {
                for (OpBench b : benches) {
                    Flux.range(0, Math.max(1, warmup)).concatMap(i -> b.run()).then().block();
                }
                return System.nanoTime() - start < SWEEP_WARMUP_NANOS;
            });
        } finally {
            benches.forEach(OpBench::close);
        }
    }

    /** Runs {@code round} until it returns false on every rank (the ranks agree through a MAX all-reduce). */
    private static void untilAllAgree(ProcessGroup group, java.util.function.BooleanSupplier round) {
        Tensor more = Tensor.fromDoubles(new double[] {1});
        try {
            while (more.getDouble(0) > 0) {
                more.setDouble(0, round.getAsBoolean() ? 1 : 0);
                group.allReduce(more, ReduceOp.MAX).block();
            }
        } finally {
            more.release();
        }
    }

    /**
     * Mean seconds per collective, the slowest rank's: batches of {@code n} back-to-back runs until
     * they add up to at least {@code --min-time-ms} (the agreement between batches is not timed).
     */
    private double timeOnce(ProcessGroup group, OpBench bench, int n) {
        long warmStart = System.nanoTime();
        long warmFor = firstTiming ? FIRST_WARMUP_NANOS : WARMUP_NANOS;
        firstTiming = false;
        untilAllAgree(group, () -> {
            Flux.range(0, Math.max(1, warmup)).concatMap(i -> bench.run()).then().block();
            return System.nanoTime() - warmStart < warmFor;
        });
        group.barrier().block();
        long[] timed = new long[2];  // nanos, collectives
        untilAllAgree(group, () -> {
            long t0 = System.nanoTime();
            Flux.range(0, n).concatMap(i -> bench.run()).then().block();
            timed[0] += System.nanoTime() - t0;
            timed[1] += n;
            return timed[0] < TimeUnit.MILLISECONDS.toNanos(minTimeMs);
        });
        double mine = timed[0] / 1e9 / timed[1];
        Tensor t = Tensor.fromDoubles(new double[] {mine});
        try {
            group.allReduce(t, ReduceOp.MAX).block();
            return t.getDouble(0);
        } finally {
            t.release();
        }
    }

    /** One benchmarked collective with its tensors, allocated once per size. */
    interface OpBench extends AutoCloseable {
        Mono<?> run();

        @Override
        void close();

        static OpBench create(String op, ProcessGroup g, DType dt, long count, CollectiveOptions options) {
            int n = g.size();
            List<Tensor> owned = new ArrayList<>();
            java.util.function.LongFunction<Tensor> alloc = c -> {
                Tensor t = Tensor.zeros(dt, c);
                owned.add(t);
                return t;
            };
            Mono<?> body;
            switch (op) {
                case "all_reduce": {
                    Tensor x = alloc.apply(count);
                    body = Mono.defer(() -> g.allReduce(x, ReduceOp.SUM, options));
                    break;
                }
                case "broadcast": {
                    Tensor x = alloc.apply(count);
                    body = Mono.defer(() -> g.broadcast(x, 0, options));
                    break;
                }
                case "reduce": {
                    Tensor x = alloc.apply(count);
                    body = Mono.defer(() -> g.reduce(x, 0, ReduceOp.SUM, options));
                    break;
                }
                case "all_gather": {
                    Tensor in = alloc.apply(count / n);
                    Tensor out = alloc.apply(count);
                    body = Mono.defer(() -> g.allGatherInto(out, in));
                    break;
                }
                case "reduce_scatter": {
                    Tensor in = alloc.apply(count);
                    Tensor out = alloc.apply(count / n);
                    body = Mono.defer(() -> g.reduceScatterTensor(out, in, ReduceOp.SUM));
                    break;
                }
                case "all_to_all": {
                    Tensor in = alloc.apply(count);
                    Tensor out = alloc.apply(count);
                    body = Mono.defer(() -> g.allToAllSingle(out, in, new long[0], new long[0]));
                    break;
                }
                case "gather": {
                    Tensor in = alloc.apply(count / n);
                    List<Tensor> outs = new ArrayList<>();
                    if (g.rank() == 0) {
                        for (int r = 0; r < n; r++) {
                            outs.add(alloc.apply(count / n));
                        }
                    }
                    body = Mono.defer(() -> g.gather(outs, in, 0));
                    break;
                }
                case "scatter": {
                    Tensor out = alloc.apply(count / n);
                    List<Tensor> ins = new ArrayList<>();
                    if (g.rank() == 0) {
                        for (int r = 0; r < n; r++) {
                            ins.add(alloc.apply(count / n));
                        }
                    }
                    body = Mono.defer(() -> g.scatter(out, ins, 0));
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown op " + op);
            }
            Mono<?> run = body;
            return new OpBench() {
                @Override
                public Mono<?> run() {
                    return run;
                }

                @Override
                public void close() {
                    owned.forEach(Tensor::release);
                }
            };
        }
    }
}
