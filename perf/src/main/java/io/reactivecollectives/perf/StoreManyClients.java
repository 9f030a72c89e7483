package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Many clients on one store (issue 17), as {@code perf/scripts/store_many_clients.py} does with
 * PyTorch's TCPStore: {@code --processes} client JVMs each connect {@code --clients} clients at once
 * (the time until all are connected is the set-up time, also given without the JVM's first
 * connection, which loads and links the client's classes), then every client adds 1 to one counter
 * {@code --adds} times, one at a time; all processes start adding together. Prints the slowest
 * process's set-up time, the adds' wall time and rate, and checks the counter's total.
 *
 * <p>{@code --workload keys} (issue 44's start-up load) instead has every client set its own key,
 * read it back, wait for and read the next client's key, and add 1 to the counter once: four
 * operations per client, every value checked, with the server process's heap and resident memory
 * before the clients connect, at their peak and after they closed.
 */
@Command(name = "store-many-clients", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Connection set-up and add throughput of many TcpStore clients.")
public final class StoreManyClients implements Callable<Integer> {

    @Option(names = "--processes", defaultValue = "8", description = "client JVMs (default ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--clients", defaultValue = "125", description = "clients per process (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--adds", defaultValue = "200", description = "adds per client (default ${DEFAULT-VALUE})")
    int adds;

    @Option(names = "--child-jvm-args", defaultValue = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k"
            + " -Dio.netty.leakDetection.level=disabled", description = "options of the client JVMs (default ${DEFAULT-VALUE})")
    String childJvmArgs;

    @Option(names = "--workload", defaultValue = "adds",
            description = "adds: --adds adds per client; keys: set, get, wait for the next client's key, one add (default ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--tcp-only", description = "no Unix domain socket: clients use loopback TCP, as PyTorch's")
    boolean tcpOnly;

    @Option(names = "--waves", defaultValue = "1",
            description = "with --workload keys: this many waves of client processes, one after the other, on one server (default ${DEFAULT-VALUE})")
    int waves;

    @Option(names = "--prefix", hidden = true, defaultValue = "")
    String prefix;

    @Option(names = "--child", hidden = true)
    boolean child;

    @Option(names = "--port", hidden = true)
    int port;

    private static final Duration T = Duration.ofSeconds(300);

    @Override
    public Integer call() throws Exception {
        return child ? runChild() : runParent();
    }

    private int runParent() throws Exception {
        if (tcpOnly) {
            System.setProperty("rc.store.unixSockets", "false");
        }
        TcpStoreServer server = TcpStoreServer.builder().start().block(T);
        long pid = ProcessHandle.current().pid();
        System.gc();
        Memory before = new Memory(ProcessMemory.rss(pid), usedHeap());
        ProcessMemory.PeakSampler sampler = new ProcessMemory.PeakSampler(pid);
        sampler.start();
        TcpStore master = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(T)).block(T);
        try {
            boolean ok = true;
            for (int w = 0; w < (keys() ? waves : 1); w++) {
                ok &= wave(server, master, "w" + w + "/", before, sampler);
            }
            return ok ? 0 : 1;
        } finally {
            sampler.stop.set(true);
            master.close();
            server.close();
        }
    }

    /** The server's resident memory and used heap, in bytes. */
    private record Memory(long rss, long heap) {
    }

    /** One wave of client processes, their keys under {@code prefix}: prints its line, true when every total was right. */
    private boolean wave(TcpStoreServer server, TcpStore master, String prefix, Memory before,
                         ProcessMemory.PeakSampler sampler) throws Exception {
        List<Process> children = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (int p = 0; p < processes; p++) {
                List<String> cmd = ChildJvm.command(childJvmArgs, tcpOnly, StoreManyClients.class, "--child", "--port",
                        Integer.toString(server.port()), "--processes", Integer.toString(processes), "--clients",
                        Integer.toString(clients), "--adds", Integer.toString(adds), "--workload", workload,
                        "--prefix", prefix);
                children.add(new ProcessBuilder(cmd).inheritIO().start());
            }
            master.get(prefix + "all-connected", T).block(T);
            double startup = (System.nanoTime() - t0) / 1e9;
            long slowestConnectMicros = 0;
            long slowestRestMicros = 0;
            for (int p = 0; p < processes; p++) {
                String[] us = ascii(master.get(prefix + "connect-us/" + p).block(T)).split(" ");
                slowestConnectMicros = Math.max(slowestConnectMicros, Long.parseLong(us[0]));
                slowestRestMicros = Math.max(slowestRestMicros, Long.parseLong(us[1]));
            }
            long a0 = System.nanoTime();
            master.set(prefix + "go", new byte[] {1}).block(T);
            master.get(prefix + "all-done", T).block(T);
            double seconds = (System.nanoTime() - a0) / 1e9;
            boolean keys = keys();
            long total = (long) processes * clients * (keys ? 1 : adds);
            long counter = Long.parseLong(ascii(master.get(prefix + "counter").block(T)));
            if (keys) {
                System.gc();  // live heap with every client still connected
                long heapWith = usedHeap();
                master.set(prefix + "close", new byte[] {1}).block(T);
                long wrong = master.check(List.of(prefix + "wrong")).block(T)
                        ? Long.parseLong(ascii(master.get(prefix + "wrong").block(T))) : 0;
                for (Process p : children) {
                    p.waitFor(60, TimeUnit.SECONDS);
                }
                Thread.sleep(500);  // the server sees the clients' ends
                System.gc();
                long pid = ProcessHandle.current().pid();
                long mib = 1 << 20;
                System.out.printf(Locale.ROOT, "rc   keys %sprocesses %d clients %d connect_s(slowest process) %.3f (after the first client: %.3f) ops %d"
                                + " seconds %.2f ops_per_s %.0f wrong %d counter_ok %b server_rss_mib before %d peak %d after %d"
                                + " heap_mib before %d with_clients %d after %d via %s%n",
                        waves > 1 ? prefix + " " : "", processes, processes * clients, slowestConnectMicros / 1e6,
                        slowestRestMicros / 1e6, 4 * total,
                        seconds, 4 * total / seconds, wrong, counter == total, before.rss() / mib, sampler.peak / mib,
                        ProcessMemory.rss(pid) / mib, before.heap() / mib, heapWith / mib, usedHeap() / mib,
                        server.localSocket() == null ? "tcp" : "unix-socket");
                counter = wrong == 0 ? counter : -1;
            } else {
                System.out.printf(Locale.ROOT, "rc   processes %d clients/process %d connect_s(slowest process) %.3f"
                                + " (after the first client: %.3f) all_connected_s(incl. JVM start) %.2f adds %d seconds %.2f"
                                + " adds_per_s %.0f counter_ok %b via %s%n",
                        processes, clients, slowestConnectMicros / 1e6, slowestRestMicros / 1e6, startup, total, seconds,
                        total / seconds,
                        counter == total, server.localSocket() == null ? "tcp" : "unix-socket");
            }
            for (Process p : children) {
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("a client process failed");
                }
            }
            return counter == total;
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    private int runChild() {
        TcpStoreOptions options = TcpStoreOptions.of("127.0.0.1", port).withTimeout(T);
        long t0 = System.nanoTime();
        TcpStore first = TcpStore.connect(options).block(T); // the JVM's first: loads and links the client's classes
        long t1 = System.nanoTime();
        List<TcpStore> stores = new ArrayList<>(List.of(first));
        stores.addAll(Flux.range(1, clients - 1).flatMap(i -> TcpStore.connect(options), clients).collectList().block(T));
        long connectMicros = (System.nanoTime() - t0) / 1000;
        long restMicros = (System.nanoTime() - t1) / 1000;
        int id = (int) (long) first.add(prefix + "connected", 1).block(T) - 1;
        first.set(prefix + "connect-us/" + id, (connectMicros + " " + restMicros).getBytes(StandardCharsets.US_ASCII)).block(T);
        if (id == processes - 1) {
            first.set(prefix + "all-connected", new byte[] {1}).block(T);
        }
        first.get(prefix + "go", T).block(T);
        if (keys()) {
            long total = (long) processes * clients;
            Flux.range(0, clients)
                    .flatMap(i -> {
                        TcpStore s = stores.get(i);
                        long g = (long) id * clients + i;
                        long next = (g + 1) % total;
                        return s.set(prefix + "key/" + g, value(g)).then(s.get(prefix + "key/" + g, T))
                                .flatMap(v -> same(s, v, g))
                                .then(s.get(prefix + "key/" + next, T))
                                .flatMap(v -> same(s, v, next))
                                .then(s.add(prefix + "counter", 1));
                    }, clients)
                    .blockLast(T);
        } else {
            Flux.fromIterable(stores)
                    .flatMap(s -> Flux.range(0, adds).concatMap(i -> s.add(prefix + "counter", 1)), clients)
                    .blockLast(T);
        }
        if (first.add(prefix + "done", 1).block(T) == processes) {
            first.set(prefix + "all-done", new byte[] {1}).block(T);
        }
        if (keys()) {
            first.get(prefix + "close", T).block(T);  // the server's memory is read with every client connected
        }
        stores.forEach(TcpStore::close);
        return 0;
    }

    /** Whether the workload is {@code keys} (set, get, wait for the next, one add) rather than {@code adds}. */
    private boolean keys() {
        return "keys".equals(workload);
    }

    /** Client {@code g}'s value: its number and 48 bytes that depend on it. */
    private static byte[] value(long g) {
        byte[] v = new byte[56];
        java.nio.ByteBuffer.wrap(v).putLong(g);
        for (int i = 8; i < v.length; i++) {
            v[i] = (byte) (g * 31 + i);
        }
        return v;
    }

    /** Adds 1 to the key {@code wrong} when {@code v} is not client {@code g}'s value. */
    private reactor.core.publisher.Mono<Void> same(TcpStore s, byte[] v, long g) {
        return java.util.Arrays.equals(v, value(g)) ? reactor.core.publisher.Mono.empty() : s.add(prefix + "wrong", 1).then();
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new StoreManyClients(), args));
    }
}
