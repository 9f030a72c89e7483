package io.reactivecollectives.spark.sample;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.reactivecollectives.djl.DistributedTrainer;
import io.reactivecollectives.samples.djl.EncoderConfig;
import io.reactivecollectives.samples.djl.SyntheticTokens;
import io.reactivecollectives.samples.djl.TransformerEncoder;
import io.reactivecollectives.spark.BarrierProcessGroups;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining.RankResult;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.ProcessGroups;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.ArraySeq;

import java.io.PrintStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The DJL main job's model inside a Spark barrier stage: samples-djl's {@link TransformerEncoder}
 * trained by reactive-djl's {@link DistributedTrainer} (PyTorch DDP for a DJL model) on
 * {@link SyntheticTokens}. A DataFrame of token rows ({@code tokens: array<bigint>, label: int}) has
 * one partition per rank; each barrier task turns its partition into its shard, joins the stage's
 * {@link BarrierProcessGroups} group, trains on batches from its shard (wrapping around) and sends
 * the driver its losses, ms/step, whether every rank ended with identical parameters, its shard size
 * and its executor's pid. The driver prints them as {@link SparkDataParallelTraining} does.
 *
 * <p>Threads: each task loads DJL's PyTorch engine (libtorch) on its own thread before it joins the
 * group, so that no network thread ever does; DJL runs offline on one intra-op and one inter-op
 * thread per rank ({@link SparkContexts#DJL_PROPERTIES}, set in the task where the JVM's options did
 * not set them, and given to local-cluster executors as JVM options).
 *
 * <p>Run it with {@code bin/collectives-spark-train --engine djl [--preset tiny|base]
 * [--master local-cluster[2,1,1024]|local[N]] [--ranks N] [--steps N] [--batch N] [--shard-rows N]
 * [--lr X] [--seed N] [--dashboard [HOST:]PORT]}.
 */
public final class SparkDjlTraining {

    /**
     * What the driver passes to every task.
     *
     * @param preset the model's preset, {@code tiny} or {@code base} ({@link EncoderConfig#preset})
     * @param lr     the SGD learning rate
     * @param seed   the synthetic data's seed and the initial parameters'
     * @param run    steps, batch, shard rows, warm-up steps and dashboard
     */
    public record Settings(String preset, float lr, long seed, SparkDataParallelTraining.Settings run) implements Serializable {

        /** Checks the preset's name. */
        public Settings {
            EncoderConfig.preset(preset);
        }

        /** {@return the model's dimensions} */
        public EncoderConfig model() {
            return EncoderConfig.preset(preset);
        }
    }

    private SparkDjlTraining() {
    }

    /**
     * Runs the sample: the options of {@link SparkDataParallelTraining#options} ({@code --master},
     * {@code --ranks}, {@code --dashboard}) and {@code --preset} (default tiny), {@code --steps}
     * (default 60), {@code --batch} (default 32), {@code --shard-rows} (default 1024), {@code --lr}
     * (default 0.1), {@code --seed} (default 7).
     *
     * @param args the options
     */
    public static void main(String[] args) {
        SparkContexts.djlDefaults(); // in this JVM (local[N]: its ranks); SparkContexts gives local-cluster executors the same
        Map<String, String> o = SparkDataParallelTraining.commandLine(args, Map.of("--preset", "tiny", "--steps", "60",
                "--batch", "32", "--shard-rows", "1024", "--lr", "0.1", "--seed", "7"), "collectives-spark-train --engine djl");
        try {
            EncoderConfig.preset(o.get("--preset"));
        } catch (IllegalArgumentException e) {   // before Spark starts: one line, as for the other options
            System.err.println("collectives-spark-train --engine djl: --preset: " + e.getMessage());
            System.exit(2);
        }
        int steps = Integer.parseInt(o.get("--steps"));
        Settings settings = new Settings(o.get("--preset"), Float.parseFloat(o.get("--lr")), Long.parseLong(o.get("--seed")),
                new SparkDataParallelTraining.Settings(steps, Integer.parseInt(o.get("--batch")),
                        Integer.parseInt(o.get("--shard-rows")), Math.min(10, steps / 5), o.get("--dashboard")));
        SparkDataParallelTraining.run(o, "collectives-spark-train --engine djl", (spark, master) ->
                report(System.out, master, train(spark, Integer.parseInt(o.get("--ranks")), settings), settings));
    }

    /**
     * Trains in one barrier stage of {@code ranks} tasks.
     *
     * @param spark    the session
     * @param ranks    tasks, ranks and DataFrame partitions
     * @param settings the model, the data and the run
     * @return every rank's result, by rank
     */
    public static List<RankResult> train(SparkSession spark, int ranks, Settings settings) {
        return SparkDataParallelTraining.trainInBarrierStage(spark, ranks, tokens(spark, settings, ranks),
                rows -> trainShard(rows, settings));
    }

    /**
     * The synthetic token rows as a DataFrame ({@code tokens: array<bigint>, label: int}), one
     * partition of {@code shardRows} rows per rank; row {@code i} is {@link SyntheticTokens}' sample
     * {@code i}.
     *
     * @param spark    the session
     * @param settings the model (vocabulary, sequence length, classes), seed and shard size
     * @param ranks    partitions
     * @return the DataFrame
     */
    public static Dataset<Row> tokens(SparkSession spark, Settings settings, int ranks) {
        EncoderConfig cfg = settings.model();
        int vocab = cfg.vocab();
        int seq = cfg.seq();
        int classes = cfg.classes();
        long seed = settings.seed();
        StructType schema = new StructType()
                .add("tokens", DataTypes.createArrayType(DataTypes.LongType, false), false)
                .add("label", DataTypes.IntegerType, false);
        return spark.range(0, (long) ranks * settings.run().shardRows(), 1, ranks).map((MapFunction<Long, Row>) id -> {
            long[] tokens = new long[seq];
            int label = new SyntheticTokens(seed, vocab, seq, classes).sample(id, tokens, 0);
            // an array column's external type is a Scala Seq (a wrapped long[]: no copy, no boxing)
            return RowFactory.create(ArraySeq.unsafeWrapArray(tokens), label);
        }, Encoders.row(schema));
    }

    /** One barrier task: its partition is its shard; it trains the encoder as one rank of the stage's group. */
    static RankResult trainShard(Iterator<Row> rows, Settings settings) {
        EncoderConfig cfg = settings.model();
        int seq = cfg.seq();
        List<long[]> tokenRows = new ArrayList<>();
        List<Integer> labelRows = new ArrayList<>();
        rows.forEachRemaining(row -> {
            List<Long> t = row.getList(0);
            long[] tokens = new long[seq];
            for (int i = 0; i < seq; i++) {
                tokens[i] = t.get(i);
            }
            tokenRows.add(tokens);
            labelRows.add(row.getInt(1));
        });
        // libtorch loads here, on Spark's task thread, before the group's network threads exist
        SparkContexts.djlDefaults();
        MeshProcessGroup group = ProcessGroups.fromEnvironment(System.getenv(), settings.run().options())
                .block(Duration.ofMinutes(2));
        SparkDataParallelTraining.Settings run = settings.run();
        try (Model model = Model.newInstance("encoder", "PyTorch")) {
            TransformerEncoder encoder = new TransformerEncoder(cfg);
            model.setBlock(encoder);
            DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(settings.lr())).build());
            try (DistributedTrainer trainer = DistributedTrainer.builder(model, config, group)
                    // rank 0's initial parameters (every rank gets them) follow from the seed: a run repeats itself
                    .seed((int) settings.seed()).build();
                 NDManager data = NDManager.newBaseManager("PyTorch")) {
                trainer.initialize(encoder.inputShape(run.batch())).block(Duration.ofMinutes(2));
                double[] losses = new double[run.steps()];
                long[] tokens = new long[run.batch() * seq];
                long[] labels = new long[run.batch()];
                long timedStart = System.nanoTime();
                for (int step = 0; step < run.steps(); step++) {
                    if (step == run.warmupSteps()) {
                        timedStart = System.nanoTime();
                    }
                    // step s reads rows s*batch.. of the shard, wrapping around
                    for (int b = 0; b < labels.length; b++) {
                        int row = (int) (((long) step * labels.length + b) % labelRows.size());
                        System.arraycopy(tokenRows.get(row), 0, tokens, b * seq, seq);
                        labels[b] = labelRows.get(row);
                    }
                    try (NDManager m = data.newSubManager()) {
                        losses[step] = trainer.step(new NDList(m.create(tokens, new Shape(labels.length, seq))),
                                new NDList(m.create(labels, new Shape(labels.length)))).block(Duration.ofMinutes(2)).loss();
                    }
                }
                double msPerStep = (System.nanoTime() - timedStart) / 1e6 / Math.max(1, run.steps() - run.warmupSteps());
                boolean same = Boolean.TRUE.equals(trainer.parametersIdentical().block(Duration.ofMinutes(2)));
                return new RankResult(group.rank(), ProcessHandle.current().pid(), losses, msPerStep, same, labelRows.size());
            }
        }
    }

    /**
     * Prints the run ({@link SparkDataParallelTraining#report}).
     *
     * @param out      where to print
     * @param master   the Spark master the job ran on
     * @param results  every rank's result, by rank
     * @param settings the run's settings
     * @return whether the loss fell and the parameters are the same on every rank
     */
    public static boolean report(PrintStream out, String master, List<RankResult> results, Settings settings) {
        EncoderConfig cfg = settings.model();
        String model = String.format(Locale.ROOT, "DJL %s (PyTorch engine, %s intra-op thread(s) per rank): transformer encoder %s"
                        + " (%,d parameters), SGD lr %s", Engine.getDjlVersion(), System.getProperty("ai.djl.pytorch.num_threads", "1"),
                settings.preset(), cfg.parameterCount(), settings.lr());
        return SparkDataParallelTraining.report(out, master, model, results, settings.run().steps(), settings.run().batch());
    }
}
