package io.reactivecollectives.transport.bench;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A quick in-JVM timing harness (not a test): all-reduce of float32 on a LocalCluster, printing
 * time per op and bus bandwidth. Each rank loops its collectives back to back on its own
 * (as separate processes would), so the measured time is the slowest rank's per-op average.
 *
 * <pre>java -cp ... AllReduceTiming [world] [bytes...]  (system properties: rc.segment, rc.depth, rc.iters)</pre>
 */
public final class AllReduceTiming {

    public static void main(String[] args) {
        int world = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        List<Long> sizes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            sizes.add(Long.parseLong(args[i]));
        }
        if (sizes.isEmpty()) {
            sizes = List.of(4L, 1L << 20, 64L << 20);
        }
        GroupOptions o = GroupOptions.defaults().withGroupId("timing")
                .withSegmentBytes(Integer.getInteger("rc.segment", GroupOptions.defaults().segmentBytes()))
                .withPipelineDepth(Integer.getInteger("rc.depth", GroupOptions.defaults().pipelineDepth()))
                .withSocketBufferBytes(Integer.getInteger("rc.sockbuf", 0));
        String op = System.getProperty("rc.op", "allreduce");
        LocalCluster cluster = LocalCluster.start(world, o).block(Duration.ofSeconds(30));
        try {
            System.out.printf("# %s world %d, %s%n", op, world, o);
            System.out.printf("%12s %10s %12s %12s %12s%n", "bytes", "iters", "time_us", "busbw_GB/s", "cpu_us(all)");
            for (long bytes : sizes) {
                long numel = Math.max(1, bytes / 4);
                int iters = Integer.getInteger("rc.iters", (int) Math.max(5, Math.min(2000, (200L << 20) / Math.max(bytes, 1))));
                int warm = Integer.getInteger("rc.warm", Math.max(2, iters / 2));
                List<Tensor> ts = new ArrayList<>();
                for (int r = 0; r < world; r++) {
                    ts.add(Tensor.zeros(DType.FLOAT32, numel));
                }
                try {
                    run(cluster, ts, warm, op);
                    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
                    long c0 = os.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    run(cluster, ts, iters, op);
                    double us = (System.nanoTime() - t0) / 1e3 / iters;
                    double cpuUs = (os.getProcessCpuTime() - c0) / 1e3 / iters;
                    double factor = op.equals("broadcast") ? 1.0 : 2.0 * (world - 1) / world;
                    double busbw = numel * 4.0 / (us * 1e-6) * factor / 1e9;
                    System.out.printf("%12d %10d %12.1f %12.3f %12.1f%n", numel * 4, iters, us, busbw, cpuUs);
                } finally {
                    ts.forEach(Tensor::release);
                }
            }
        } finally {
            cluster.close();
        }
        System.exit(0);
    }

    private static void run(LocalCluster cluster, List<Tensor> ts, int iters, String op) {
        List<Mono<Void>> loops = new ArrayList<>();
        for (MeshProcessGroup g : cluster.groups()) {
            Tensor t = ts.get(g.rank());
            Mono<?> one = op.equals("broadcast") ? g.broadcast(t, 0) : g.allReduce(t, ReduceOp.SUM);
            loops.add(Flux.range(0, iters).concatMap(i -> one, 0).then());
        }
        Mono.when(loops).block(Duration.ofMinutes(5));
    }
}
