package io.reactivecollectives.perf;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One rank of {@link CollectivesPerf}: joins the group, warms every size up, then times and checks
 * each size out of place and in place; rank 0 prints nccl-tests' header (every rank's pid and host
 * come through the store), the table and its footer, and writes the CSV and JSON files. Waits on its
 * own (main) thread: a program, not library code.
 */
final class PerfRank {

    /** Least time each size is warmed up for before it is timed. */
    private static final long WARMUP_NANOS = 300_000_000L;
    /** Least warm-up of the first size timed, while the JIT's queue from the sweep warm-up drains. */
    private static final long FIRST_WARMUP_NANOS = 2_000_000_000L;
    /** A batch shorter than this calibrates (not timed): the next one is ten times as long. */
    private static final long GROW_BELOW_NANOS = 50_000_000L;
    /** The largest batch. */
    private static final int MAX_BATCH = 1_000_000;
    /** Least time of the first warm-up over every size of the sweep, while the JIT compiles each size's path. */
    private static final long SWEEP_WARMUP_NANOS = 8_000_000_000L;
    /** A warm-up round shorter than this runs ten times as many collectives the next time (as timed batches grow). */
    private static final long WARMUP_ROUND_NANOS = 20_000_000L;

    private final CollectivesPerf o;
    private final PrintStream out;
    private final long warmupNanos;
    private final long firstWarmupNanos;
    private final long sweepWarmupNanos;
    private final long settleLimitNanos;
    private boolean firstTiming = true;

    PerfRank(CollectivesPerf options) {
        this(options, System.out);
    }

