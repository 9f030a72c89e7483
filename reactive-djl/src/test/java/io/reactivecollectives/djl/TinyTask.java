package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.initializer.Initializer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A small classification task for the trainer's tests: an MLP [8 -> 32 -> 16 -> 4], samples that
 * depend only on (seed, global index), and a deterministic initializer, so that a rank's shard and
 * one process on the whole global batch see the same numbers.
 */
final class TinyTask {

    static final int FEATURES = 8;
    static final int CLASSES = 4;
    static final long SEED = 20261129L;

    private TinyTask() {
    }

    /** The model (its weights come from {@link #config}'s initializer). */
    static Model model() {
        Model model = Model.newInstance("tiny");
        model.setBlock(sequential());
        return model;
    }

    /** The network: 8 features, 32 and 16 hidden units with ReLU, 4 classes. */
    static SequentialBlock sequential() {
        return new SequentialBlock()
                .add(Linear.builder().setUnits(32).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(16).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(CLASSES).build());
    }

    /**
     * SGD (or Adam) with a fixed rate, softmax cross-entropy, weights from a generator seeded with
     * {@code initSeed} (ranks other than 0 use another seed in the tests: the broadcast must fix it).
     */
    static DefaultTrainingConfig config(long initSeed, boolean adam) {
        Optimizer opt = adam ? Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.01f)).build()
                : Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build();
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(opt)
                .optInitializer(new Seeded(initSeed), p -> true);
    }

    /** Samples {@code from .. from+count-1} of the global stream: features and labels. */
    static NDList[] batch(NDManager m, long from, int count) {
        long[] idx = new long[count];
        for (int i = 0; i < count; i++) {
            idx[i] = from + i;
        }
        return batchOf(m, idx);
    }

    /** The samples of these global indices: features and labels. */
    static NDList[] batchOf(NDManager m, long[] indices) {
        int count = indices.length;
        float[] x = new float[count * FEATURES];
        float[] y = new float[count];
        for (int i = 0; i < count; i++) {
            SplittableRandom r = new SplittableRandom(SEED * 1_000_003L + indices[i]);
            int best = 0;
            float bestScore = -Float.MAX_VALUE;
            for (int f = 0; f < FEATURES; f++) {
                x[i * FEATURES + f] = (float) r.nextGaussian();
            }
            for (int c = 0; c < CLASSES; c++) {
                float score = x[i * FEATURES + c] - 0.5f * x[i * FEATURES + c + 4];
                if (score > bestScore) {
                    bestScore = score;
                    best = c;
                }
            }
            y[i] = best;
        }
        return new NDList[] {new NDList(m.create(x, new Shape(count, FEATURES))), new NDList(m.create(y, new Shape(count)))};
    }

    /** Every parameter's values, in registration order. */
    static List<float[]> parameters(Model model) {
        List<float[]> out = new ArrayList<>();
        model.getBlock().getParameters().forEach(p -> out.add(p.getValue().getArray().toFloatArray()));
        return out;
    }

    /** Weights from a generator of its own, in the order they are asked for (the same on every process). */
    static final class Seeded implements Initializer {
        private final SplittableRandom random;

        Seeded(long seed) {
            this.random = new SplittableRandom(seed);
        }

        @Override
        public NDArray initialize(NDManager manager, Shape shape, DataType dataType) {
            float[] v = new float[(int) shape.size()];
            double scale = shape.dimension() > 1 ? Math.sqrt(2.0 / shape.get(shape.dimension() - 1)) : 0.1;
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (random.nextGaussian() * scale);
            }
            return manager.create(v, shape).toType(dataType, false);
        }
    }
}
