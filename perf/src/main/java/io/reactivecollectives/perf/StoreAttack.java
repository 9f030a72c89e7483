package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hostile and careless clients against a TCP store server running in its own JVM (issue 17): for
 * each attack, the connections tried and those the server still holds at its end, the server's
 * RSS before, at its peak and after, the latency of well-behaved clients (adds) before and during,
 * their errors, and the server's log volume. Prints a markdown table.
 *
 * <p>Run through {@code perf/scripts/store_attack.sh}.
 */
@Command(name = "store-attack", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Attacks a TCP store server in a child JVM and measures what it costs the server and its clients.")
public final class StoreAttack implements Callable<Integer> {

    @Option(names = "--seconds", defaultValue = "15", description = "length of each attack (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--attacks", split = ",", defaultValue = "idle,slowloris,random,big-unauth,big-greeted,greeted-slowloris",
            description = "attacks to run, in order (default ${DEFAULT-VALUE})")
    List<String> attacks;

    @Option(names = "--server-jvm-args", defaultValue = "-XX:+UseSerialGC",
            description = "options of the server's JVM (default ${DEFAULT-VALUE})")
    String serverJvmArgs;

    @Option(names = "--server-args", defaultValue = "", description = "extra options of the server command")
    String serverArgs;

    @Option(names = "--legit-clients", defaultValue = "4", description = "well-behaved clients (default ${DEFAULT-VALUE})")
    int legitClients;

    static final int MIB = 1 << 20;

    @Override
    public Integer call() throws Exception {
        Path log = Files.createTempFile("rc-store-attack", ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(Arrays.asList(serverJvmArgs.trim().split("\\s+")));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "io.reactivecollectives.tools.store.TcpStoreServerCommand", "--host", "127.0.0.1", "--port", "0",
                "--no-unix-socket"));
        if (!serverArgs.isBlank()) {
            cmd.addAll(Arrays.asList(serverArgs.trim().split("\\s+")));
        }
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            int port = readPort(server, log.toFile());
            long pid = server.pid();
            System.out.printf(Locale.ROOT, "# server pid %d port %d, JVM %s %s, %d legit clients, %d s per attack%n", pid,
                    port, serverJvmArgs, serverArgs, legitClients, seconds);
            Legit legit = new Legit(port, legitClients);
            legit.phase();
            Thread.sleep(seconds * 1000L);
            Legit.Stats base = legit.phase();
            System.out.println("| attack | connections | still open at the end | server RSS before / peak / after (MiB)"
                    + " | legit adds p50 / p99 before (us) | p50 / p99 during (us) | legit errors | log bytes |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (String attack : attacks) {
                long rssBefore = ProcessMemory.rss(pid);
                long logBefore = Files.size(log);
                Base baseline = base;
                ProcessMemory.PeakSampler sampler = new ProcessMemory.PeakSampler(pid);
                sampler.start();
                StoreAttackConnections a = new StoreAttackConnections(attack, port);
                a.run(seconds);
                Legit.Stats during = legit.phase();
                int open = a.stillOpen();
                a.close();
                Thread.sleep(11_000); // the log's summaries come at the end of their 10 s window
                sampler.stop.set(true);
                sampler.join();
                long rssAfter = ProcessMemory.rss(pid);
                long logBytes = Files.size(log) - logBefore;
                System.out.printf(Locale.ROOT, "| %s | %d | %d | %d / %d / %d | %d / %d | %d / %d | %d | %d |%n", attack,
                        a.tried, open, rssBefore / MIB, Math.max(sampler.peak, rssAfter) / MIB, rssAfter / MIB,
                        baseline.p50(), baseline.p99(), during.p50, during.p99, during.errors, logBytes);
                legit.phase();
                Thread.sleep(2000);
                base = legit.phase();
            }
            legit.close();
            System.out.println("# server log: " + log + " (" + Files.size(log) + " bytes)");
            return 0;
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** What a baseline is made of. */
    private interface Base {
        long p50();

        long p99();
    }

    private static int readPort(Process server, File log) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        while (line != null && !line.contains("listening on")) {
            line = r.readLine();
        }
        if (line == null) {
            throw new IllegalStateException("the server did not start");
        }
        String addr = line.substring(line.indexOf("listening on ") + 13).split("[ ,]")[0];
        int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
        Thread pump = new Thread(() -> {
            try (var out = Files.newOutputStream(log.toPath())) {
                server.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the server ended
            }
        }, "server-log");
        pump.setDaemon(true);
        pump.start();
        return port;
    }

    /** Well-behaved clients adding in a loop; each {@link #phase()} returns the latencies since the last. */
    private static final class Legit implements AutoCloseable {
        final List<TcpStore> clients = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Object lock = new Object();
        long[] lat = new long[1 << 16];
        int n;
        long errors;

        record Stats(long p50, long p99, long errors, int count) implements Base { }

        Legit(int port, int count) {
            Duration t = Duration.ofSeconds(30);
            for (int i = 0; i < count; i++) {
                TcpStore c = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(t)).block(t);
                clients.add(c);
                Thread th = new Thread(() -> loop(c), "legit-" + i);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
        }

        private void loop(TcpStore c) {
            while (!stop.get()) {
                long t0 = System.nanoTime();
                boolean ok;
                try {
                    c.add("legit", 1).block(Duration.ofSeconds(30));
                    ok = true;
                } catch (RuntimeException e) {
                    ok = false;
                }
                long us = (System.nanoTime() - t0) / 1000;
                synchronized (lock) {
                    if (!ok) {
                        errors++;
                    } else {
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, n * 2);
                        }
                        lat[n++] = us;
                    }
                }
                try {
                    Thread.sleep(2); // a steady trickle, not a benchmark
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        Stats phase() {
            synchronized (lock) {
                long[] l = Arrays.copyOf(lat, n);
                Arrays.sort(l);
                Stats s = new Stats(n == 0 ? -1 : l[n / 2], n == 0 ? -1 : l[Math.min(n - 1, (int) (n * 0.99))], errors, n);
                n = 0;
                errors = 0;
                return s;
            }
        }

        @Override
        public void close() {
            stop.set(true);
            clients.forEach(TcpStore::close);
        }
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new StoreAttack(), args));
    }
}
