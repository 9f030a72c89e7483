package io.reactivecollectives.perf.jmh;

import io.micrometer.observation.ObservationRegistry;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One float32 SUM all-reduce of {@code bytes} bytes on a 2-rank {@link LocalCluster} (both ranks in
 * this JVM, over loopback), for the allocation profile of the steady state: run with
 * {@code -prof gc} and read {@code gc.alloc.rate.norm} (bytes allocated per all-reduce, both ranks
 * together). Tensors and payloads live off-heap in pooled buffers, so the figure stays a few KB of
 * Reactor and bookkeeping objects whatever the tensor's size: nothing proportional to the tensor.
 *
 * <pre>
 * java -jar perf/target/perf-*-jmh.jar AllReduceAllocationBenchmark -prof gc
 * </pre>
 *
 * <p>{@code -p observations=handler} gives the groups an {@code ObservationRegistry} with one
 * handler that does nothing, for the cost of observing each collective
 * ({@code GroupOptions.withObservationRegistry}); the default, {@code none}, is the group's default
 * ({@code ObservationRegistry.NOOP}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:MaxDirectMemorySize=4g", "-Dio.netty.leakDetection.level=disabled"})
public class AllReduceAllocationBenchmark {

    /** Bytes per tensor. */
    @Param({"4096", "1048576", "67108864"})
    public int bytes;

    /** {@code none}: no observations (the default); {@code handler}: a registry with a handler that does nothing. */
    @Param({"none"})
    public String observations;

    private LocalCluster cluster;
    private final List<Tensor> tensors = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() {
        GroupOptions options = GroupOptions.defaults();
        if ("handler".equals(observations)) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(context -> true);
            options = options.withObservationRegistry(registry);
        } else if (!"none".equals(observations)) {
            throw new IllegalArgumentException("observations: none or handler, got " + observations);
        }
        cluster = LocalCluster.start(2, options).block(Duration.ofSeconds(60));
        for (int r = 0; r < 2; r++) {
            tensors.add(Tensor.zeros(DType.FLOAT32, bytes / 4).fill(r + 1));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        cluster.close();
        tensors.forEach(Tensor::release);
    }

    /** Both ranks' all-reduce, subscribed together; returns when both have the result. */
    @Benchmark
    public Object allReduce() {
        MeshProcessGroup g0 = cluster.group(0);
        MeshProcessGroup g1 = cluster.group(1);
        return Mono.when(g0.allReduce(tensors.get(0), ReduceOp.SUM), g1.allReduce(tensors.get(1), ReduceOp.SUM))
                .block(Duration.ofSeconds(60));
    }
}
