package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.ParameterList;
import ai.djl.nn.SequentialBlock;
import ai.djl.training.ParameterStore;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backward pass by stages ({@link StagedBlock}): a {@code SequentialBlock} is staged by its
 * children, and the staged pass gives the gradients one pass gives (so the parameters after many
 * steps match the unstaged trainer's and one process's); a staging that leaves a parameter out is
 * refused before anything is sent.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StagedBackwardTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int BATCH = 8;

    /** 2 ranks, 40 SGD steps; each rank's parameters at the end (small buckets: 1 KiB, the first 256 B). */
    private static List<List<float[]>> train(boolean staged, java.util.function.Supplier<Block> block) {
        return train(staged, block, 1024, 256, null);
    }

    /** 2 ranks, 40 SGD steps with these bucket caps; each rank's parameters at the end, rank 0's bucket count into {@code buckets}. */
    private static List<List<float[]>> train(boolean staged, java.util.function.Supplier<Block> block, long cap, long first,
                                             int[] buckets) {
        try (LocalCluster cluster = LocalCluster.start(2).block(WAIT)) {
            return cluster.run(g -> Mono.using(() -> {
                if (block == null) {
                    return TinyTask.model();
                }
                Model model = Model.newInstance("staged");
                model.setBlock(block.get());
                return model;
            }, model -> Mono.using(
                    () -> DistributedTrainer.builder(model, TinyTask.config(g.rank() == 0 ? 0 : 7, false), g)
                            .bucketCapBytes(cap).firstBucketBytes(first).stagedBackward(staged).build(),
                    t -> t.initialize(new Shape(BATCH, TinyTask.FEATURES))
                            .thenMany(Flux.range(0, 40).concatMap(s -> Mono.using(NDManager::newBaseManager, m -> {
                                NDList[] b = TinyTask.batch(m, s * 2L * BATCH + (long) g.rank() * BATCH, BATCH);
                                return t.step(b[0], b[1]);
                            }, NDManager::close)))
                            .then(t.parametersIdentical())
                            .map(same -> {
                                assertTrue(same, "ranks identical");
                                if (buckets != null && g.rank() == 0) {
                                    buckets[0] = t.bucketCount();
                                }
                                return TinyTask.parameters(model);
                            }),
                    DistributedTrainer::close), Model::close)).block(WAIT);
        }
    }

    @Test
    void theStagedPassGivesTheParametersOnePassGives() {
        assertTrue(StagedBlock.of(TinyTask.sequential()) != null, "a SequentialBlock is staged by its children");
        List<List<float[]>> staged = train(true, null);
        List<List<float[]>> onePass = train(false, null);
        for (int i = 0; i < staged.get(0).size(); i++) {
            assertArrayEquals(onePass.get(0).get(i), staged.get(0).get(i), 1e-6f, "parameter " + i);
        }
    }

    /**
     * A SequentialBlock with one Linear layer added twice (its weights tied across two children)
     * trains with the default (staged) trainer, in one backward pass, as with stagedBackward(false).
     * Before, initialize failed by default: "parameter weight is in two stages of the model's
     * StagedBlock", although the model is DJL's own and trains in one pass.
     */
    @Test
    void aSequentialBlockWhoseChildrenShareALayerTrainsInOnePass() {
        java.util.function.Supplier<Block> tied = () -> {
            ai.djl.nn.core.Linear shared = ai.djl.nn.core.Linear.builder().setUnits(TinyTask.FEATURES).build();
            return new SequentialBlock().add(shared).add(ai.djl.nn.Activation::relu).add(shared)
                    .add(ai.djl.nn.core.Linear.builder().setUnits(TinyTask.CLASSES).build());
        };
        assertEquals(null, StagedBlock.of(tied.get()), "no stages: one backward pass");
        List<List<float[]>> byDefault = train(true, tied);
        List<List<float[]>> onePass = train(false, tied);
        for (int i = 0; i < onePass.get(0).size(); i++) {
            assertArrayEquals(onePass.get(0).get(i), byDefault.get(0).get(i), "parameter " + i);
        }
    }

    /**
     * A frozen first layer (no trainable parameter in the first stage, its output without a graph):
     * the staged pass trains as one pass does. Before, every staged step failed in libtorch
     * ("element 0 of tensors does not require grad and does not have a grad_fn"): the pass ran the
     * backward pass of the first stage's surrogate, which has nothing to differentiate.
     */
    @Test
    void aFrozenFirstStageTrainsAsOnePassDoes() {
        java.util.function.Supplier<Block> frozenFirst = () -> {
            SequentialBlock net = TinyTask.sequential();
            net.getChildren().get(0).getValue().freezeParameters(true);
            return net;
        };
        List<List<float[]>> staged = train(true, frozenFirst);
        List<List<float[]>> onePass = train(false, frozenFirst);
        for (int i = 0; i < staged.get(0).size(); i++) {
            assertArrayEquals(onePass.get(0).get(i), staged.get(0).get(i), 1e-6f, "parameter " + i);
        }
    }

    /**
     * DDP's 25 MiB cap with a first bucket of 256 B: by size alone the tiny model's last layer (272 B)
     * fills the first bucket and its two other layers (3.2 KB) share a second, which leaves once the
     * first layer is differentiated; staged, that bucket ends where the middle layer's stage ends, so
     * its gradients leave before the first layer's are made. The parameters are the same either way.
     */
    @Test
    void aBucketEndsWhereAStageEnds() {
        long cap = 25L << 20;
        long first = 256;
        int[] stagedBuckets = new int[1];
        int[] onePassBuckets = new int[1];
        List<List<float[]>> staged = train(true, null, cap, first, stagedBuckets);
        List<List<float[]>> onePass = train(false, null, cap, first, onePassBuckets);
        assertEquals(2, onePassBuckets[0], "by size alone: the last layer, then the two others together");
        assertEquals(3, stagedBuckets[0], "staged: one bucket per Linear layer");
        for (int i = 0; i < staged.get(0).size(); i++) {
            assertArrayEquals(onePass.get(0).get(i), staged.get(0).get(i), 1e-6f, "parameter " + i);
        }
    }

    @Test
    void aStagingThatLeavesAParameterOutIsRefusedAtInitialize() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> train(true, () -> new Partial(TinyTask.sequential())));
        assertTrue(e.getMessage().contains("is in no stage of the model's StagedBlock"), e.getMessage());
    }

    /** The tiny model whose last stage claims no parameters. */
    private static final class Partial extends ai.djl.nn.AbstractBlock implements StagedBlock {
        private final SequentialBlock inner;

        Partial(SequentialBlock inner) {
            this.inner = addChildBlock("inner", inner);
        }

        @Override
        public int stageCount() {
            return inner.getChildren().size();
        }

        @Override
        public NDList forwardStage(int stage, ParameterStore store, NDList inputs, boolean training) {
            return inner.getChildren().get(stage).getValue().forward(store, inputs, training);
        }

        @Override
        public ParameterList stageParameters(int stage) {
            return stage == stageCount() - 1 ? new ParameterList() : inner.getChildren().get(stage).getValue().getParameters();
        }

        @Override
        protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
                                         ai.djl.util.PairList<String, Object> params) {
            return inner.forward(store, inputs, training, params);
        }

        @Override
        protected void initializeChildBlocks(NDManager manager, ai.djl.ndarray.types.DataType dataType, Shape... shapes) {
            inner.initialize(manager, dataType, shapes);
        }

        @Override
        public Shape[] getOutputShapes(Shape[] inputs) {
            return inner.getOutputShapes(inputs);
        }
    }

    @Test
    void theStageCountOfASequentialBlockIsItsChildren() {
        SequentialBlock block = TinyTask.sequential();
        assertEquals(block.getChildren().size(), StagedBlock.of(block).stageCount());
    }
}
