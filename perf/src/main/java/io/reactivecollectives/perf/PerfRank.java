package io.reactivecollectives.perf;

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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
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
 * each size; rank 0 prints the table and its footer and writes the CSV and JSON files. Waits on its
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
    /** Most time the first timing's warm-up waits, from its start, for the JIT compilers to go quiet. */
    private static final long SETTLE_LIMIT_NANOS = 30_000_000_000L;
    /** A warm-up round shorter than this runs ten times as many collectives the next time (as timed batches grow). */
    private static final long WARMUP_ROUND_NANOS = 20_000_000L;

    private final CollectivesPerf o;
    private boolean firstTiming = true;

    PerfRank(CollectivesPerf options) {
        this.o = options;
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
        ProcessGroup group = TcpProcessGroup.connect(store, o.rank, o.world, go).block(Duration.ofSeconds(120));
        try {
            CollectiveOptions options = CollectiveOptions.algorithm(o.algorithm);
            ReduceOp redop = o.reduction();
            PerfReport report = new PerfReport(meta(group, go, dt));
            boolean lead = o.rank == 0;
            if (lead) {
                System.out.println(report.title());
                System.out.println(PerfReport.columns());
                System.out.flush();
            }
            List<Long> sizes = Sizes.sweep(Sizes.parse(o.min), Sizes.parse(o.max), o.factor(), o.increment());
            warmUpEverySize(group, dt, sizes, redop, options);
            for (long size : sizes) {
                long count = count(size, dt);
                int n = size < (1 << 20) ? o.iters : Math.max(5, o.iters / 10);
                try (OpBench bench = OpBench.create(o.collective, group, dt, count, redop, o.root, options)) {
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
                    double bytes = (double) count * dt.byteSize();
                    double algbw = bytes / seconds / 1e9;
                    PerfReport.Row row = new PerfReport.Row(o.collective, (long) bytes, count, dt.toString(),
                            o.reduces() ? o.op.toLowerCase(java.util.Locale.ROOT) : "none", rooted() ? o.root : -1,
                            seconds * 1e6, algbw, algbw * BusFactor.of(o.collective, o.world), wrong);
                    report.add(row);
                    if (lead) {
                        System.out.println(PerfReport.line(row));
                        System.out.flush();
                    }
                }
            }
            if (lead) {
                report.footer().forEach(System.out::println);
                System.out.flush();
                write(o.csvFile, report.csv());
                write(o.jsonFile, report.json());
            }
            return report.passed() ? 0 : 1;
        } finally {
            group.close();
        }
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
        m.put("kernels", io.reactivecollectives.core.kernels.ReduceKernels.implementation());
        m.put("results", o.results.toString());
        return m;
    }

    private GroupOptions groupOptions(String host) {
        GroupOptions go = GroupOptions.defaults().withGroupId("perf").withResultDelivery(o.results).withHost(host);
        if (o.tlsDir != null && !o.tlsDir.isEmpty()) {
            java.io.File cert = new java.io.File(o.tlsDir, "cert.pem");
            try {
                go = go.withTls(io.reactivecollectives.transport.mesh.MeshTls.fromPem(cert, new java.io.File(o.tlsDir, "key.pem"), cert));
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

    /** Elements of {@code dt} benchmarked for {@code size} bytes (split ops: a multiple of the world size). */
    private long count(long size, DType dt) {
        long count = Math.max(1, size / dt.byteSize());
        if (BusFactor.splitsByWorld(o.collective)) {
            count = Math.max(o.world, (count / o.world) * o.world);
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
                    benches.add(0, OpBench.create(o.collective, group, dt, count(size, dt), redop, o.root, options));
                }
            }
            long start = System.nanoTime();
            untilAllAgree(group, () -> {
                for (OpBench b : benches) {
                    backToBack(b, Math.max(1, o.warmup)).block();
                }
                return System.nanoTime() - start < SWEEP_WARMUP_NANOS;
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
        long warmFor = first ? FIRST_WARMUP_NANOS : WARMUP_NANOS;
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
            boolean compiling = first && now - warmStart < SETTLE_LIMIT_NANOS && !jit.quiet(now);
            boolean on = now - warmStart < warmFor || compiling;
            go = combine(group, !on ? 0 : now - t0 < WARMUP_ROUND_NANOS ? 2 : 1, ReduceOp.MAX);
            if (go == 2) {
                round = (int) Math.min(round * 10L, MAX_BATCH);
            }
        } while (go > 0);
        if (first && o.rank == 0) {
            System.out.printf("# first size timed after %.1f s of its warm-up (until the JIT compilers were quiet: %s)%n",
                    (System.nanoTime() - warmStart) / 1e9, jit.describe());
        }
        group.barrier().block();
        long timedNanos = 0;
        long collectives = 0;
        long minNanos = TimeUnit.MILLISECONDS.toNanos(o.minTimeMs);
        int batch = n;
        while (true) {
            long t0 = System.nanoTime();
            backToBack(bench, batch).block();
            long dt = System.nanoTime() - t0;
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
