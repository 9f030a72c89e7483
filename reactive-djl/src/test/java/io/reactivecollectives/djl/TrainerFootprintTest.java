package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a step leaves behind: no NDArray outlives its step (the engine's arrays are counted through
 * the system manager), and the garbage a step makes does not grow with the model (a model 60 times
 * larger allocates about as much per step; copying its gradients once would be megabytes).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TrainerFootprintTest {

    private static final int BATCH = 8;

    private static Model mlp(int width) {
        Model m = Model.newInstance("mlp-" + width);
        m.setBlock(new SequentialBlock().add(Linear.builder().setUnits(width).build()).add(Activation::relu)
                .add(Linear.builder().setUnits(width).build()).add(Activation::relu)
                .add(Linear.builder().setUnits(TinyTask.CLASSES).build()));
        return m;
    }

    record Footprint(long arraysBefore, long arraysAfter, double bytesPerStep, long parameters) {
    }

    private static long allocatedBytes() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long b : mx.getThreadAllocatedBytes(mx.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    /** Trains 2 ranks of an MLP of {@code width}; rank 0 measures between step {@code warmup} and the end. */
    private static Footprint measure(int width, int warmup, int steps) {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60));
             NDManager probe = NDManager.newBaseManager()) {
            NDManager system = probe.getParentManager();
            long[] marks = new long[4];
            List<Long> params = cluster.run((ProcessGroup g) -> {
                Model model = mlp(width);
                DistributedTrainer t = DistributedTrainer.builder(model, TinyTask.config(g.rank(), false), g).build();
                NDManager data = NDManager.newBaseManager();
                java.util.function.Function<Integer, Mono<io.reactivecollectives.djl.StepResult>> step = s -> Mono.using(data::newSubManager, m -> {
                    NDList[] b = TinyTask.batch(m, (long) s * 2 * BATCH + g.rank() * BATCH, BATCH);
                    return t.step(b[0], b[1]);
                }, NDManager::close);
                // the arrays are counted JVM-wide: both ranks meet at a barrier first, so that neither is inside a step
                // (a rank's step may end while the other's backward pass still holds its arrays)
                return t.initialize(new Shape(BATCH, TinyTask.FEATURES))
                        .thenMany(Flux.range(0, warmup).concatMap(step))
                        .then(g.barrier())
                        .then(Mono.fromRunnable(() -> {
                            if (g.rank() == 0) {
                                marks[0] = system.getManagedArrays().size();
                                marks[1] = allocatedBytes();
                            }
                        }))
                        .thenMany(Flux.range(warmup, steps).concatMap(step))
                        .then(g.barrier())
                        .then(Mono.fromCallable(() -> {
                            if (g.rank() == 0) {
                                marks[2] = allocatedBytes();
                                marks[3] = system.getManagedArrays().size();
                            }
                            return t.parameterCount();
                        }))
                        .doFinally(s -> {
                            t.close();
                            model.close();
                            data.close();
                        });
            }).block(Duration.ofSeconds(200));
            // both ranks allocate: halve to get one rank's share
            return new Footprint(marks[0], marks[3], (marks[2] - marks[1]) / 2.0 / steps, params.get(0));
        }
    }

    @Test
    void stepsLeaveNoArraysBehindAndTheirGarbageDoesNotGrowWithTheModel() {
        Footprint small = measure(32, 30, 200);
        Footprint large = measure(1024, 30, 200);
        // the count is the JVM's: the other rank's batch (2 arrays) may be alive at either mark, 200 leaked steps would be hundreds
        assertTrue(small.arraysAfter() <= small.arraysBefore() + 2, "NDArrays alive before and after 200 steps: " + small);
        assertTrue(large.arraysAfter() <= large.arraysBefore() + 2, "NDArrays alive before and after 200 steps: " + large);
        System.out.println("garbage per step and rank: " + small + " / " + large);
        assertTrue(large.parameters() > 60 * small.parameters(), large + " vs " + small);
        long gradientBytes = large.parameters() * 4;
        assertTrue(large.bytesPerStep() < small.bytesPerStep() + gradientBytes / 10.0,
                "garbage per step: " + (long) large.bytesPerStep() + " B with " + large.parameters() + " parameters, "
                        + (long) small.bytesPerStep() + " B with " + small.parameters() + " (the gradients are " + gradientBytes + " B)");
    }
}
