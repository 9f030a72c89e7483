package io.reactivecollectives.perf;

import io.reactivecollectives.tools.launch.RankJvmAccess;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How {@link CollectivesPerf} runs on one host: a store server, one JVM per rank started with the
 * same options, rank 0's output passed through, the others' errors prefixed with their rank, and
 * every rank stopped when one fails.
 */
final class PerfLauncher {

    private PerfLauncher() {
    }

    /** Starts {@code o.world} rank JVMs with {@code o}'s options and an embedded store; prints rank 0's rows. */
    static int launch(CollectivesPerf o) throws Exception {
        TcpStoreServer server = TcpStoreServer.builder().host("127.0.0.1").port(0).start().block(Duration.ofSeconds(30));
        List<Process> ranks = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> pumps = new ArrayList<>();
        // SIGINT/SIGTERM end this JVM without its finally blocks: stop the ranks from a hook, or they run on
        Thread stopRanks = new Thread(() -> stop(ranks), "perf-stop-ranks");
        Runtime.getRuntime().addShutdownHook(stopRanks);
        try {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            for (int r = 0; r < o.world; r++) {
                List<String> cmd = new ArrayList<>(List.of(java, "-Xms1g", "-Xmx2g", "-XX:MaxDirectMemorySize=8g",
                        "-XX:+UseParallelGC", "-Dio.netty.leakDetection.level=disabled"));
                String extra = PerfSettings.RANK_JAVA_OPTS.get(o.environment); // e.g. a JFR recording per rank (see docs/benchmarks.md)
                List<String> own = extra == null || extra.isBlank() ? List.of()
                        : List.of(extra.trim().replace("{rank}", String.valueOf(r)).split("\\s+"));
                cmd.addAll(RankJvmAccess.options(own, Runtime.version().feature()));  // as collectives-run's ranks
                cmd.addAll(own);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), CollectivesPerf.class.getName()));
                cmd.addAll(rankArgs(o));
                cmd.addAll(List.of("--rank", String.valueOf(r), "--store-port", String.valueOf(server.port())));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
                ranks.add(p);
                pumps.add(pump(p.getInputStream(), System.out, r == 0 ? "" : null));
                pumps.add(pump(p.getErrorStream(), System.err, "[rank " + r + "] "));
            }
            int exit = 0;
            boolean running = true;
            while (running) {
                running = false;
                for (int r = 0; r < ranks.size(); r++) {
                    Process p = ranks.get(r);
                    if (p.isAlive()) {
                        running = true;
                    } else if (p.exitValue() != 0 && exit == 0) {
                        exit = p.exitValue();
                        System.err.println("collectives-perf: rank " + r + " failed with exit code " + exit + "; stopping the others");
                        ranks.forEach(Process::destroy);
                    }
                }
                if (running) {
                    ranks.get(0).waitFor(100, TimeUnit.MILLISECONDS);
                }
            }
            for (Thread t : pumps) {
                t.join(5000);
            }
            return exit;
        } finally {
            ranks.forEach(Process::destroyForcibly);
            server.close();
            try {
                Runtime.getRuntime().removeShutdownHook(stopRanks);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    /** SIGTERM to every rank still running, SIGKILL to those left after 3 s; returns once they are gone. */
    static void stop(List<Process> ranks) {
        List<Process> running;
        synchronized (ranks) {
            running = ranks.stream().filter(Process::isAlive).toList();
        }
        running.forEach(Process::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (Process p : running) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }

    /** The options every rank JVM gets: the launcher's, validated, in their long nccl-tests spellings. */
    static List<String> rankArgs(CollectivesPerf o) {
        List<String> a = new ArrayList<>(List.of("--collective", o.collective, "--op", o.op, "--world", String.valueOf(o.world),
                "--minbytes", o.min, "--maxbytes", o.max, "--datatype", o.dtype, "--root", String.valueOf(o.root),
                "--iters", String.valueOf(o.iters), "--warmup_iters", String.valueOf(o.warmup),
                "--check", String.valueOf(o.check), "--average", String.valueOf(o.average), "--blocking", String.valueOf(o.blocking),
                "--warmup-time-ms", String.valueOf(o.warmupTimeMs), "--settle-time-ms", String.valueOf(o.settleTimeMs),
                "--algorithm", o.algorithm.name(), "--repeat", String.valueOf(o.repeat),
                "--min-time-ms", String.valueOf(o.minTimeMs), "--segment", o.segment, "--depth", String.valueOf(o.depth),
                "--socket-buffer", o.socketBuffer, "--results", o.results.name(),
                "--tls-dir", o.tlsDir == null ? "" : o.tlsDir));
        if (o.stepBytes != null) {
            a.addAll(List.of("--stepbytes", o.stepBytes));
        } else {
            a.addAll(List.of("--stepfactor", String.valueOf(o.factor())));
        }
        if (o.csvFile != null) {
            a.addAll(List.of("--csv", o.csvFile));
        }
        if (o.extended) {
            a.add("--extended");
        }
        if (o.jsonFile != null) {
            a.addAll(List.of("--json", o.jsonFile));
        }
        return a;
    }

    private static Thread pump(java.io.InputStream in, PrintStream out, String prefix) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (prefix != null) {
                        out.println(prefix + line);
                        out.flush();
                    }
                }
            } catch (java.io.IOException ignored) {
                // the rank exited
            }
        }, "perf-pump");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
