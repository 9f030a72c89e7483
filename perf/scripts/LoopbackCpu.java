// LoopbackCpu: one rank of issue 45's loopback measurement (perf/scripts/loopback_tcp_cpu.sh), run as a
// single-file source program on the perf module's class path: `java -cp CP perf/scripts/LoopbackCpu.java`.
// A torchrun-style rank (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT). For each size (argument
// SIZE:WARMUP:ITERS, e.g. 4:2000:5000 1M:50:300 64M:5:20): WARMUP all-reduces (float32 sum), a
// barrier, the process CPU time (all threads: user+sys, JIT and GC included), ITERS all-reduces each
// timed on its own, the CPU time again, then the ranks' CPU summed. Rank 0 prints one line per size:
//   row <bytes> <iters> <median_us> <mean_us> <busbw_median GB/s> <cpu_ms_per_op, ranks summed>
// The same rows as loopback_gloo_cpu.py and loopback_mpi_cpu.py. With LOOPBACK_THREADS=1 rank 0 also
// prints, per size, its own CPU over the timed all-reduces by thread (/proc/self/task/*/stat, names
// with digits dropped: rc-io-, C2 CompilerThread, GC Thread#, ...), in ms per all-reduce:
//   threads <bytes> <name>=<ms> ...
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
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.nio.file.Files;
import java.nio.file.Path;

public class LoopbackCpu {
    static long parse(String s) {
        char c = Character.toUpperCase(s.charAt(s.length() - 1));
        long m = c == 'K' ? 1L << 10 : c == 'M' ? 1L << 20 : c == 'G' ? 1L << 30 : 1;
        return Long.parseLong(m == 1 ? s : s.substring(0, s.length() - 1)) * m;
    }

    /** This process's CPU ticks (utime+stime) by thread name, digits dropped. */
    static Map<String, Long> threadTicks() {
        Map<String, Long> m = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String st = Files.readString(t.resolve("stat"));
                    String name = st.substring(st.indexOf('(') + 1, st.lastIndexOf(')')).replaceAll("[0-9]", "").replace(' ', '_');
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    m.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (Exception gone) {
                    // the thread ended
                }
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        return m;
    }

    public static void main(String[] args) {
        boolean threads = "1".equals(System.getenv("LOOPBACK_THREADS"));
        Map<String, String> env = System.getenv();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Rendezvous rdv = EnvRendezvous.connect(env).block(Duration.ofSeconds(120))) {
            GroupOptions go = GroupOptions.defaults().withGroupId("loopback-cpu").withHost(EnvRendezvous.groupHost(env));
            ProcessGroup group = MeshProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), go).block(Duration.ofSeconds(120));
            int world = rdv.worldSize();
            boolean lead = rdv.rank() == 0;
            double busFactor = 2.0 * (world - 1) / world;
            if (lead) {
                String t = ((MeshProcessGroup) group).transportTo(1) + "/" + MeshProcessGroup.socketTransport();
                System.out.println("# ours world=" + world + " transport=" + t + " java=" + Runtime.version());
            }
            try {
                for (String spec : args) {
                    String[] p = spec.split(":");
                    long bytes = parse(p[0]);
                    int warm = Integer.parseInt(p[1]);
                    int iters = Integer.parseInt(p[2]);
                    Tensor x = Tensor.zeros(DType.FLOAT32, Math.max(1, bytes / 4));
                    for (int i = 0; i < warm; i++) {
                        group.allReduce(x, ReduceOp.SUM).block();
                    }
                    group.barrier().block();
                    long[] ns = new long[iters];
                    Map<String, Long> th0 = threads && lead ? threadTicks() : null;
                    long cpu0 = os.getProcessCpuTime();
                    long w0 = System.nanoTime();
                    for (int i = 0; i < iters; i++) {
                        long t0 = System.nanoTime();
                        group.allReduce(x, ReduceOp.SUM).block();
                        ns[i] = System.nanoTime() - t0;
                    }
                    long wall = System.nanoTime() - w0;
                    long cpu1 = os.getProcessCpuTime();
                    if (th0 != null) {
                        StringBuilder b = new StringBuilder("threads " + bytes);
                        for (var e : threadTicks().entrySet()) {
                            long d = e.getValue() - th0.getOrDefault(e.getKey(), 0L);
                            if (d > 0) {
                                b.append(String.format(" %s=%.3f", e.getKey(), d * 10.0 / iters)); // 100 ticks a second
                            }
                        }
                        System.out.println(b);
                    }
                    x.release();
                    Tensor sum = Tensor.fromDoubles(new double[] {(cpu1 - cpu0) / 1e6 / iters});
                    group.allReduce(sum, ReduceOp.SUM).block();
                    Arrays.sort(ns);
                    double med = (iters % 2 == 1 ? ns[iters / 2] : (ns[iters / 2 - 1] + ns[iters / 2]) / 2.0) / 1e3;
                    if (lead) {
                        System.out.printf("row %d %d %.2f %.2f %.4f %.4f%n", bytes, iters, med, wall / 1e3 / iters,
                                bytes / (med / 1e6) / 1e9 * busFactor, sum.getDouble(0));
                    }
                    sum.release();
                }
            } finally {
                group.close();
            }
        }
        System.out.flush();
        System.exit(0);
    }
}
