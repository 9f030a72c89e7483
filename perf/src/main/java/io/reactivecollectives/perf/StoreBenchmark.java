package io.reactivecollectives.perf;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * TCP store operations per second from C concurrent clients, in the layout of PyTorch's
 * {@code tcpstore_bench.py} ({@code op clients ops_total seconds ops_per_s}): one
 * {@link TcpStoreServer} in this process (as PyTorch's master store), C client processes (separate
 * JVMs, as PyTorch's bench uses processes), each doing {@code --ops} operations of one kind:
 * {@code set} of its own key to 64 bytes, {@code get} of its own key, {@code add} of 1 to one
 * shared counter. Every client waits for each reply before the next request ({@code --window 1},
 * the default: one request in flight per client, as PyTorch's {@code get}/{@code add} - its
 * {@code set} does not wait for any reply); {@code --window W} keeps W requests in flight per
 * client on its one connection (pipelining). Clients warm up (JIT) before the timed runs start
 * together; the time runs from the start signal until the last client reports done. The final
 * counter is checked to equal clients x ops.
 */
@Command(name = "store-bench", mixinStandardHelpOptions = true,
        description = "TCP store set/get/add operations per second from concurrent client processes.")
public final class StoreBenchmark implements Callable<Integer> {

    private static final Duration T = Duration.ofSeconds(300);
    private static final List<String> OPS = List.of("set", "get", "add");

    @Option(names = "--clients", defaultValue = "16", description = "client processes (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--ops", defaultValue = "2000", description = "operations per client per op (default ${DEFAULT-VALUE})")
    int ops;

    @Option(names = "--window", defaultValue = "1", description = "requests in flight per client (default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--warmup", defaultValue = "10000", description = "untimed operations of each kind per client first")
    int warmup;

    @Option(names = "--server-threads", defaultValue = "1",
            description = "event-loop threads of the server (default ${DEFAULT-VALUE}, as PyTorch's single-threaded one)")
    int serverThreads;

    @Option(names = "--child-jvm-args", defaultValue = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k",
            description = "JVM options of the client processes (default '${DEFAULT-VALUE}')")
    String childJvmArgs;

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
        LoopResources serverLoops = LoopResources.create("store-server", 1, serverThreads, true);
        TcpStoreServer server = TcpStoreServer.builder().loops(serverLoops).start().block(T);
        TcpStore master = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(T)).block(T);
        List<Process> children = new ArrayList<>();
        try {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int c = 0; c < clients; c++) {
                List<String> cmd = new ArrayList<>();
                cmd.add(java);
                cmd.addAll(Arrays.asList(childJvmArgs.trim().split("\\s+")));
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), StoreBenchmark.class.getName(),
                        "--child", "--port", Integer.toString(server.port()), "--id", Integer.toString(c),
                        "--clients", Integer.toString(clients), "--ops", Integer.toString(ops),
                        "--window", Integer.toString(window), "--warmup", Integer.toString(warmup)));
                children.add(new ProcessBuilder(cmd).inheritIO().start());
            }
            System.out.printf("# TcpStore, %d client processes (separate JVMs: %s), %d ops each, %d request(s) in flight"
                    + " per client, server on %d event-loop thread(s)%n", clients, childJvmArgs, ops, window, serverThreads);
            System.out.printf("%4s %8s %10s %8s %10s%n", "op", "clients", "ops_total", "seconds", "ops_per_s");
            for (String op : OPS) {
                // wait for every client to be warmed up and waiting for the start signal
                master.get("ready/" + op + "/all", T).block(T);
                long t0 = System.nanoTime();
                master.set("go/" + op, new byte[] {1}).block(T);
                master.get("finished/" + op, T).block(T);
                double seconds = (System.nanoTime() - t0) / 1e9;
                long total = (long) clients * ops;
                System.out.printf("%4s %8d %10d %8.2f %10.0f%n", op, clients, total, seconds, total / seconds);
            }
            long counter = Long.parseLong(new String(master.get("counter").block(T), StandardCharsets.US_ASCII));
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
        TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)).block(T);
        String key = "k" + id;
        byte[] x = "x".repeat(64).getBytes(StandardCharsets.US_ASCII);
        byte[] y = "y".repeat(64).getBytes(StandardCharsets.US_ASCII);
        store.set(key, x).block(T);
        // warm-up, untimed, on keys of its own
        run(store, "set", warmup, "warm" + id, y);
        run(store, "get", warmup, "warm" + id, y);
        run(store, "add", warmup, "warm-counter", y);
        for (String op : OPS) {
            long ready = store.add("ready/" + op, 1).block(T);
            if (ready == clients) {
                store.set("ready/" + op + "/all", new byte[] {1}).block(T);
            }
            store.get("go/" + op, T).block(T);
            run(store, op, ops, op.equals("add") ? "counter" : key, y);
            long done = store.add("done/" + op, 1).block(T);
            if (done == clients) {
                store.set("finished/" + op, new byte[] {1}).block(T);
            }
        }
        store.close();
        return 0;
    }

    /** n operations, at most {@code window} in flight; each next one is issued from the reply's thread. */
    private void run(TcpStore store, String op, int n, String key, byte[] value) {
        Flux<Integer> range = Flux.range(0, n);
        java.util.function.Function<Integer, Mono<?>> one = switch (op) {
            case "set" -> i -> store.set(key, value);
            case "get" -> i -> store.get(key);
            default -> i -> store.add(key, 1);
        };
        Flux<?> all = window <= 1 ? range.concatMap(one::apply, 0) : range.flatMap(one::apply, window);
        all.blockLast(T);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new StoreBenchmark()).execute(args));
    }

}
