package io.reactivecollectives.samples.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.logging.LoggingMeterRegistry;
import io.micrometer.core.instrument.logging.LoggingRegistryConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer;
import io.reactivecollectives.core.observe.MetricNames;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The library's meters and flight recorder at work, on {@code --world} ranks in this JVM:
 * <ol>
 *   <li>runs {@code --iterations} all-reduces and one broadcast with every rank's meters in one
 *       registry ({@code --registry simple}: printed as text at the end; {@code logging}: Micrometer's
 *       {@link LoggingMeterRegistry} with a 1 s step, its lines written to the output), then prints the
 *       {@code rc.*} meters ({@link MetricNames});</li>
 *   <li>unless {@code --no-stall}, lets the last rank skip an all-reduce: the others time
 *       out, dump their flight recorders into {@code --dump-dir}, the late rank is dumped on request,
 *       and the analyser says who is behind ({@code rank 3 never started allReduce seq 21; ranks 0-2
 *       are waiting for it}).</li>
 * </ol>
 * Run: {@code java -cp ... io.reactivecollectives.samples.observe.ObservabilityDemo --world 4}.
 */
@Command(name = "observability-demo", mixinStandardHelpOptions = true, versionProvider = io.reactivecollectives.tools.cli.Cli.Version.class,
        description = "Shows the rc.* meters and the flight recorder's analysis on a local cluster.")
public final class ObservabilityDemo implements Callable<Integer> {

    @Option(names = "--world", defaultValue = "4", description = "ranks (default ${DEFAULT-VALUE})")
    int world;

    @Option(names = "--iterations", defaultValue = "20", description = "all-reduces to run (default ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = "--elements", defaultValue = "262144", description = "float32 elements per tensor (default ${DEFAULT-VALUE})")
    int elements;

    @Option(names = "--registry", defaultValue = "simple", description = "simple or logging (default ${DEFAULT-VALUE})")
    String registry;

    @Option(names = "--no-stall", description = "leave out the part where a rank falls behind")
    boolean noStall;

    @Option(names = "--dump-dir", description = "where flight-recorder dumps go (default: a new temporary directory)")
    Path dumpDir;

    private final PrintStream out;

    public ObservabilityDemo() {
        this(System.out);
    }

    public ObservabilityDemo(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (world < 2) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--world must be at least 2");
        }
        Path dir = dumpDir != null ? Files.createDirectories(dumpDir) : Files.createTempDirectory("rc-flight-recorder");
        MeterRegistry reg = registry.equals("logging") ? loggingRegistry(out) : new SimpleMeterRegistry();
        GroupOptions options = GroupOptions.defaults().withGroupId("demo").withMeterRegistry(reg)
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(dir));
        List<Tensor> tensors = new ArrayList<>();
        LocalCluster cluster = LocalCluster.start(world, options).block(Duration.ofSeconds(60));
        try {
            for (int r = 0; r < world; r++) {
                tensors.add(Tensor.zeros(DType.FLOAT32, elements).fill(r));
            }
            for (int i = 0; i < iterations; i++) {
                cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.AVG)).block(Duration.ofSeconds(60));
            }
            cluster.run(g -> g.broadcast(tensors.get(g.rank()), 0)).block(Duration.ofSeconds(60));
            out.println("== meters after " + iterations + " all-reduces and a broadcast of " + elements
                    + " float32 on " + world + " ranks ==");
            printMeters(reg);

            if (!noStall) {
                int late = world - 1;
                out.println();
                out.println("== rank " + late + " skips the next all-reduce; the others time out after 1 s ==");
                CollectiveOptions oneSecond = CollectiveOptions.timeout(Duration.ofSeconds(1));
                Flux.range(0, late)
                        .flatMap(r -> cluster.group(r).allReduce(tensors.get(r), ReduceOp.SUM, oneSecond)
                                .doOnError(e -> out.println("rank " + r + ": " + e.getMessage()))
                                .onErrorResume(e -> reactor.core.publisher.Mono.empty()), late)
                        .blockLast(Duration.ofSeconds(60));
                // the ranks that timed out dumped themselves; the late one is asked to
                cluster.group(late).flightRecorder().dump("on request").block(Duration.ofSeconds(30));
                awaitDumps(cluster, late);
                Path job = cluster.group(0).flightRecorder().dumpDirectory();   // this run's dumps, under dir
                out.println();
                out.println("== flight recorder analysis of " + job + " ==");
                out.print(FlightRecorderAnalyzer.analyze(FlightRecorderAnalyzer.readAll(List.of(job))).text());
            }
        } finally {
            cluster.close();
            tensors.forEach(Tensor::release);
            reg.close();
        }
        return 0;
    }

    private void printMeters(MeterRegistry reg) {
        if (reg instanceof SimpleMeterRegistry simple) {
            for (String line : simple.getMetersAsString().split("\n")) {
                if (line.startsWith("rc.")) {
                    out.println(line);
                }
            }
        } else {
            // a step registry logs each completed step (1 s here) and, on close, what is left
            try {
                Thread.sleep(1_200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reg.close();
            out.println("(published by " + reg.getClass().getSimpleName() + ", above)");
        }
    }

    private static LoggingMeterRegistry loggingRegistry(PrintStream sink) {
        LoggingRegistryConfig config = new LoggingRegistryConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public Duration step() {
                return Duration.ofSeconds(1);
            }
        };
        return LoggingMeterRegistry.builder(config).loggingSink(sink::println).build();
    }

    private static void awaitDumps(LocalCluster cluster, int ranks) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (int r = 0; r < ranks; r++) {
            Path f = cluster.group(r).flightRecorder().dumpFile();
            while (!Files.exists(f) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
    }

    public static void main(String[] args) {
        System.exit(io.reactivecollectives.tools.cli.Cli.execute(new ObservabilityDemo(), args));
    }
}
