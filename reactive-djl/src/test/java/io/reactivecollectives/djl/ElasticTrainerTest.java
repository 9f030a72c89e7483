package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.transport.ElasticGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DJL trainer in an elastic group, real ranks in one JVM: 3 ranks train, rank 2 is lost, the
 * survivors' step fails, they recover and take it again on 2 ranks, a fresh process (other initial
 * weights, no optimizer state) joins with rank 2's identity, and the 3 train on. At the end every
 * rank holds the parameters one process gets on the same global batches, with the optimizer's
 * state (momentum, or Adam's moments and step counts) carried across the join.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ElasticTrainerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int BATCH = 4;
    /** Steps on 3 ranks, then on the 2 survivors (the first of them failed once), then on 3 again. */
    private static final int[] PHASES = {6, 5, 6};

    private static DefaultTrainingConfig config(String optimizer, long initSeed) {
        Optimizer opt = optimizer.equals("adam") ? Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.01f)).build()
                : Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build();
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss()).optOptimizer(opt)
                .optInitializer(new TinyTask.Seeded(initSeed), p -> true);
    }

    private static GroupOptions options() {
        return GroupOptions.defaults().withGroupId("djl-elastic").withTimeout(Duration.ofSeconds(10))
                .withConnectTimeout(Duration.ofSeconds(8));
    }

    /** Global step {@code s} on {@code size} ranks: samples {@code s*100 ..}, rank r's slice of B. */
    private static long from(int step, int rank) {
        return step * 100L + (long) rank * BATCH;
    }

    /** One process on the same global batches (3, 2, then 3 slices of B). */
    private static List<float[]> reference(String optimizer) {
        try (Model model = frozenIf(optimizer, TinyTask.model()); Trainer trainer = model.newTrainer(config(optimizer, 0));
             NDManager data = NDManager.newBaseManager()) {
            trainer.initialize(new Shape(BATCH, TinyTask.FEATURES));
            int step = 0;
            for (int phase = 0; phase < PHASES.length; phase++) {
                int size = phase == 1 ? 2 : 3;
                for (int i = 0; i < PHASES[phase]; i++, step++) {
                    try (NDManager m = data.newSubManager()) {
                        NDList[] b = TinyTask.batch(m, from(step, 0), size * BATCH);
                        try (GradientCollector c = trainer.newGradientCollector()) {
                            c.backward(trainer.getLoss().evaluate(b[1], trainer.forward(b[0], b[1])));
                        }
                        trainer.step();
                    }
                }
            }
            return TinyTask.parameters(model);
        }
    }

    /** The model with its first layer frozen (no gradient) when the case says "-frozen". */
    private static Model frozenIf(String optimizer, Model model) {
        if (optimizer.endsWith("-frozen")) {
            ((ai.djl.nn.SequentialBlock) model.getBlock()).getChildren().get(0).getValue().freezeParameters(true);
        }
        return model;
    }

    /** A rank: its model, trainer and elastic group. */
    private static final class Rank implements AutoCloseable {
        final Model model = TinyTask.model();
        final ElasticTrainer trainer;
        final NDManager data = NDManager.newBaseManager();
        ElasticGroup elastic;
        String history = "";

        Rank(String optimizer, long initSeed) {
            frozenIf(optimizer, model);
            trainer = ElasticTrainer.builder(model, config(optimizer, initSeed))
                    .bucketCapBytes(1024).firstBucketBytes(256)   // several buckets: a failure can split a step
                    .applicationState(() -> history.getBytes(StandardCharsets.UTF_8),
                            b -> history = new String(b, StandardCharsets.UTF_8))
                    .build();
            trainer.initialize(new Shape(BATCH, TinyTask.FEATURES)).block(WAIT);
        }

        /** The next step on this rank's slice; a collective's failure recovers and takes it again. */
        Mono<Void> step() {
            return Mono.defer(() -> {
                int s = (int) trainer.steps();
                var g = elastic.group();
                return Mono.using(data::newSubManager, m -> {
                    NDList[] b = TinyTask.batch(m, from(s, g.rank()), BATCH);
                    return trainer.step(b[0], b[1]);
                }, NDManager::close).doOnNext(r -> history += s + ",").then();
            }).onErrorResume(CollectiveException.class, e -> elastic.recover(e)
                    .flatMap(trainer::regroup)
                    .then(Mono.defer(this::step)));
        }

        @Override
        public void close() {
            if (elastic != null) {
                elastic.close();
            }
            trainer.close();
            model.close();
            data.close();
        }
    }

    private static void steps(List<Rank> ranks, int count) {
        for (int i = 0; i < count; i++) {
            Flux.fromIterable(ranks).flatMap(Rank::step).blockLast(WAIT);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sgd-momentum", "adam", "sgd-momentum-frozen"})   // frozen: the joiner takes the frozen layer too
    void aLostRankIsReplacedByAFreshProcessThatTakesTheMembersParametersAndOptimizerState(String optimizer) throws Exception {
        List<float[]> expected = reference(optimizer);
        List<Rank> all = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(3, options()).block(WAIT)) {
            for (int r = 0; r < 3; r++) {
                Rank rank = new Rank(optimizer, r == 0 ? 0 : 50 + r);   // only rank 0's weights count
                rank.elastic = ElasticGroup.of(cluster.group(r), rank.trainer);
                all.add(rank);
            }
            Flux.fromIterable(all).flatMap(r -> r.trainer.begin(r.elastic.group())).blockLast(WAIT);
            steps(all, PHASES[0]);

            Rank lost = all.get(2);
            lost.elastic.group().close();                             // rank 2 is lost
            List<Rank> survivors = List.of(all.get(0), all.get(1));
            steps(survivors, PHASES[1]);                               // the first fails, recovers, is taken again
            survivors.forEach(r -> assertEquals(2, r.elastic.group().size()));

            Rank fresh = new Rank(optimizer, 999);
            all.set(2, fresh);
            lost.elastic = null;
            lost.close();
            CompletableFuture<ElasticGroup> joining = ElasticGroup.join(cluster.store(), 2, fresh.trainer, options()).toFuture();
            boolean grown = false;
            for (int i = 0; i < 100 && !grown; i++) {
                List<Boolean> changed = Flux.fromIterable(survivors).flatMap(r -> r.elastic.boundary()).collectList().block(WAIT);
                grown = changed.get(0);
                if (!grown) {
                    Thread.sleep(ElasticGroup.POLL_MILLIS / 2);
                }
            }
            assertTrue(grown, "the fresh process was never admitted");
            fresh.elastic = joining.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(PHASES[0] + PHASES[1], fresh.trainer.steps(), "the joiner takes the members' step count");
            assertEquals(all.get(0).history, fresh.history, "and the application's own state");
            assertTrue(fresh.elastic.boundary().block(WAIT), "its first boundary is the one it was admitted at");
            Flux.fromIterable(all).flatMap(r -> r.trainer.regroup(r.elastic.group())).blockLast(WAIT);
            steps(all, PHASES[2]);

            List<Boolean> same = Flux.fromIterable(all).flatMap(r -> r.trainer.parametersIdentical()).collectList().block(WAIT);
            assertEquals(List.of(true, true, true), same);
            for (Rank r : all) {
                assertEquals(PHASES[0] + PHASES[1] + PHASES[2], r.trainer.steps());
                List<float[]> got = TinyTask.parameters(r.model);
                for (int i = 0; i < expected.size(); i++) {
                    // Adam divides by the root of the squared gradients: a gradient near zero averaged over 3 ranks
                    // (not a power of two, so rounded differently from one process's mean) can move a weight by up to
                    // its learning rate; SGD stays within rounding
                    float tolerance = optimizer.equals("adam") ? 2e-3f : 2e-5f;
                    assertArrayEquals(expected.get(i), got.get(i), tolerance, "rank " + r.elastic.group().rank() + ", parameter " + i);
                }
            }
        } finally {
            all.forEach(Rank::close);
        }
    }

    @Test
    void aJoinerOfAnotherModelIsRefusedByFingerprintAndStepsBeforeJoiningFail() {
        try (Rank a = new Rank("adam", 0); Model other = Model.newInstance("other")) {
            other.setBlock(new ai.djl.nn.SequentialBlock().add(ai.djl.nn.core.Linear.builder().setUnits(3).build()));
            try (ElasticTrainer b = ElasticTrainer.builder(other, config("adam", 0)).build()) {
                b.initialize(new Shape(BATCH, TinyTask.FEATURES)).block(WAIT);
                assertFalse(a.trainer.fingerprint().equals(b.fingerprint()), a.trainer.fingerprint() + " vs " + b.fingerprint());
                assertTrue(a.trainer.fingerprint().contains("Adam means variances"), a.trainer.fingerprint());
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> b.step(new NDList(), new NDList()).block(WAIT));
                assertTrue(e.getMessage().contains("not in a group yet"), e.getMessage());
            }
        }
    }
}
