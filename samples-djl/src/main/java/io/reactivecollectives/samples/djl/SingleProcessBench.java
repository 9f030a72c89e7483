package io.reactivecollectives.samples.djl;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.Arrays;
import java.util.Locale;

/**
 * Trains the {@link TransformerEncoder} on one process and prints its step time: the baseline
 * of the DJL data-parallel runs and the counterpart of {@code torch_ddp_train.py --world 1}.
 *
 * <pre>
 * java -Dai.djl.offline=true -cp ... io.reactivecollectives.samples.djl.SingleProcessBench \
 *     [preset=base] [batch=16] [steps=30] [warmup=5] [lr=0.01] [seed=42]
 * </pre>
 *
 * <p>Arguments are {@code key=value}. libtorch is pinned to one intra-op and one inter-op
 * thread and never downloaded (the system properties are set here unless given).
 * The engine's random seed (the initial weights) is {@code seed}. A step is
 * forward, loss, backward ({@link GradientCollector}) and {@link Trainer#step()} with plain SGD;
 * the batch is made before the clock starts. It prints the libtorch version, the parameter
 * count, each step's loss every few steps, then ms/step (median, min, max over the steps after
 * warm-up) and samples/s (batch over the median).
 */
public final class SingleProcessBench {

    private SingleProcessBench() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code key=value} options: preset, batch, steps, warmup, lr, seed
     * @throws Exception if the engine cannot load or training fails
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("ai.djl.offline", System.getProperty("ai.djl.offline", "true"));
        System.setProperty("ai.djl.pytorch.num_threads", System.getProperty("ai.djl.pytorch.num_threads", "1"));
        System.setProperty("ai.djl.pytorch.num_interop_threads",
                System.getProperty("ai.djl.pytorch.num_interop_threads", "1"));
        String preset = "base";
        int batch = 16;
        int steps = 30;
        int warmup = 5;
        float lr = 0.01f;
        long seed = 42;
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            switch (kv[0]) {
                case "preset" -> preset = kv[1];
                case "batch" -> batch = Integer.parseInt(kv[1]);
                case "steps" -> steps = Integer.parseInt(kv[1]);
                case "warmup" -> warmup = Integer.parseInt(kv[1]);
                case "lr" -> lr = Float.parseFloat(kv[1]);
                case "seed" -> seed = Long.parseLong(kv[1]);
                default -> throw new IllegalArgumentException("unknown option " + kv[0]);
            }
        }
        if (warmup >= steps) {
            throw new IllegalArgumentException("warmup must be below steps");
        }
        EncoderConfig config = EncoderConfig.preset(preset);
        Engine engine = Engine.getEngine("PyTorch");
        engine.setRandomSeed((int) seed);
        System.out.printf(Locale.ROOT, "# DJL %s, libtorch %s, threads intra=%s interop=%s%n",
                Engine.getDjlVersion(), engine.getVersion(),
                System.getProperty("ai.djl.pytorch.num_threads"),
                System.getProperty("ai.djl.pytorch.num_interop_threads"));
        double[] millis = train(config, batch, steps, lr, seed);
        double[] timed = Arrays.copyOfRange(millis, warmup, steps);
        Arrays.sort(timed);
        double median = timed.length % 2 == 1 ? timed[timed.length / 2]
                : (timed[timed.length / 2 - 1] + timed[timed.length / 2]) / 2;
        System.out.printf(Locale.ROOT,
                "preset=%s batch=%d seq=%d steps=%d warmup=%d ms/step median=%.1f min=%.1f max=%.1f samples/s=%.1f%n",
                preset, batch, config.seq(), steps, warmup, median, timed[0], timed[timed.length - 1],
                batch * 1000.0 / median);
    }

    private static double[] train(EncoderConfig config, int batch, int steps, float lr, long seed) throws Exception {
        TransformerEncoder net = new TransformerEncoder(config);
        SyntheticTokens data = SyntheticTokens.forConfig(seed, config);
        double[] millis = new double[steps];
        try (Model model = Model.newInstance("encoder", "PyTorch")) {
            model.setBlock(net);
            DefaultTrainingConfig trainingConfig = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build());
            try (Trainer trainer = model.newTrainer(trainingConfig)) {
                trainer.initialize(net.inputShape(batch));
                System.out.printf(Locale.ROOT, "params=%d (formula %d)%n",
                        TransformerEncoder.countParameters(net), config.parameterCount());
                for (int s = 0; s < steps; s++) {
                    try (NDManager stepManager = trainer.getManager().newSubManager();
                         SyntheticTokens.Samples samples = data.batch(SyntheticTokens.range((long) s * batch, batch),
                                 stepManager)) {
                        long t0 = System.nanoTime();
                        float loss;
                        try (GradientCollector collector = trainer.newGradientCollector()) {
                            NDArray logits = trainer.forward(samples.data()).singletonOrThrow();
                            NDArray lossValue = trainer.getLoss().evaluate(samples.labels(), new NDList(logits));
                            collector.backward(lossValue);
                            loss = lossValue.getFloat();
                        }
                        trainer.step();
                        millis[s] = (System.nanoTime() - t0) / 1e6;
                        if (s % 5 == 0 || s == steps - 1) {
                            System.out.printf(Locale.ROOT, "step %d loss %.4f %.1f ms%n", s, loss, millis[s]);
                        }
                    }
                }
            }
        }
        return millis;
    }
}
