package io.reactivecollectives.perf;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.KeyedAlgorithm;
import io.reactivecollectives.core.KeyedDoubles;
import io.reactivecollectives.core.ObjectOptions;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.observe.MetricNames;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import io.reactivecollectives.core.rendezvous.Store;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The object collectives' benchmark: {@code --world} rank JVMs on this host with an embedded store.
 * {@code allgather}: one object of {@code --bytes} per rank all-gathered ({@code --codec bytes}: a
 * byte array; {@code json}: a list of 100-character strings of about that many bytes encoded), with each rank's heap peak
 * over the call (the pools' peak usage after a GC, less the heap in use before it) next to what the
 * result itself holds. {@code keyed}: {@code --keys} entries per rank, {@code --overlap} of them
 * common to every rank, all-reduced by key with each algorithm in turn (alternating, {@code --rounds}
 * rounds): time per call and payload bytes each rank sent and received (the transport's
 * {@code rc.bytes.*} counters). Rank 0 prints the rows. Waits on its main thread: a program.
 */
final class ObjectBench {

    private ObjectBench() {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        System.exit(a.rank < 0 ? launch(a, args) : new ObjectBench().rank(a));
    }

    private static int launch(Args a, String[] args) throws Exception {
        TcpStoreServer server = TcpStoreServer.builder().host("127.0.0.1").port(0).start().block(Duration.ofSeconds(30));
        List<Process> ranks = new ArrayList<>();
        try {
            for (int r = 0; r < a.world; r++) {
                List<String> rest = new ArrayList<>(Arrays.asList(args));
                rest.addAll(List.of("--rank", String.valueOf(r), "--store-port", String.valueOf(server.port())));
                ProcessBuilder pb = new ProcessBuilder(ChildJvm.command(a.jvm, false, ObjectBench.class, rest.toArray(String[]::new)));
                ranks.add((r == 0 ? pb.inheritIO() : pb.redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)).start());
            }
            int exit = 0;
            for (Process p : ranks) {
                if (!p.waitFor(30, TimeUnit.MINUTES)) {
                    p.destroyForcibly().waitFor();   // exitValue() throws while the process still runs
                    exit = 1;
                }
                exit = Math.max(exit, p.exitValue());
            }
            return exit;
        } finally {
            ranks.forEach(Process::destroyForcibly);
            server.close();
        }
    }

    private int rank(Args a) {
        Store store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", a.storePort).withTimeout(Duration.ofSeconds(60)))
                .block(Duration.ofSeconds(60));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        GroupOptions go = GroupOptions.defaults().withGroupId("objbench").withHost("127.0.0.1").withMeterRegistry(meters);
        ProcessGroup g = MeshProcessGroup.connect(store, a.rank, a.world, go).block(Duration.ofSeconds(120));
        try {
            if ("allgather".equals(a.mode)) {
                allGather(g, a);
            } else {
                keyed(g, a, meters);
            }
            return 0;
        } finally {
            g.close();
            store.close();
        }
    }

    private static void allGather(ProcessGroup g, Args a) {
        boolean json = "json".equals(a.codec);
        Object mine = object(g.rank(), a.bytes, json);
        long n = a.bytes;
        ObjectOptions o = ObjectOptions.DEFAULT.withMaxBytes(Math.max(ObjectOptions.DEFAULT.maxBytes(), 2L * a.world * n));
        @SuppressWarnings("unchecked")
        Codec<Object> codec = json ? Codec.json(Object.class) : (Codec<Object>) (Codec<?>) Codec.bytes();
        if (g.rank() == 0) {
            System.out.printf(Locale.ROOT, "# allGatherObject of %d bytes per rank (encoded), %d ranks, codec %s, %s%n", n, a.world,
                    codec.id(), a.jvm);
            System.out.println("# round  time_ms  heap_before_mb  heap_peak_over_mb(max rank)  result_mb(encoded)  peak/result");
        }
        for (int round = 0; round < a.rounds; round++) {
            System.gc();
            long before = heapUsed();
            resetPeaks();
            long t0 = System.nanoTime();
            List<Object> got = g.allGatherObject(mine, codec, o).block(Duration.ofMinutes(10));
            double ms = (System.nanoTime() - t0) / 1e6;
            long over = heapPeak() - before;
            for (int q = 0; q < a.world; q++) {
                Object want = object(q, n, json);
                if (json ? !want.equals(got.get(q)) : !Arrays.equals((byte[]) want, (byte[]) got.get(q))) {
                    throw new IllegalStateException("rank " + g.rank() + ": rank " + q + "'s object arrived wrong");
                }
            }
            long result = n * a.world;
            got = null;
            List<long[]> all = g.allGatherObject(new long[]{(long) (ms * 1000), over}, Codec.json(long[].class)).block(Duration.ofMinutes(1));
            if (g.rank() == 0) {
                double maxMs = all.stream().mapToLong(x -> x[0]).max().orElse(0) / 1000.0;
                long maxOver = all.stream().mapToLong(x -> x[1]).max().orElse(0);
                System.out.printf(Locale.ROOT, "%7d  %7.0f  %14.0f  %27.0f  %18.0f  %11.2f%n", round, maxMs, before / 1e6, maxOver / 1e6,
                        result / 1e6, (double) maxOver / result);
            }
        }
    }

    /** Rank q's object: random bytes, or a JSON list of strings of about 100 characters (n bytes encoded, roughly). */
    private static Object object(int q, long n, boolean json) {
        Random r = new Random(q);
        if (!json) {
            byte[] b = new byte[(int) n];
            r.nextBytes(b);
            return b;
        }
        List<String> l = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (long size = 2; size < n; size += sb.length() + 3) {
            sb.setLength(0);
            for (int i = 0; i < 100; i++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            l.add(sb.toString());
        }
        return l;
    }

    private static void keyed(ProcessGroup g, Args a, SimpleMeterRegistry meters) {
        int keys = (int) a.bytes;
        int shared = (int) Math.round(keys * a.overlap);
        Random rnd = new Random(g.rank());
        long[] k = new long[keys];
        double[] v = new double[keys];
        for (int i = 0; i < keys; i++) {
            k[i] = i < shared ? i * 2654435761L : (long) (g.rank() + 1) << 40 | i;   // common keys, then this rank's own
            v[i] = rnd.nextInt(1024) / 8.0;
        }
        KeyedDoubles mine = KeyedDoubles.of(k, v);
        if (g.rank() == 0) {
            System.out.printf(Locale.ROOT, "# allReduceMap(KeyedDoubles, SUM): %d keys per rank, %.0f%% common to all %d ranks, %s%n",
                    mine.size(), a.overlap * 100, a.world, a.jvm);
            System.out.println("# round  algorithm     time_ms  sent_MB/rank  received_MB/rank  result_keys");
        }
        KeyedAlgorithm[] order = {KeyedAlgorithm.GATHER_MERGE, KeyedAlgorithm.PARTITIONED, KeyedAlgorithm.AUTO};
        for (int round = -1; round < a.rounds; round++) {   // round -1 warms up
            for (int i = 0; i < order.length; i++) {
                KeyedAlgorithm alg = order[Math.floorMod(round + i, order.length)];   // each round starts with the next one
                ObjectOptions o = ObjectOptions.DEFAULT.withKeyed(alg);
                g.barrier().block(Duration.ofMinutes(1));
                double sent0 = counter(meters, MetricNames.BYTES_SENT);
                double recv0 = counter(meters, MetricNames.BYTES_RECEIVED);
                long t0 = System.nanoTime();
                KeyedDoubles out = g.allReduceMap(mine, ReduceOp.SUM, o).block(Duration.ofMinutes(10));
                double ms = (System.nanoTime() - t0) / 1e6;
                double sent = counter(meters, MetricNames.BYTES_SENT) - sent0;
                double recv = counter(meters, MetricNames.BYTES_RECEIVED) - recv0;
                List<double[]> all = g.allGatherObject(new double[]{ms, sent, recv, out.size(), out.hashCode()},
                        Codec.json(double[].class)).block(Duration.ofMinutes(1));
                if (all.stream().mapToDouble(x -> x[4]).distinct().count() != 1) {
                    throw new IllegalStateException("the ranks' results differ");
                }
                if (g.rank() == 0 && round >= 0) {
                    System.out.printf(Locale.ROOT, "%7d  %-12s  %7.0f  %12.1f  %16.1f  %11d%n", round, alg,
                            all.stream().mapToDouble(x -> x[0]).max().orElse(0),
                            all.stream().mapToDouble(x -> x[1]).average().orElse(0) / 1e6,
                            all.stream().mapToDouble(x -> x[2]).average().orElse(0) / 1e6, out.size());
                }
            }
        }
    }

    private static double counter(SimpleMeterRegistry meters, String name) {
        return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static long heapUsed() {
        return pools().stream().mapToLong(p -> p.getUsage().getUsed()).sum();
    }

    private static long heapPeak() {
        return pools().stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    }

    private static void resetPeaks() {
        pools().forEach(MemoryPoolMXBean::resetPeakUsage);
    }

    private static List<MemoryPoolMXBean> pools() {
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
    }

    /** {@code --mode allgather|keyed --world 4 --bytes 100M (allgather) or --keys 1000000 --overlap 0.1 --rounds 3 --jvm "..."}. */
    private static final class Args {
        String mode = "allgather";
        String codec = "bytes";
        int world = 4;
        long bytes = 100_000_000L;
        double overlap = 0.1;
        int rounds = 3;
        int rank = -1;
        int storePort;
        String jvm = "-Xmx3g -XX:+UseParallelGC -Dio.netty.leakDetection.level=disabled";

        Args(String[] args) {
            for (int i = 0; i + 1 < args.length; i += 2) {
                String v = args[i + 1];
                switch (args[i]) {
                    case "--mode" -> mode = v;
                    case "--world" -> world = Integer.parseInt(v);
                    case "--bytes", "--keys" -> bytes = Sizes.parse(v);
                    case "--overlap" -> overlap = Double.parseDouble(v);
                    case "--rounds" -> rounds = Integer.parseInt(v);
                    case "--rank" -> rank = Integer.parseInt(v);
                    case "--store-port" -> storePort = Integer.parseInt(v);
                    case "--jvm" -> jvm = v;
                    case "--codec" -> codec = v;
                    default -> throw new IllegalArgumentException("ObjectBench: unknown option " + args[i]);
                }
            }
            if (!mode.equals("allgather") && !mode.equals("keyed")) {
                throw new IllegalArgumentException("ObjectBench: --mode is allgather or keyed, not " + mode);
            }
        }
    }
}
