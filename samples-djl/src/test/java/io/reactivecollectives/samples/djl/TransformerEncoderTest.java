package io.reactivecollectives.samples.djl;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransformerEncoderTest {

    @Test
    void presetsHaveTheirParameterCounts() {
        assertEquals(13_690_378L, EncoderConfig.BASE.parameterCount());
        assertTrue(EncoderConfig.BASE.parameterCount() >= 10_000_000L);
        assertEquals(5_828L, EncoderConfig.TINY.parameterCount());
        assertTrue(EncoderConfig.TINY.parameterCount() < 100_000L);
        for (EncoderConfig config : new EncoderConfig[] {EncoderConfig.TINY, EncoderConfig.BASE}) {
            TransformerEncoder net = new TransformerEncoder(config);
            try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
                net.initialize(manager, DataType.FLOAT32, net.inputShape(1));
                assertEquals(config.parameterCount(), TransformerEncoder.countParameters(net), config.toString());
            }
        }
    }

    @Test
    void layerNormsNormaliseTheModelAxisOnly() {
        EncoderConfig config = EncoderConfig.TINY;
        TransformerEncoder net = new TransformerEncoder(config);
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            net.initialize(manager, DataType.FLOAT32, net.inputShape(2));
            int norms = 0;
            for (Pair<String, Parameter> p : net.getParameters()) {
                if (p.getKey().contains("Norm")) {
                    assertEquals(new Shape(config.dModel()), p.getValue().getShape(), p.getKey());
                    norms++;
                }
            }
            assertEquals(2 * (2 * config.layers() + 1), norms);
        }
    }

    /**
     * One row of finite logits per sample; the stages (the embedding, each layer, the head) hold
     * every parameter exactly once, and chained they give the forward pass.
     */
    @Test
    void forwardGivesOneRowOfLogitsPerSampleAndTheStagesChainToIt() {
        EncoderConfig config = EncoderConfig.TINY;
        TransformerEncoder net = new TransformerEncoder(config);
        SyntheticTokens data = SyntheticTokens.forConfig(7, config);
        try (Model model = Model.newInstance("tiny", "PyTorch");
             Trainer trainer = trainer(model, net, 0.1f, 3)) {
            try (SyntheticTokens.Samples samples = data.batch(SyntheticTokens.range(0, 3), trainer.getManager())) {
                NDArray logits = trainer.evaluate(samples.data()).singletonOrThrow();
                assertEquals(new Shape(3, config.classes()), logits.getShape());
                assertEquals(DataType.FLOAT32, logits.getDataType());
                assertTrue(logits.isInfinite().logicalOr(logits.isNaN()).none().getBoolean());
                ai.djl.training.ParameterStore store = new ai.djl.training.ParameterStore(trainer.getManager(), false);
                NDList x = samples.data();
                for (int s = 0; s < net.stageCount(); s++) {
                    x = net.forwardStage(s, store, x, false);
                }
                assertArrayEquals(logits.toFloatArray(), x.singletonOrThrow().toFloatArray(), 1e-6f);
            }
            assertEquals(config.layers() + 2, net.stageCount());
            List<String> staged = new ArrayList<>();
            for (int s = 0; s < net.stageCount(); s++) {
                assertTrue(!net.stageParameters(s).isEmpty(), "stage " + s + " has parameters");
                net.stageParameters(s).forEach(p -> staged.add(p.getValue().getId()));
            }
            List<String> all = new ArrayList<>();
            net.getParameters().forEach(p -> all.add(p.getValue().getId()));
            assertEquals(all.size(), staged.size(), "no parameter in two stages");
            assertEquals(new java.util.HashSet<>(all), new java.util.HashSet<>(staged), "every parameter in a stage");
        }
    }

    @Test
    void lossFallsOverFiftySgdSteps() {
        EncoderConfig config = EncoderConfig.TINY;
        TransformerEncoder net = new TransformerEncoder(config);
        SyntheticTokens data = SyntheticTokens.forConfig(11, config);
        int batch = 32;
        int steps = 50;
        float[] losses = new float[steps];
        Engine.getEngine("PyTorch").setRandomSeed(3);
        try (Model model = Model.newInstance("tiny", "PyTorch");
             Trainer trainer = trainer(model, net, 0.1f, batch)) {
            for (int s = 0; s < steps; s++) {
                try (NDManager stepManager = trainer.getManager().newSubManager();
                     SyntheticTokens.Samples samples = data.batch(SyntheticTokens.range((long) s * batch, batch),
                             stepManager)) {
                    try (GradientCollector collector = trainer.newGradientCollector()) {
                        NDArray logits = trainer.forward(samples.data()).singletonOrThrow();
                        NDArray loss = trainer.getLoss().evaluate(samples.labels(), new NDList(logits));
                        collector.backward(loss);
                        losses[s] = loss.getFloat();
                        assertTrue(Float.isFinite(losses[s]), "loss at step " + s + ": " + losses[s]);
                    }
                    trainer.step();
                }
            }
        }
        double first = mean(losses, 0, 5);
        double last = mean(losses, steps - 5, steps);
        assertTrue(last < 0.7 * first, "loss from " + first + " to " + last);
    }

    @Test
    void gradientsSurviveGarbageCollectionBetweenForwardAndBackward() {
        // a scalar that autograd saved but Java closed (div(Number)) reads freed memory in backward
        EncoderConfig config = EncoderConfig.TINY;
        TransformerEncoder net = new TransformerEncoder(config);
        SyntheticTokens data = SyntheticTokens.forConfig(5, config);
        try (Model model = Model.newInstance("tiny", "PyTorch");
             Trainer trainer = trainer(model, net, 0.1f, 8);
             NDManager batchManager = trainer.getManager().newSubManager();
             SyntheticTokens.Samples samples = data.batch(SyntheticTokens.range(0, 8), batchManager)) {
            List<float[]> quiet = gradients(trainer, net, samples, false);
            List<float[]> churned = gradients(trainer, net, samples, true);
            for (int i = 0; i < quiet.size(); i++) {
                assertArrayEquals(quiet.get(i), churned.get(i), "gradient of parameter " + i);
            }
        }
    }

    private static List<float[]> gradients(Trainer trainer, TransformerEncoder net, SyntheticTokens.Samples samples,
                                           boolean churn) {
        try (GradientCollector collector = trainer.newGradientCollector()) {
            NDArray logits = trainer.forward(samples.data()).singletonOrThrow();
            NDArray loss = trainer.getLoss().evaluate(samples.labels(), new NDList(logits));
            if (churn) {
                System.gc();
                try (NDManager junk = NDManager.newBaseManager("PyTorch")) {
                    for (int j = 0; j < 50; j++) {
                        junk.create(1e30f * (j + 1));
                    }
                }
            }
            collector.backward(loss);
        }
        List<float[]> grads = new ArrayList<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            try (NDArray gradient = p.getValue().getArray().getGradient()) {
                float[] g = gradient.toFloatArray();
                for (float v : g) {
                    assertTrue(Float.isFinite(v), p.getKey() + " has a non-finite gradient");
                }
                grads.add(g);
                gradient.subi(gradient); // gradients accumulate across collectors: start the next at zero
            }
        }
        return grads;
    }

    private static Trainer trainer(Model model, TransformerEncoder net, float lr, int batch) {
        model.setBlock(net);
        DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build());
        Trainer trainer = model.newTrainer(config);
        trainer.initialize(net.inputShape(batch));
        return trainer;
    }

    private static double mean(float[] values, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += values[i];
        }
        return sum / (to - from);
    }
}
