package io.reactivecollectives.perf;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * One group of {@code --world} ranks spread over {@code --jvms} rank JVMs on this machine (each
 * holding a contiguous block of ranks, all joined through one TCP store that this process serves):
 * where one JVM cannot hold N ranks' descriptors (1,024 ranks need about 25,000 under a per-process
 * limit of 20,000), the cheapest faithful way to start them, real sockets between every pair of
 * ranks. Each JVM prints one line: its ranks, the time from its first connect to its last rank
 * joined, descriptors per rank, whether a SUM all-reduce and every other collective
 * ({@link ScaleChecks}) were right, and the median 4 B and 1 MiB all-reduce times; this process
 * prints the store's address and the slowest start.
 */
@Command(name = "scale-processes", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "One group of many ranks spread over several rank JVMs on this machine.")
public final class ScaleProcesses implements Callable<Integer> {

    @Option(names = "--world", defaultValue = "1024", description = "ranks in the group (default ${DEFAULT-VALUE})")
    int world;

    @Option(names = "--jvms", defaultValue = "4", description = "rank JVMs (default ${DEFAULT-VALUE})")
    int jvms;

    @Option(names = "--iters", defaultValue = "5", description = "timed all-reduces per size (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = "--connect-timeout", defaultValue = "300", description = "start-up timeout, s (default ${DEFAULT-VALUE})")
    int connectTimeoutS;

    @Option(names = "--jvm-heap", defaultValue = "2g", description = "-Xmx of each rank JVM (default ${DEFAULT-VALUE})")
    String heap;

    @Option(names = "--part", hidden = true, description = "in a rank JVM: storePort:firstRank:ranks")
    String part;

    public static void main(String[] args) {
        System.exit(Cli.execute(new ScaleProcesses(), args));
    }

    @Override
    public Integer call() throws Exception {
        return part != null ? runPart() : runParent();
    }

    private int runParent() throws Exception {
        Duration t = Duration.ofSeconds(connectTimeoutS);
        try (TcpStoreServer server = TcpStoreServer.builder().start().block(t)) {
            System.out.printf(Locale.ROOT, "# ScaleProcesses: %d ranks in %d rank JVMs (-Xmx%s each), one TCP store at port %d; "
                    + "%d cores%n", world, jvms, heap, server.port(), Runtime.getRuntime().availableProcessors());
            System.out.println("# per JVM: ranks, start_ms (first connect to last rank joined), fds/rank, sum ok, every op ok "
                    + "(" + ScaleChecks.names(true) + "), fds/rank after the ops, 4 B and 1 MiB all-reduce medians (ms)");
            List<Process> procs = new ArrayList<>();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int j = 0; j < jvms; j++) {
                int first = (int) ((long) world * j / jvms);
                int count = (int) ((long) world * (j + 1) / jvms) - first;
                List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap, "--enable-native-access=ALL-UNNAMED"));
                for (String p : new String[] {"rc.transport.sharedMemory", "rc.mesh.fullUpTo"}) {
                    if (System.getProperty(p) != null) {
                        cmd.add("-D" + p + "=" + System.getProperty(p));
                    }
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ScaleProcesses.class.getName(),
                        "--world", String.valueOf(world), "--iters", String.valueOf(iters),
                        "--connect-timeout", String.valueOf(connectTimeoutS),
                        "--part", server.port() + ":" + first + ":" + count));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
            }
            // every child's output is read at once: a child blocked on a full pipe would stall the whole group
            List<Thread> readers = new ArrayList<>();
            for (int j = 0; j < procs.size(); j++) {
                int jvm = j;
                Process p = procs.get(j);
                Thread reader = new Thread(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = r.readLine()) != null; ) {
                            if (line.startsWith("PART") || line.startsWith("FAILED")) {
                                System.out.println("  jvm " + jvm + ": " + line);
                            }
                        }
                    } catch (java.io.IOException e) {
                        System.out.println("  jvm " + jvm + ": output lost: " + e);
                    }
                }, "scale-processes-out-" + j);
                reader.start();
                readers.add(reader);
            }
            int bad = 0;
            for (int j = 0; j < procs.size(); j++) {
                bad += procs.get(j).waitFor() == 0 ? 0 : 1;
                readers.get(j).join();
            }
            System.out.println(bad == 0 ? "# every rank JVM exited 0" : "# " + bad + " rank JVMs failed");
            return bad == 0 ? 0 : 1;
        }
    }

    private int runPart() {
        String[] f = part.split(":");
        int port = Integer.parseInt(f[0]);
        int first = Integer.parseInt(f[1]);
        int count = Integer.parseInt(f[2]);
        Duration t = Duration.ofSeconds(connectTimeoutS);
        int fdsBefore = ScaleChecks.openFds();
        long t0 = System.nanoTime();
        try (TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(t)).block(t)) {
            GroupOptions options = GroupOptions.defaults().withGroupId("scale-processes").withConnectTimeout(t).withTimeout(t);
            List<ProcessGroup> groups = new ArrayList<>(Flux.range(first, count)
                    .flatMap(r -> MeshProcessGroup.connect(store, r, world, options), count)
                    .collectSortedList((a, b) -> Integer.compare(a.rank(), b.rank())).block(t.plusSeconds(10)));
            long startMs = (System.nanoTime() - t0) / 1_000_000;
            double fds = (ScaleChecks.openFds() - fdsBefore) / (double) count;
            try {
                boolean sum = ScaleChecks.sumIsRight(groups, world, 1) && ScaleChecks.sumIsRight(groups, world, 1 << 18);
                String ops = ScaleChecks.check(groups, world, true);
                double fdsAfter = (ScaleChecks.openFds() - fdsBefore) / (double) count;
                double small = ScaleChecks.medianMs(groups, 1, 2, iters);
                double large = ScaleChecks.medianMs(groups, 1 << 18, 2, iters);
                System.out.printf(Locale.ROOT, "PART ranks %d-%d start_ms %d fds/rank %.1f sum %s ops %s fds/rank_after %.1f "
                                + "4B_ms %.3f 1MiB_ms %.3f%n", first, first + count - 1, startMs, fds, sum ? "yes" : "NO",
                        ops == null ? "yes" : "NO: " + ops, fdsAfter, small, large);
                return sum && ops == null ? 0 : 1;
            } finally {
                groups.forEach(ProcessGroup::close);
            }
        } catch (RuntimeException e) {
            System.out.println("FAILED ranks " + first + "-" + (first + count - 1) + " after "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms: " + e);
            return 1;
        }
    }
}