    /** A rank printing (rank 0) to {@code out}; {@code --warmup-time-ms} caps every warm-up, as a quick run wants. */
    PerfRank(CollectivesPerf options, PrintStream out) {
        this.o = options;
        this.out = out;
        long cap = options.warmupTimeMs < 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(options.warmupTimeMs);
        this.warmupNanos = Math.min(WARMUP_NANOS, cap);
        this.firstWarmupNanos = Math.min(FIRST_WARMUP_NANOS, cap);
        this.sweepWarmupNanos = Math.min(SWEEP_WARMUP_NANOS, cap);
        this.settleLimitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(options.settleTimeMs), cap);
    }

    /** Runs with the launcher's store on this host. */
    int run() throws IOException {
        Store store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", o.storePort).withTimeout(Duration.ofSeconds(60)))
                .block(Duration.ofSeconds(60));
        try {
            return run(store, "127.0.0.1");
        } finally {
            store.close();
        }
    }

    int run(Store store, String host) throws IOException {
        DType dt = DType.parse(o.dtype);
        GroupOptions go = groupOptions(host);
        ProcessGroup group = MeshProcessGroup.connect(store, o.rank, o.world, go).block(Duration.ofSeconds(120));
        double formedSeconds = (System.currentTimeMillis()
                - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3;
        try {
            CollectiveOptions options = CollectiveOptions.algorithm(o.algorithm);
            ReduceOp redop = o.reduction();
            PerfReport report = new PerfReport(meta(group, go, dt));
            boolean lead = o.rank == 0;
            String program = NcclTestsFormat.program(o.collective);
            PerfDevices.publish(store, o.rank, "CPU, Java " + Runtime.version().feature() + ", " + Transport.describe(group));
            if (lead) {
                print(header(program, report));
                print(PerfDevices.lines(store, o.world));
                print(NcclTestsFormat.columns());
            }
            List<Long> sizes = Sizes.sweep(Sizes.parse(o.min), Sizes.parse(o.max), o.factor(), o.increment());
            warmUpEverySize(group, dt, sizes, redop, options);
            for (long size : sizes) {
                long count = count(size, dt);
                int n = size < (1 << 20) ? o.iters : Math.max(5, o.iters / 10);
                NcclTestsFormat.Place[] places = new NcclTestsFormat.Place[2];
                for (int place = 0; place < 2; place++) {
                    try (OpBench bench = OpBench.create(o.collective, group, dt, count, redop, o.root, options, place == 1, o.blocking)) {
                        places[place] = measure(group, bench, n, count * dt.byteSize());
                    }
                }
                boolean split = BusFactor.splitsByWorld(o.collective);
                PerfReport.Row row = new PerfReport.Row(o.collective, count * dt.byteSize(), split ? count / o.world : count,
                        NcclTestsFormat.typeName(dt), o.reduces() ? o.op.toLowerCase(java.util.Locale.ROOT) : "none",
                        rooted() ? o.root : -1, places[0], places[1]);
                report.add(row);
                if (lead) {
                    print(List.of(PerfReport.line(row)));
                }
            }
            String footprint = o.extended ? footprint(group, formedSeconds) : null;
            if (lead) {
                if (footprint != null) {
                    print(List.of(footprint));
                }
                print(report.footer(program, o.world));
                write(o.csvFile, report.csv());
                write(o.jsonFile, report.json(o.world));
            }
            return report.passed() ? 0 : 1;
        } finally {
            group.close();
        }
    }

    /** nccl-tests' first lines: version, program, parameters, {@code -z}'s line ({@code --extended}: ours), {@code #}. */
    private List<String> header(String program, PerfReport report) {
        List<String> h = new ArrayList<>();
        h.add("# collectives-perf version " + io.reactivecollectives.core.Version.get() + " nccl-tests-layout="
                + NcclTestsFormat.LAYOUT_VERSION);
        h.add(NcclTestsFormat.STARTING + program);
        h.add(NcclTestsFormat.parameters(Sizes.parse(o.min), Sizes.parse(o.max), o.factor(), o.increment(), o.warmup, o.iters,
                o.check));
        h.addAll(NcclTestsFormat.blocking(o.blocking));
        if (o.extended) {
            h.add(report.title());
        }
        h.add("#");
        return h;
    }

    private void print(List<String> lines) {
        lines.forEach(out::println);
        out.flush();
    }

    /** One place of one size: the median of {@code --repeat} timings combined as {@code -a} says, then {@code -c} checks. */
    private NcclTestsFormat.Place measure(ProcessGroup group, OpBench bench, int n, long bytes) {
        double[] runs = new double[o.repeat];
        for (int k = 0; k < o.repeat; k++) {
            runs[k] = timeOnce(group, bench, n);
        }
        Arrays.sort(runs);
        double seconds = runs[o.repeat / 2];
        long wrong = PerfReport.NOT_CHECKED;
        if (o.check > 0) {
            long mine = 0;
            for (int c = 0; c < o.check; c++) {
                mine += bench.check();
            }
            wrong = (long) combine(group, mine, ReduceOp.SUM);
        }
        double algbw = bytes / seconds / 1e9;
        return new NcclTestsFormat.Place(seconds * 1e6, algbw, algbw * BusFactor.of(o.collective, o.world), wrong);
    }

    private boolean rooted() {
        return List.of("broadcast", "reduce", "gather", "scatter").contains(o.collective);
    }

    private Map<String, String> meta(ProcessGroup group, GroupOptions go, DType dt) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("transport", Transport.describe(group));
        m.put("algorithm", Transport.algorithm(o.algorithm, o.collective, go, o.world));
        m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("version", io.reactivecollectives.core.Version.get());
        m.put("world", Integer.toString(o.world));
        m.put("op", o.collective);
        m.put("dtype", dt.toString());
        if (o.reduces()) {
            m.put("redop", o.op.toLowerCase(java.util.Locale.ROOT));
        }
        if (rooted()) {
            m.put("root", Integer.toString(o.root));
        }
        m.put("average", List.of("rank0", "mean", "min", "max").get(o.average));
        m.put("iters", o.iters + " below 1 MiB, " + Math.max(5, o.iters / 10) + " from 1 MiB, in batches of at least 50 ms for "
                + o.minTimeMs + " ms");
        m.put("kernels", io.reactivecollectives.core.kernels.ReduceKernels.implementation());
        m.put("results", o.results.toString());
        return m;
    }

    private GroupOptions groupOptions(String host) {
        GroupOptions go = GroupOptions.defaults().withGroupId("perf").withResultDelivery(o.results).withHost(host);
        if (o.tlsDir != null && !o.tlsDir.isEmpty()) {
            java.io.File cert = new java.io.File(o.tlsDir, "cert.pem");
            try {
                go = go.withTls(io.reactivecollectives.transport.TlsOptions.fromPem(cert, new java.io.File(o.tlsDir, "key.pem"), cert));
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalArgumentException("--tls-dir " + o.tlsDir + ": " + e.getMessage(), e);
            }
        }
        if (!"default".equals(o.segment)) {
            go = go.withSegmentBytes((int) Sizes.parse(o.segment));
        }
        if (o.depth > 0) {
            go = go.withPipelineDepth(o.depth);
        }
        if (!"default".equals(o.socketBuffer)) {
            go = go.withSocketBufferBytes((int) Sizes.parse(o.socketBuffer));
        }
        return go;
    }

    private static void write(String file, String text) throws IOException {
        if (file != null && !file.isEmpty()) {
            Files.writeString(Path.of(file), text, StandardCharsets.UTF_8);
        }
    }

    /**
     * Elements of {@code dt} benchmarked for {@code size} bytes, in all, as nccl-tests counts them:
     * {@code size / element size}; for the ops that split, each rank's piece rounded down to 16
     * bytes ({@code (count / world) & ~(16 / element size - 1)}), at least one element.
     */
    long count(long size, DType dt) {
        long count = Math.max(1, size / dt.byteSize());
        if (BusFactor.splitsByWorld(o.collective)) {
            long piece = (count / o.world) & ~(Math.max(1, 16 / dt.byteSize()) - 1);
            count = Math.max(1, piece) * o.world;
        }
        return count;
    }

    /**
     * Before anything is timed, runs the op at every size of the sweep up to 4 MiB (largest first,
     * so that each round ends where the timings start) round after round for
     * {@link #SWEEP_WARMUP_NANOS}: the JIT compiles every path then, instead of inside the timings of
     * the first sizes (every rank runs the same rounds).
     */
    private void warmUpEverySize(ProcessGroup group, DType dt, List<Long> sizes, ReduceOp redop, CollectiveOptions options) {
        List<OpBench> benches = new ArrayList<>();
        try {
            for (long size : sizes) {
                if (size <= 4L << 20) {
                    for (boolean inPlace : new boolean[] {true, false}) {
                        benches.add(0, OpBench.create(o.collective, group, dt, count(size, dt), redop, o.root, options, inPlace,
                                o.blocking));
                    }
                }
            }
            long start = System.nanoTime();
            untilAllAgree(group, () -> {
                for (OpBench b : benches) {
                    backToBack(b, Math.max(1, o.warmup)).block();
                }
                return System.nanoTime() - start < sweepWarmupNanos;
            });
        } finally {
            benches.forEach(OpBench::close);
        }
    }

    /**
     * {@code count} runs of {@code bench}, each subscribed when the last completed. One call site for
     * the warm-ups and the timings: a lambda of its own in each would reach {@code concatMap}'s inner
     * subscription as a new type at the first timing, and C2 would deoptimise and recompile the
     * collective's whole inlined path inside the timed batches.
     */
    private static Mono<Void> backToBack(OpBench bench, int count) {
        return Flux.range(0, count).concatMap(i -> bench.run()).then();
    }

    /** Runs {@code round} until it returns false on every rank (the ranks agree through a MAX all-reduce). */
    private static void untilAllAgree(ProcessGroup group, java.util.function.BooleanSupplier round) {
        while (combine(group, round.getAsBoolean() ? 1 : 0, ReduceOp.MAX) > 0) {
            // another round on every rank
        }
    }

    /**
     * Mean seconds per collective, combined over the ranks as {@code -a} says: batches of
     * back-to-back runs, starting at {@code n}, until the timed ones add up to at least
     * {@code --min-time-ms} (the agreement between batches is not timed); a batch shorter than
     * {@link #GROW_BELOW_NANOS} on any rank calibrates: it is not timed and the next is ten times as
     * long, on every rank.
     */
    private double timeOnce(ProcessGroup group, OpBench bench, int n) {
        long warmStart = System.nanoTime();
        boolean first = firstTiming;
        long warmFor = first ? firstWarmupNanos : warmupNanos;
        firstTiming = false;
        JitQuiet jit = new JitQuiet();
        int round = Math.max(1, o.warmup);
        // agreed by MAX: 0 warmed up, 1 warm on, 2 warm on with ten times the round (it was under
        // WARMUP_ROUND_NANOS on some rank still warming up)
        double go;
        do {
            group.barrier().block();   // as before the timed batches: a collective of another kind reaching the
                                       // same call sites deoptimises code compiled without it (C2's class checks)
            long t0 = System.nanoTime();
            backToBack(bench, round).block();
            long now = System.nanoTime();
            boolean compiling = first && now - warmStart < settleLimitNanos && !jit.quiet(now);
            boolean on = now - warmStart < warmFor || compiling;
            go = combine(group, !on ? 0 : now - t0 < WARMUP_ROUND_NANOS ? 2 : 1, ReduceOp.MAX);
            if (go == 2) {
                round = (int) Math.min(round * 10L, MAX_BATCH);
            }
        } while (go > 0);
        if (first && o.rank == 0 && o.extended) {
            print(List.of(String.format(java.util.Locale.ROOT, "# first size timed after %.1f s of its warm-up (until the JIT"
                    + " compilers were quiet: %s)", (System.nanoTime() - warmStart) / 1e9, jit.describe())));
        }
        group.barrier().block();
        bench.takeCallNanos();
        long timedNanos = 0;
        long collectives = 0;
        long minNanos = TimeUnit.MILLISECONDS.toNanos(o.minTimeMs);
        int batch = n;
        while (true) {
            long t0 = System.nanoTime();
            backToBack(bench, batch).block();
            long wall = System.nanoTime() - t0;
            long dt = o.blocking == 3 ? bench.takeCallNanos() : wall; // -z 3: the barriers are not timed
            // 0: count it, done; 1: count it, another batch; 2: a calibration batch (under
            // GROW_BELOW_NANOS on some rank: not counted), the next ten times as long. The ranks agree
            // by MAX, so every rank counts the same batches. Short batches are not timed because the
            // switch from the main thread's blocking calls to the chained loop costs each of them
            // several microseconds per collective at first (pollers settling on their cores).
            boolean enough = timedNanos + dt >= minNanos;
            double v = combine(group, dt < GROW_BELOW_NANOS && batch < MAX_BATCH ? 2 : enough ? 0 : 1, ReduceOp.MAX);
            if (v == 2) {
                batch = (int) Math.min(batch * 10L, MAX_BATCH);
                continue;
            }
            timedNanos += dt;
            collectives += batch;
            if (v == 0) {
                break;
            }
        }
        double mine = timedNanos / 1e9 / collectives;
        switch (o.average) {
            case 0: return broadcastFromZero(group, mine);
            case 1: return combine(group, mine, ReduceOp.SUM) / group.size();
            case 2: return combine(group, mine, ReduceOp.MIN);
            default: return combine(group, mine, ReduceOp.MAX);
        }
    }

    /**
     * {@code --extended}'s start-up and memory line (every rank takes part): the slowest rank's time
     * from its JVM's start to its group, and the ranks' resident memory, mean and largest.
     */
    private static String footprint(ProcessGroup group, double formedSeconds) {
        double rss = ProcessMemory.rss(ProcessHandle.current().pid()) / (double) (1 << 20);
        double slowest = combine(group, formedSeconds, ReduceOp.MAX);
        double mean = combine(group, rss, ReduceOp.SUM) / group.size();
        double largest = combine(group, rss, ReduceOp.MAX);
        return String.format(java.util.Locale.ROOT, "# start-up %.2f s (JVM start to group formed, slowest of %d ranks);"
                + " resident memory per rank %.0f MiB mean, %.0f MiB largest", slowest, group.size(), mean, largest);
    }

    private static double combine(ProcessGroup group, double mine, ReduceOp op) {
        Tensor t = Tensor.fromDoubles(new double[] {mine});
        try {
            group.allReduce(t, op).block();
            return t.getDouble(0);
        } finally {
            t.release();
        }
    }

    private static double broadcastFromZero(ProcessGroup group, double mine) {
        Tensor t = Tensor.fromDoubles(new double[] {mine});
        try {
            group.broadcast(t, 0).block();
            return t.getDouble(0);
        } finally {
            t.release();
        }
    }
}
