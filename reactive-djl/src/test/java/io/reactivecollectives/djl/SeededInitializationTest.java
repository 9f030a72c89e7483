package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code Builder.seed}: the engine's own initializers (Xavier, drawn from libtorch's one generator
 * per JVM) give the parameters a lone process seeded the same way gets, also when several ranks in
 * one JVM initialize at once (a Spark {@code local[N]} stage, {@code LocalCluster}), and whatever
 * the generator drew before.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SeededInitializationTest {

    private static final int SEED = 11;

    /** Plain DJL (no seed of its own: the engine's default initializers). */
    private static DefaultTrainingConfig config() {
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build());
    }

    private static List<float[]> loneProcess() {
        try (Model model = TinyTask.model(); Trainer trainer = model.newTrainer(config())) {
            Engine.getEngine("PyTorch").setRandomSeed(SEED);
            trainer.initialize(new Shape(4, TinyTask.FEATURES));
            return TinyTask.parameters(model);
        }
    }

    private static List<List<float[]>> ranksInOneJvm(int world) {
        try (LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(60))) {
            return cluster.run(g -> Mono.using(() -> new Object[] {TinyTask.model(), null}, held -> {
                Model model = (Model) held[0];
                DistributedTrainer t = DistributedTrainer.builder(model, config(), g).seed(SEED).build();
                held[1] = t;
                return t.initialize(new Shape(4, TinyTask.FEATURES)).then(Mono.fromCallable(() -> TinyTask.parameters(model)));
            }, held -> {
                if (held[1] != null) {
                    ((DistributedTrainer) held[1]).close();
                }
                ((Model) held[0]).close();
            })).block(Duration.ofSeconds(90));
        }
    }

    @Test
    void ranksSharingAJvmStartFromTheParametersALoneSeededProcessDraws() {
        List<float[]> expected = loneProcess();
        for (int round = 0; round < 3; round++) {
            // the generator moves on between rounds: only the seed makes the rounds agree
            try (ai.djl.ndarray.NDManager m = Engine.getEngine("PyTorch").newBaseManager()) {
                m.randomNormal(new Shape(round + 7)).close();
            }
            List<List<float[]>> ranks = ranksInOneJvm(4);
            assertEquals(4, ranks.size());
            for (int r = 0; r < ranks.size(); r++) {
                List<float[]> got = ranks.get(r);
                assertEquals(expected.size(), got.size());
                for (int i = 0; i < expected.size(); i++) {
                    assertArrayEquals(expected.get(i), got.get(i), "round " + round + ", rank " + r + ", parameter " + i);
                }
            }
        }
    }
}
