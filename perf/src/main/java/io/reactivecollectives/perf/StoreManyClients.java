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

    @Option(names = "--tcp-only", description = "no Unix domain socket: clients use loopback TCP, as PyTorch's")
    boolean tcpOnly;

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
        TcpStore master = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(T)).block(T);
        List<Process> children = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (int p = 0; p < processes; p++) {
                List<String> cmd = ChildJvm.command(childJvmArgs, tcpOnly, StoreManyClients.class, "--child", "--port",
                        Integer.toString(server.port()), "--processes", Integer.toString(processes), "--clients",
                        Integer.toString(clients), "--adds", Integer.toString(adds));
                children.add(new ProcessBuilder(cmd).inheritIO().start());
            }
            master.get("all-connected", T).block(T);
            double startup = (System.nanoTime() - t0) / 1e9;
            long slowestConnectMicros = 0;
            long slowestRestMicros = 0;
            for (int p = 0; p < processes; p++) {
                String[] us = ascii(master.get("connect-us/" + p).block(T)).split(" ");
                slowestConnectMicros = Math.max(slowestConnectMicros, Long.parseLong(us[0]));
                slowestRestMicros = Math.max(slowestRestMicros, Long.parseLong(us[1]));
            }
            long a0 = System.nanoTime();
            master.set("go", new byte[] {1}).block(T);
            master.get("all-done", T).block(T);
            double seconds = (System.nanoTime() - a0) / 1e9;
            long total = (long) processes * clients * adds;
            long counter = Long.parseLong(ascii(master.get("counter").block(T)));
            System.out.printf(Locale.ROOT, "rc   processes %d clients/process %d connect_s(slowest process) %.3f"
                            + " (after the first client: %.3f) all_connected_s(incl. JVM start) %.2f adds %d seconds %.2f"
                            + " adds_per_s %.0f counter_ok %b via %s%n",
                    processes, clients, slowestConnectMicros / 1e6, slowestRestMicros / 1e6, startup, total, seconds,
                    total / seconds,
                    counter == total, server.localSocket() == null ? "tcp" : "unix-socket");
            for (Process p : children) {
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("a client process failed");
                }
            }
            return counter == total ? 0 : 1;
        } finally {
            children.forEach(Process::destroyForcibly);
            master.close();
            server.close();
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
        int id = (int) (long) first.add("connected", 1).block(T) - 1;
        first.set("connect-us/" + id, (connectMicros + " " + restMicros).getBytes(StandardCharsets.US_ASCII)).block(T);
        if (id == processes - 1) {
            first.set("all-connected", new byte[] {1}).block(T);
        }
        first.get("go", T).block(T);
        Flux.fromIterable(stores)
                .flatMap(s -> Flux.range(0, adds).concatMap(i -> s.add("counter", 1)), clients)
                .blockLast(T);
        if (first.add("done", 1).block(T) == processes) {
            first.set("all-done", new byte[] {1}).block(T);
        }
        stores.forEach(TcpStore::close);
        return 0;
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new StoreManyClients(), args));
    }
}
