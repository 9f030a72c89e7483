package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ddp.Bf16CompressHook;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.Fp16CompressHook;
import io.reactivecollectives.core.ddp.PowerSgdHook;
import io.reactivecollectives.core.ddp.PowerSgdState;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DJL trainer on real ranks ({@link LocalCluster}, loopback): N ranks on batches of B give the
 * parameters one process gets on the global batches of N x B, step for step.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DistributedTrainerTest {

    private static final int BATCH = 8;

    /** One process, plain DJL (its own Trainer.step()), on the global batches. */
    private static List<float[]> singleProcess(int steps, int globalBatch, boolean adam, int accumulateEvery) {
        try (Model model = TinyTask.model();
             Trainer trainer = model.newTrainer(TinyTask.config(0, adam));
             NDManager data = NDManager.newBaseManager()) {
            trainer.initialize(new Shape(globalBatch, TinyTask.FEATURES));
            for (int s = 0; s < steps; s++) {
                try (NDManager m = data.newSubManager()) {
                    NDList[] b = TinyTask.batch(m, (long) s * globalBatch, globalBatch);
                    try (GradientCollector c = trainer.newGradientCollector()) {
                        c.backward(trainer.getLoss().evaluate(b[1], trainer.forward(b[0], b[1])));
                    }
                    if (accumulateEvery <= 1 || (s + 1) % accumulateEvery == 0) {
                        trainer.step();
                    }
                }
            }
            return TinyTask.parameters(model);
        }
    }

    /** Each rank trains on its slice of every global batch; returns its parameters and whether all ranks agreed. */
    private static List<Result> distributed(int world, int steps, boolean adam, int accumulateEvery,
                                            Function<ProcessGroup, CommHook> hook) {
        return distributed(world, steps, adam, accumulateEvery, hook, name -> false);
    }

    private static List<Result> distributed(int world, int steps, boolean adam, int accumulateEvery,
                                            Function<ProcessGroup, CommHook> hook, Predicate<String> rowSparse) {
        try (LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(60))) {
            return cluster.run(g -> Mono.using(() -> new Rank(g, adam, hook, rowSparse), r -> r.train(steps, accumulateEvery), Rank::close))
                    .block(Duration.ofSeconds(200));
        }
    }

    record Result(List<float[]> parameters, boolean identical, float lastLoss, int buckets) {
    }

    private static final class Rank {
        final ProcessGroup group;
        final Model model = TinyTask.model();
        final DistributedTrainer trainer;
        final NDManager data = NDManager.newBaseManager();

        Rank(ProcessGroup group, boolean adam, Function<ProcessGroup, CommHook> hook) {
            this(group, adam, hook, name -> false);
        }

        Rank(ProcessGroup group, boolean adam, Function<ProcessGroup, CommHook> hook, Predicate<String> rowSparse) {
            this.group = group;
            DistributedTrainer.Builder b = DistributedTrainer.builder(model, TinyTask.config(group.rank() == 0 ? 0 : 100 + group.rank(), adam), group)
                    .bucketCapBytes(2048).firstBucketBytes(256) // several buckets even for this small model
                    .rowSparseGradients(rowSparse);
            if (hook != null) {
                b.hook(hook);
            }
            this.trainer = b.build();
        }

        Mono<Result> train(int steps, int accumulateEvery) {
            int world = group.size();
            float[] lastLoss = new float[1];
            return trainer.initialize(new Shape(BATCH, TinyTask.FEATURES))
                    .thenMany(Flux.range(0, steps).concatMap(s -> Mono.using(data::newSubManager, m -> {
                        NDList[] b = TinyTask.batch(m, (long) s * world * BATCH + (long) group.rank() * BATCH, BATCH);
                        boolean sync = accumulateEvery <= 1 || (s + 1) % accumulateEvery == 0;
                        return sync ? trainer.step(b[0], b[1]) : trainer.accumulate(b[0], b[1]);
                    }, NDManager::close)))
                    .doOnNext(r -> lastLoss[0] = r.loss())
                    .then(trainer.parametersIdentical())
                    .map(same -> new Result(TinyTask.parameters(model), same, lastLoss[0], trainer.bucketCount()));
        }

        void close() {
            trainer.close();
            model.close();
            data.close();
        }
    }

    private static void assertSameParameters(List<float[]> expected, List<float[]> actual, float tolerance, String what) {
        assertEquals(expected.size(), actual.size(), what);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), tolerance, what + ": parameter " + i);
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1}")
    @CsvSource({"2, sgd", "4, sgd", "2, adam"})
    void ranksTrainAsOneProcessOnTheGlobalBatch(int world, String optimizer) {
        boolean adam = optimizer.equals("adam");
        int steps = 100;
        List<float[]> reference = singleProcess(steps, world * BATCH, adam, 1);
        List<Result> results = distributed(world, steps, adam, 1, null);
        for (int r = 0; r < world; r++) {
            Result res = results.get(r);
            assertTrue(res.identical(), "rank " + r + " saw different parameters on another rank");
            assertTrue(res.buckets() > 1, "the gradients travel in several buckets, got " + res.buckets());
            assertSameParameters(reference, res.parameters(), 2e-5f, "rank " + r + " after " + steps + " steps");
            assertArrayEquals(flatten(results.get(0).parameters()), flatten(res.parameters()), 0f, "rank " + r + " bit for bit as rank 0");
        }
    }

    /**
     * Every parameter sent by its rows (the weights' rows of ReLU units that saw nothing, the biases'
     * zero elements left out), with accumulated steps in between: the same parameters as one
     * process on the global batch, as the dense all-reduce gives.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void parametersSentByRowsTrainAsOneProcessOnTheGlobalBatch(int world) {
        int steps = 60;
        List<float[]> reference = singleProcess(steps, world * BATCH, false, 2);
        List<Result> results = distributed(world, steps, false, 2, null, name -> true);
        for (int r = 0; r < world; r++) {
            assertTrue(results.get(r).identical(), "rank " + r + " saw different parameters on another rank");
            assertSameParameters(reference, results.get(r).parameters(), 2e-5f, "rank " + r + " after " + steps + " steps by rows");
        }
    }

    @Test
    void accumulatedStepsAverageTheSumAsOneProcessDoes() {
        int world = 2;
        int steps = 40;
        List<float[]> reference = singleProcess(steps, world * BATCH, false, 4);
        List<Result> results = distributed(world, steps, false, 4, null);
        for (int r = 0; r < world; r++) {
            assertSameParameters(reference, results.get(r).parameters(), 2e-5f, "rank " + r + " with no_sync every 4");
        }
        List<float[]> everyStep = singleProcess(steps, world * BATCH, false, 1);
        assertNotEquals(flatten(everyStep)[0], flatten(results.get(0).parameters())[0], "accumulation changed the result");
    }

    /**
     * One epoch of 37 samples over 2 ranks with batches of 8, as DDP with PyTorch's sampler: the
     * sampler pads to 38 (19 per rank), so each rank takes batches of 8, 8 and 3, and the short last
     * batches average like one process's global batch of 6.
     */
    @Test
    void aShortLastBatchAveragesAsOneProcessOnTheGlobalBatch() {
        int world = 2;
        long size = 37;
        long[][] shards = new long[world][];
        for (int r = 0; r < world; r++) {
            shards[r] = DistributedSampler.builder(size, world, r).seed(3).build().indices();
        }
        int[] sizes = {8, 8, 3};
        // the reference: one process on the concatenation of the ranks' batches, step by step
        List<float[]> reference;
        try (Model model = TinyTask.model();
             Trainer trainer = model.newTrainer(TinyTask.config(0, false));
             NDManager data = NDManager.newBaseManager()) {
            trainer.initialize(new Shape(16, TinyTask.FEATURES));
            int from = 0;
            for (int n : sizes) {
                try (NDManager m = data.newSubManager()) {
                    long[] global = new long[world * n];
                    for (int r = 0; r < world; r++) {
                        System.arraycopy(shards[r], from, global, r * n, n);
                    }
                    NDList[] b = TinyTask.batchOf(m, global);
                    try (GradientCollector c = trainer.newGradientCollector()) {
                        c.backward(trainer.getLoss().evaluate(b[1], trainer.forward(b[0], b[1])));
                    }
                    trainer.step();
                }
                from += n;
            }
            reference = TinyTask.parameters(model);
        }
        try (LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(60))) {
            List<List<float[]>> ranks = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> {
                int[] from = {0};
                return r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES))
                        .thenMany(Flux.fromArray(new Integer[] {8, 8, 3}).concatMap(n -> Mono.using(r.data::newSubManager, m -> {
                            long[] mine = java.util.Arrays.copyOfRange(shards[g.rank()], from[0], from[0] + n);
                            from[0] += n;
                            NDList[] b = TinyTask.batchOf(m, mine);
                            return r.trainer.step(b[0], b[1]);
                        }, NDManager::close)))
                        .then(Mono.fromCallable(() -> TinyTask.parameters(r.model)));
            }, Rank::close)).block(Duration.ofSeconds(120));
            for (List<float[]> params : ranks) {
                assertSameParameters(reference, params, 2e-5f, "after an epoch ending in a batch of 3 per rank");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"fp16", "bf16", "powersgd"})
    void compressingHooksKeepRanksIdenticalAndLearn(String kind) {
        Function<ProcessGroup, CommHook> hook = switch (kind) {
            case "fp16" -> Fp16CompressHook::new;
            case "bf16" -> Bf16CompressHook::new;
            default -> g -> new PowerSgdHook(PowerSgdState.of(g, 2, 10)); // plain all-reduce for 10 steps, then rank-2 factors
        };
        List<Result> results = distributed(2, 100, false, 1, hook);
        List<float[]> reference = singleProcess(100, 2 * BATCH, false, 1);
        for (Result r : results) {
            assertTrue(r.identical(), kind + ": ranks diverged");
            if (!kind.equals("powersgd")) {
                assertSameParameters(reference, r.parameters(), 0.05f, kind + " close to exact");
            }
        }
        assertArrayEquals(flatten(results.get(0).parameters()), flatten(results.get(1).parameters()), 0f);
        assertTrue(results.get(0).lastLoss() < 1.2f, kind + ": the loss fell, last " + results.get(0).lastLoss());
    }

    /** Rank 0 sends every parameter by rows, rank 1 none: the first step fails on both, as a mismatch. */
    @Test
    void ranksThatDisagreeOnWhatGoesByRowsFailTheirStepOnEveryRank() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<String> errors = cluster.run(g -> Mono.using(() -> new Rank(g, false, null, name -> g.rank() == 0),
                    r -> r.train(1, 1).then(Mono.just("no error")).onErrorResume(e -> Mono.just(e.toString())),
                    Rank::close)).block(Duration.ofSeconds(120));
            for (String e : errors) {
                assertTrue(e.contains("mismatch"), "every rank fails naming the mismatch, got " + e);
            }
        }
    }

    @Test
    void ranksWithDifferentModelsFailAtInitializeOnEveryRank() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<String> errors = cluster.run(g -> {
                Model model = g.rank() == 0 ? TinyTask.model() : wider();
                DistributedTrainer t = DistributedTrainer.builder(model, TinyTask.config(1, false), g).build();
                return t.initialize(new Shape(BATCH, TinyTask.FEATURES))
                        .then(Mono.just("no error"))
                        .onErrorResume(e -> Mono.just(e.toString()))
                        .doFinally(s -> {
                            t.close();
                            model.close();
                        });
            }).block(Duration.ofSeconds(120));
            for (String e : errors) {
                assertFalse(e.equals("no error"), "a rank with a different model must fail");
            }
        }
    }

    /**
     * Rank 0's forward pass fails (inputs of another width) before it sends anything: rank 0 fails with
     * the engine's error, and rank 1, already in the step's all-reduces, fails at once with an error
     * naming the collective and rank 0, not after the group's timeout (30 s here). Before, rank 1
     * waited out the timeout: the failed rank told no one.
     */
    @Test
    void aForwardPassFailingOnOneRankFailsItsPeersAtOnce() {
        io.reactivecollectives.transport.GroupOptions options = io.reactivecollectives.transport.GroupOptions.defaults()
                .toBuilder().timeout(Duration.ofSeconds(30)).build();
        try (LocalCluster cluster = LocalCluster.start(2, options).block(Duration.ofSeconds(60))) {
            long start = System.nanoTime();
            List<String> errors = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES))
                    .then(Mono.using(r.data::newSubManager, m -> {
                        NDList[] b = TinyTask.batch(m, (long) g.rank() * BATCH, BATCH);
                        NDList data = g.rank() == 0 ? new NDList(m.ones(new Shape(BATCH, TinyTask.FEATURES + 3))) : b[0];
                        return r.trainer.step(data, b[1]);
                    }, NDManager::close))
                    .map(x -> "no error").onErrorResume(e -> Mono.just(e.getClass().getSimpleName() + ": " + e.getMessage())),
                    Rank::close)).block(Duration.ofSeconds(60));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertTrue(errors.get(0).startsWith("EngineException"), "rank 0 fails with its own error, got " + errors.get(0));
            assertTrue(errors.get(1).contains("rank 0") && !errors.get(1).contains("timed out"),
                    "rank 1 fails naming rank 0, got " + errors.get(1));
            assertTrue(seconds < 10, "both failed within " + seconds + " s, not the group's 30 s timeout");
        }
    }

    /**
     * A frozen first layer (no gradient, as a pretrained layer is kept fixed) drawn by each rank's own
     * initializer: initialize gives every rank rank 0's frozen weights too, as DDP's construction
     * broadcasts every parameter and buffer, and the ranks then train identical. Before, only the
     * trainable parameters were broadcast and checked: the ranks kept their own frozen layers,
     * averaged gradients computed through different models, and parametersIdentical() said true.
     */
    @Test
    void frozenParametersAreBroadcastAndCheckedAtInitialize() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<List<float[]>> all = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> {
                ai.djl.nn.SequentialBlock net = (ai.djl.nn.SequentialBlock) r.model.getBlock();
                net.getChildren().get(0).getValue().freezeParameters(true);
                return r.train(2, 1).map(result -> {
                    assertTrue(result.identical(), "parametersIdentical on rank " + g.rank());
                    return TinyTask.parameters(r.model);
                });
            }, Rank::close)).block(Duration.ofSeconds(60));
            for (int i = 0; i < all.get(0).size(); i++) {
                assertArrayEquals(all.get(0).get(i), all.get(1).get(i), "parameter " + i + " (frozen: 0 and 1) of rank 1 is rank 0's");
            }
        }
    }

    /**
     * Rank 0 trains with SGD, rank 1 with Adam: both would apply the same averaged gradient, each its
     * own way, and the replicas drift apart. initialize fails on every rank naming rank 1. Before,
     * it passed and the steps trained different replicas with no error.
     */
    @Test
    void ranksWithDifferentOptimizersFailAtInitializeOnEveryRank() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<String> errors = cluster.run(g -> {
                Model model = TinyTask.model();
                DistributedTrainer t = DistributedTrainer.builder(model, TinyTask.config(1, g.rank() == 1), g).build();
                return t.initialize(new Shape(BATCH, TinyTask.FEATURES))
                        .then(Mono.just("no error"))
                        .onErrorResume(e -> Mono.just(e.getMessage()))
                        .doFinally(s -> {
                            t.close();
                            model.close();
                        });
            }).block(Duration.ofSeconds(60));
            for (String e : errors) {
                assertTrue(e.contains("rank(s) [1] differ from rank 0's") && e.contains("optimizer"),
                        "every rank fails naming rank 1 and the optimizer, got " + e);
            }
        }
    }

    /**
     * Rank 0 keeps its weight as (features, classes), rank 1 as (classes, features): as many
     * elements, so the broadcast and every bucket's all-reduce would fit, but the ranks disagree on
     * what each element is. Before, the digest counted only each parameter's elements, initialize
     * passed and the steps averaged mismatched gradients.
     */
    @Test
    void ranksWhoseParametersDifferOnlyInShapeFailAtInitializeOnEveryRank() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<String> errors = cluster.run(g -> {
                Model model = Model.newInstance("shaped");
                model.setBlock(new OneWeight(g.rank() == 0));
                DistributedTrainer t = DistributedTrainer.builder(model, TinyTask.config(1, false), g).build();
                return t.initialize(new Shape(BATCH, TinyTask.FEATURES))
                        .then(Mono.just("no error"))
                        .onErrorResume(e -> Mono.just(e.getMessage()))
                        .doFinally(s -> {
                            t.close();
                            model.close();
                        });
            }).block(Duration.ofSeconds(60));
            for (String e : errors) {
                assertTrue(e.contains("rank(s) [1] differ from rank 0's"), "every rank fails naming rank 1, got " + e);
            }
        }
    }

    /** x times one weight, kept as (features, classes) or, transposed, as (classes, features). */
    private static final class OneWeight extends ai.djl.nn.AbstractBlock {
        private final boolean featuresFirst;
        private final ai.djl.nn.Parameter weight;

        OneWeight(boolean featuresFirst) {
            this.featuresFirst = featuresFirst;
            this.weight = addParameter(ai.djl.nn.Parameter.builder().setName("weight").setType(ai.djl.nn.Parameter.Type.WEIGHT)
                    .optShape(featuresFirst ? new Shape(TinyTask.FEATURES, TinyTask.CLASSES) : new Shape(TinyTask.CLASSES, TinyTask.FEATURES))
                    .build());
        }

        @Override
        protected NDList forwardInternal(ai.djl.training.ParameterStore store, NDList inputs, boolean training,
                                         ai.djl.util.PairList<String, Object> params) {
            ai.djl.ndarray.NDArray w = store.getValue(weight, inputs.head().getDevice(), training);
            return new NDList(inputs.head().matMul(featuresFirst ? w : w.transpose()));
        }

        @Override
        public Shape[] getOutputShapes(Shape[] inputs) {
            return new Shape[] {new Shape(inputs[0].get(0), TinyTask.CLASSES)};
        }
    }

    @Test
    void afterAFailedInitializeNoStepTrainsUntilAnInitializeSucceeds() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<String> outcomes = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> {
                // rank 0 gives up on the broadcast before rank 1 arrives: the initialize fails on both ranks
                Mono<Void> first = g.rank() == 0 ? r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES)).timeout(Duration.ofMillis(500))
                        : Mono.delay(Duration.ofSeconds(2)).then(r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES)));
                return first.then(Mono.just("initialized")).onErrorResume(e -> Mono.just("failed"))
                        .flatMap(init -> Mono.using(r.data::newSubManager, m -> {
                            NDList[] b = TinyTask.batch(m, (long) g.rank() * BATCH, BATCH);
                            return r.trainer.step(b[0], b[1]).map(x -> "stepped").onErrorResume(IllegalStateException.class,
                                    e -> Mono.just(e.getMessage().contains("not found identical yet") ? "refused" : e.getMessage()));
                        }, NDManager::close).map(step -> init + ", " + step))
                        // initialize again: it completes (from the broadcast), and the ranks train identical
                        .flatMap(before -> r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES))
                                .then(Mono.using(r.data::newSubManager, m -> {
                                    NDList[] b = TinyTask.batch(m, (long) g.rank() * BATCH, BATCH);
                                    return r.trainer.step(b[0], b[1]);
                                }, NDManager::close))
                                .then(r.trainer.parametersIdentical())
                                .map(same -> before + ", again: identical " + same));
            }, Rank::close)).block(Duration.ofSeconds(120));
            for (String o : outcomes) {
                assertEquals("failed, refused, again: identical true", o);
            }
        }
    }

    @Test
    void aStepRefusedOnOneRankBeforeAnythingRanLeavesNothingForTheOthersToMatch() {
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<Boolean> same = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> {
                // rank 0 steps before initializing: refused there alone, with nothing to undo collectively
                Mono<Void> early = g.rank() != 0 ? Mono.empty() : Mono.using(r.data::newSubManager, m -> {
                    NDList[] b = TinyTask.batch(m, 0, BATCH);
                    return r.trainer.step(b[0], b[1]).then().onErrorResume(IllegalStateException.class, e -> Mono.empty());
                }, NDManager::close);
                return early.then(r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES)))
                        .then(Mono.using(r.data::newSubManager, m -> {
                            NDList[] b = TinyTask.batch(m, (long) g.rank() * BATCH, BATCH);
                            return r.trainer.step(b[0], b[1]);
                        }, NDManager::close))
                        .then(r.trainer.parametersIdentical());
            }, Rank::close)).block(Duration.ofSeconds(60));
            assertEquals(List.of(true, true), same);
        }
    }

    @Test
    void aFailedStepDiscardsItsGradientsAndTheNextStepAveragesOnlyItsOwn() {
        int world = 2;
        List<float[]> reference = singleProcess(1, world * BATCH, false, 1);
        List<float[]> after;
        try (LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(60))) {
            after = cluster.run(g -> Mono.using(() -> new Rank(g, false, null), r -> r.trainer.initialize(new Shape(BATCH, TinyTask.FEATURES))
                    // gradients left by accumulate, then a step that fails on every rank before it sends anything
                    .then(Mono.using(r.data::newSubManager, m -> {
                        NDList[] other = TinyTask.batch(m, 1000L + (long) g.rank() * BATCH, BATCH);
                        return r.trainer.accumulate(other[0], other[1]);
                    }, NDManager::close))
                    .then(Mono.using(r.data::newSubManager, m -> {
                        NDList wrong = new NDList(m.ones(new Shape(BATCH, TinyTask.FEATURES + 3)));
                        return r.trainer.step(wrong, TinyTask.batch(m, 0, BATCH)[1]).then(Mono.just(false)).onErrorReturn(true);
                    }, NDManager::close))
                    .doOnNext(failed -> assertTrue(failed, "a step on inputs of another shape fails"))
                    .then(Mono.using(r.data::newSubManager, m -> {
                        NDList[] b = TinyTask.batch(m, (long) g.rank() * BATCH, BATCH);
                        return r.trainer.step(b[0], b[1]);
                    }, NDManager::close))
                    .map(x -> TinyTask.parameters(r.model)), Rank::close)).block(Duration.ofSeconds(120)).get(0);
        }
        assertSameParameters(reference, after, 2e-5f, "one step on the global batch, nothing of the failed step's");
    }

    private static Model wider() {
        Model m = Model.newInstance("wider");
        m.setBlock(new ai.djl.nn.SequentialBlock().add(ai.djl.nn.core.Linear.builder().setUnits(64).build())
                .add(ai.djl.nn.core.Linear.builder().setUnits(TinyTask.CLASSES).build()));
        return m;
    }

    private static float[] flatten(List<float[]> ps) {
        int n = ps.stream().mapToInt(a -> a.length).sum();
        float[] out = new float[n];
        int o = 0;
        for (float[] a : ps) {
            System.arraycopy(a, 0, out, o, a.length);
            o += a.length;
        }
        return out;
    }
}
