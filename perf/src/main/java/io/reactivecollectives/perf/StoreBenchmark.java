package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * TCP store operations per second from C concurrent clients, in the layout of PyTorch's
 * {@code tcpstore_bench.py} ({@code op clients ops_total seconds ops_per_s}): one
 * {@link TcpStoreServer} in this process (as PyTorch's master store), C client processes (separate
 * JVMs, as PyTorch's bench uses processes), each doing {@code --ops} operations of one kind:
 * <ul>
 *   <li>{@code set}: its own key to 64 bytes, unacknowledged
 *       ({@link TcpStoreOptions#withAcknowledgedSets(boolean)}), as PyTorch's {@code set}, which
 *       does not wait for an answer; the client's clock stops only after a round trip on the same
 *       connection, so every set has been applied by the server (PyTorch's bench stops when the
 *       requests are sent);</li>
 *   <li>{@code set+ack}: the same with this store's default, acknowledged sets (PyTorch has no
 *       such operation);</li>
 *   <li>{@code get} of its own key and {@code add} of 1 to one shared counter.</li>
 * </ul>
 * Every client waits for each reply before the next request ({@code --window 1}, the default: one
 * request in flight per client, as PyTorch's client); {@code --window W} keeps W requests in
 * flight per client on its one connection (pipelining). Clients warm up (JIT) before the timed runs
 * start together; the time runs from the start signal until the last client reports done. The
 * final counter is checked to equal clients x ops.
 */
@Command(name = "store-bench", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "TCP store set/get/add operations per second from concurrent client processes.")
public final class StoreBenchmark implements Callable<Integer> {

    private static final Duration T = Duration.ofSeconds(300);
    private static final List<String> OPS = List.of("set", "set+ack", "get", "add");

    @Option(names = "--clients", defaultValue = "16", description = "client processes (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--ops", defaultValue = "100000", description = "operations per client per op (default ${DEFAULT-VALUE})")
    int ops;

    @Option(names = "--window", defaultValue = "1", description = "requests in flight per client (default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--warmup", defaultValue = "40000",
            description = "untimed operations of each kind per client first (default ${DEFAULT-VALUE}: enough for C2)")
    int warmup;

    @Option(names = "--server-threads", defaultValue = "0",
            description = "event-loop threads of the server (default: one per core, as Reactor Netty's own loops)")
    int serverThreads;

    @Option(names = "--child-jvm-args", defaultValue = "-Xmx128m -XX:+UseSerialGC -Xss256k -Dio.netty.leakDetection.level=disabled",
            description = "JVM options of the client processes (default '${DEFAULT-VALUE}')")
    String childJvmArgs;

    @Option(names = "--op", split = ",", description = "the operations to time, of set, set+ack, get, add (default: all)")
    List<String> only = OPS;

    @Option(names = "--tcp-only", description = "no Unix domain socket: clients on this host use loopback TCP, as PyTorch's")
    boolean tcpOnly;

    // child mode (internal)
    @Option(names = "--child", hidden = true)
    boolean child;
    @Option(names = "--port", hidden = true)
    int port;
    @Option(names = "--id", hidden = true)
    int id;

    @Override
    public Integer call() throws Exception {
        return child ? runChild() : runParent();
    }

    private int runParent() throws Exception {
        if (tcpOnly) {
            System.setProperty("rc.store.unixSockets", "false");
        }
        int threads = serverThreads > 0 ? serverThreads : Runtime.getRuntime().availableProcessors();
        LoopResources serverLoops = LoopResources.create("store-server", 1, threads, true);
        TcpStoreServer server = TcpStoreServer.builder().loops(serverLoops).start().block(T);
        TcpStore master = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(T)).block(T);
        List<Process> children = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                List<String> cmd = ChildJvm.command(childJvmArgs, tcpOnly, StoreBenchmark.class, "--child", "--port",
                        Integer.toString(server.port()), "--id", Integer.toString(c), "--clients", Integer.toString(clients),
                        "--ops", Integer.toString(ops), "--window", Integer.toString(window), "--warmup",
                        Integer.toString(warmup), "--op", String.join(",", only));
                children.add(new ProcessBuilder(cmd).inheritIO().start());
            }
            System.out.printf("# TcpStore, %d client processes (separate JVMs: %s), %d ops each, %d request(s) in flight"
                    + " per client, server on %d event-loop thread(s), clients connected through %s%n", clients,
                    childJvmArgs, ops, window, threads, server.localSocket() == null ? "loopback TCP"
                            : "its Unix domain socket " + server.localSocket());
            System.out.printf("%7s %8s %10s %8s %10s%n", "op", "clients", "ops_total", "seconds", "ops_per_s");
            for (String op : only) {
                // wait for every client to be warmed up and waiting for the start signal
                master.get("ready/" + op + "/all", T).block(T);
                long t0 = System.nanoTime();
                master.set("go/" + op, new byte[] {1}).block(T);
                master.get("finished/" + op, T).block(T);
                double seconds = (System.nanoTime() - t0) / 1e9;
                long total = (long) clients * ops;
                System.out.printf("%7s %8d %10d %8.2f %10.0f%n", op, clients, total, seconds, total / seconds);
            }
            long counter = only.contains("add")
                    ? Long.parseLong(new String(master.get("counter").block(T), StandardCharsets.US_ASCII)) : (long) clients * ops;
            if (counter != (long) clients * ops) {
                throw new IllegalStateException("counter is " + counter + ", expected " + (long) clients * ops);
            }
            for (Process p : children) {
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("a client process failed");
                }
            }
            return 0;
        } finally {
            children.forEach(Process::destroyForcibly);
            master.close();
            server.close();
            serverLoops.disposeLater().block(T);
        }
    }

    private int runChild() {
        TcpStoreOptions options = TcpStoreOptions.of("127.0.0.1", port).withTimeout(T);
        TcpStore store = TcpStore.connect(options).block(T);
        TcpStore unacknowledged = TcpStore.connect(options.withAcknowledgedSets(false)).block(T);
        String key = "k" + id;
        byte[] x = "x".repeat(64).getBytes(StandardCharsets.US_ASCII);
        byte[] y = "y".repeat(64).getBytes(StandardCharsets.US_ASCII);
        store.set(key, x).block(T);
        // warm-up, untimed, on keys of its own
        for (String op : OPS) { // every op warms up: get reads the key set warms
            run(op.equals("set") ? unacknowledged : store, op, warmup, op.equals("add") ? "warm-counter" : "warm" + id, y);
        }
        for (String op : only) {
            long ready = store.add("ready/" + op, 1).block(T);
            if (ready == clients) {
                store.set("ready/" + op + "/all", new byte[] {1}).block(T);
            }
            store.get("go/" + op, T).block(T);
            long t0 = System.nanoTime();
            run(op.equals("set") ? unacknowledged : store, op, ops, op.equals("add") ? "counter" : key, y);
            if (PerfSettings.BENCH_VERBOSE.get()) {
                System.out.printf("# client %d %s %.1f us/op%n", id, op, (System.nanoTime() - t0) / 1e3 / ops);
            }
            long done = store.add("done/" + op, 1).block(T);
            if (done == clients) {
                store.set("finished/" + op, new byte[] {1}).block(T);
            }
        }
        unacknowledged.close();
        store.close();
        return 0;
    }

    /**
     * n operations, at most {@code window} in flight; each next one is issued from the reply's
     * thread. Unacknowledged sets end with a round trip on their connection, which the server
     * answers after applying every set before it.
     */
    private void run(TcpStore store, String op, int n, String key, byte[] value) {
        Flux<Integer> range = Flux.range(0, n);
        java.util.function.Function<Integer, Mono<?>> one = switch (op) {
            case "set", "set+ack" -> i -> store.set(key, value);
            case "get" -> i -> store.get(key);
            default -> i -> store.add(key, 1);
        };
        Flux<?> all = window <= 1 ? range.concatMap(one::apply, 0) : range.flatMap(one::apply, window);
        all.blockLast(T);
        if (!store.options().acknowledgedSets()) {
            store.numKeys().block(T);
        }
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new StoreBenchmark(), args));
    }

}
