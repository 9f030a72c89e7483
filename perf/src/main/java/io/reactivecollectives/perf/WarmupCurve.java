package io.reactivecollectives.perf;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.launch.Rendezvous;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;

/**
 * The warm-up curve of one job: a loop of all-reduces of one size from process start, as one rank
 * of a torchrun-style job (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT). Rank 0 prints one row per
 * all-reduce: {@code op <i> <end_s> <ms> <busbw GB/s>}, where {@code end_s} counts from
 * {@code START_MS} (milliseconds since the epoch, set by the launching script just before it starts
 * the processes; the JVM's own start time otherwise). At the end every rank's process CPU time
 * (all threads: JIT and GC included) over the second half of the loop is summed over the ranks and
 * printed as {@code cpu_ms_per_op <ms summed over ranks> ops <n> window_s <from>-<to> jit_ms_per_op
 * <the JIT compilers' share of it, wall time of compilations>}, beside {@code first_op_s}.
 *
 * <p>{@code perf/scripts/warmup_compare.sh} runs it beside PyTorch gloo's {@code gloo_warmup.py},
 * which prints the same rows. Arguments: {@code <bytes, K/M/G allowed> <seconds> [<segment bytes> [<pipeline depth>]]}
 * (the last two: the group's defaults when left out).
 */
public final class WarmupCurve {

    private WarmupCurve() {
    }

    /**
     * Runs one rank.
     *
     * @param args size and seconds
     */
    public static void main(String[] args) {
        long bytes = Sizes.parse(args.length > 0 ? args[0] : "64M");
        double seconds = Double.parseDouble(args.length > 1 ? args[1] : "40");
        Map<String, String> env = System.getenv();
        long startMs = env.containsKey("START_MS") ? Long.parseLong(env.get("START_MS"))
                : ManagementFactory.getRuntimeMXBean().getStartTime();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Rendezvous rdv = EnvRendezvous.connect(env).block(Duration.ofSeconds(120))) {
            GroupOptions go = GroupOptions.defaults().withGroupId("warmup").withHost(EnvRendezvous.groupHost(env));
            if (args.length > 2) { // another segment size (K/M allowed) and pipeline depth
                go = go.withSegmentBytes((int) Sizes.parse(args[2]));
            }
            if (args.length > 3) {
                go = go.withPipelineDepth(Integer.parseInt(args[3]));
            }
            ProcessGroup group = MeshProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), go)
                    .block(Duration.ofSeconds(120));
            int world = rdv.worldSize();
            boolean lead = rdv.rank() == 0;
            long count = bytes / 4;
            double busFactor = 2.0 * (world - 1) / world;
            Tensor x = Tensor.zeros(DType.FLOAT32, count);
            try {
                double firstOp = (System.currentTimeMillis() - startMs) / 1e3;
                if (lead) {
                    System.out.printf("first_op_s %.3f%n", firstOp);
                }
                int ops = 0;
                long[] cpuAt = new long[100_000];
                long[] jitAt = new long[100_000];
                var jit = ManagementFactory.getCompilationMXBean();
                double[] endAt = new double[100_000];
                boolean more = true;
                while (more) {
                    long t0 = System.nanoTime();
                    group.allReduce(x, ReduceOp.SUM).block();
                    long t1 = System.nanoTime();
                    double end = (System.currentTimeMillis() - startMs) / 1e3;
                    cpuAt[ops] = os.getProcessCpuTime();
                    jitAt[ops] = jit.getTotalCompilationTime();
                    endAt[ops] = end;
                    ops++;
                    if (lead) {
                        double ms = (t1 - t0) / 1e6;
                        System.out.printf("op %d %.3f %.2f %.4f%n", ops, end, ms, bytes / (ms / 1e3) / 1e9 * busFactor);
                    }
                    // every rank stops on rank 0's clock: an all-reduce of its verdict
                    Tensor verdict = Tensor.fromDoubles(new double[] {lead && end < seconds ? 1 : 0});
                    group.allReduce(verdict, ReduceOp.MAX).block();
                    more = verdict.getDouble(0) > 0 && ops < cpuAt.length;
                    verdict.release();
                }
                int from = ops / 2;
                double mine = ops - from > 1 ? (cpuAt[ops - 1] - cpuAt[from]) / 1e6 / (ops - 1 - from) : Double.NaN;
                double mineJit = ops - from > 1 ? (double) (jitAt[ops - 1] - jitAt[from]) / (ops - 1 - from) : Double.NaN;
                Tensor sum = Tensor.fromDoubles(new double[] {mine, mineJit});
                group.allReduce(sum, ReduceOp.SUM).block();
                if (lead) {
                    System.out.printf("cpu_ms_per_op %.2f ops %d window_s %.1f-%.1f jit_ms_per_op %.2f%n", sum.getDouble(0),
                            ops - 1 - from, endAt[from], endAt[ops - 1], sum.getDouble(1));
                }
                sum.release();
            } finally {
                x.release();
                group.close();
            }
        }
        System.out.flush();
        System.exit(0);
    }
}
