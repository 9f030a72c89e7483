package io.reactivecollectives.spark.sample;

import io.reactivecollectives.samples.train.BatchSource;
import io.reactivecollectives.samples.train.DataParallelTrainer;
import io.reactivecollectives.samples.train.DataParallelTraining;
import io.reactivecollectives.samples.train.SyntheticTask;
import io.reactivecollectives.samples.train.TrainConfig;
import io.reactivecollectives.samples.train.TrainResult;
import io.reactivecollectives.spark.BarrierProcessGroups;
import io.reactivecollectives.spark.BarrierRdds;
import io.reactivecollectives.spark.BarrierStages;
import io.reactivecollectives.transport.DashboardOptions;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.ProcessGroups;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.PrintStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The main job's data-parallel training ({@link DataParallelTrainer}, its {@code Mlp} and
 * {@link SyntheticTask}) inside a Spark barrier stage: a DataFrame of labelled samples has one
 * partition per rank, and each barrier task trains on its own partition as one rank of a
 * {@link BarrierProcessGroups} group, averaging gradients with the other tasks every step. The
 * driver prints the loss (mean over the ranks) as it falls, a check that every rank ended with the
 * same parameters, and the time per step.
 *
 * <p>It lives in the test sources of {@code reactive-spark} (Spark and the samples are test
 * dependencies there; the published module carries neither). Run it with
 * {@code bin/collectives-spark-train [--master local-cluster[2,1,1024]|local[N]] [--ranks N]
 * [--steps N] [--batch N] [--shard-rows N] [--dashboard [HOST:]PORT]}.
 */
public final class SparkDataParallelTraining {

    /** What the driver passes to every task (the samples' {@code TrainConfig} is not serializable). */
    public record Settings(int steps, int batch, int shardRows, int warmupSteps, String dashboard) implements Serializable {

        /** Without a dashboard. */
        public Settings(int steps, int batch, int shardRows, int warmupSteps) {
            this(steps, batch, shardRows, warmupSteps, null);
        }

        /** The group's options: the defaults, with the dashboard when one is asked for. */
        GroupOptions options() {
            return dashboard == null ? GroupOptions.defaults() : GroupOptions.defaults().withDashboard(DashboardOptions.parse(dashboard));
        }

        TrainConfig config() {
            return TrainConfig.defaults().withSteps(steps).withBatch(batch).withWarmupSteps(warmupSteps).withOutput(0, false);
        }
    }

    /**
     * What one rank (task) sends back to the driver.
     *
     * @param rank      the rank (partition)
     * @param pid       the process id of the executor JVM that ran it
     * @param losses    its loss at every step
     * @param msPerStep wall milliseconds per step after the warm-up
     * @param same      whether every rank ended with bit-identical parameters
     * @param shardRows rows of its DataFrame partition
     */
    public record RankResult(int rank, long pid, double[] losses, double msPerStep, boolean same, int shardRows)
            implements Serializable {
    }

    /** The master URLs Spark parses (its SparkContext.createTaskScheduler): anything else fails there with a stack trace. */
    private static final java.util.regex.Pattern MASTER = java.util.regex.Pattern.compile(
            "local(\\[(\\d+|\\*)(,\\s*\\d+)?\\])?|local-cluster\\[\\s*\\d+\\s*,\\s*\\d+\\s*,\\s*\\d+\\s*\\]|(spark|k8s)://.+|yarn");

    private SparkDataParallelTraining() {
    }

    /**
     * Runs the sample: {@code --master} (default {@code local[2]}), {@code --ranks} (default 2),
     * {@code --steps} (default 300), {@code --batch} (default 32), {@code --shard-rows} (default 4096),
     * {@code --dashboard [HOST:]PORT} (every rank serves its live view, rank 0 the job's page on PORT).
     *
     * @param args the options
     */
    public static void main(String[] args) {
        Map<String, String> o = commandLine(args, Map.of("--steps", "300", "--batch", "32", "--shard-rows", "4096"),
                "collectives-spark-train");
        int steps = Integer.parseInt(o.get("--steps"));
        int batch = Integer.parseInt(o.get("--batch"));
        Settings settings = new Settings(steps, batch, Integer.parseInt(o.get("--shard-rows")), Math.min(50, steps / 5),
                o.get("--dashboard"));
        run(o, "collectives-spark-train", (spark, master) ->
                report(System.out, master, train(spark, Integer.parseInt(o.get("--ranks")), settings), steps, batch));
    }

    /**
     * {@link #options} for a {@code main}: {@code --help} prints the options and their defaults and
     * exits 0; a wrong option prints one line and exits 2 (as {@code collectives-run} does).
     *
     * @param args     the arguments
     * @param defaults the sample's own options and their defaults
     * @param command  the command's name, for its messages
     * @return every option's value
     */
    public static Map<String, String> commandLine(String[] args, Map<String, String> defaults, String command) {
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            Map<String, String> all = options(new String[0], defaults);
            StringBuilder usage = new StringBuilder("usage: " + command + " [--option value ...]; options (default):");
            all.forEach((k, v) -> usage.append("\n  ").append(k).append(" (").append(v == null ? "none" : v).append(')'));
            usage.append("\n  --engine (mlp): the model, mlp or djl (bin/collectives-spark-train; --engine djl --help lists djl's options)");
            System.out.println(usage);
            System.exit(0);
        }
        try {
            return options(args, defaults);
        } catch (IllegalArgumentException e) {
            System.err.println(command + ": " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    /**
     * The command line of a Spark sample: {@code --name value} pairs over {@code defaults}, plus
     * {@code --master} (default {@code local[2]}), {@code --ranks} (default 2) and
     * {@code --dashboard [HOST:]PORT} (default none) that every sample takes.
     *
     * @param args     the arguments
     * @param defaults the sample's own options and their defaults
     * @return every option's value ({@code --dashboard}: null when not given)
     * @throws IllegalArgumentException for an option that is neither
     */
    public static Map<String, String> options(String[] args, Map<String, String> defaults) {
        Map<String, String> o = new TreeMap<>(defaults);
        o.put("--master", "local[2]");
        o.put("--ranks", "2");
        o.put("--dashboard", null);
        for (int i = 0; i < args.length; i += 2) {
            if (!o.containsKey(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException((o.containsKey(args[i]) ? "no value for " : "unknown option ") + args[i]
                        + " (options: " + String.join(", ", o.keySet()) + ")");
            }
            o.put(args[i], args[i].equals("--dashboard") ? DashboardOptions.parse(args[i + 1]).spec() : args[i + 1]);
        }
        for (Map.Entry<String, String> e : o.entrySet()) {
            String bad = badValue(e.getKey(), e.getValue());
            if (bad != null) {
                throw new IllegalArgumentException(bad);
            }
        }
        return o;
    }

    /** Why {@code value} does not fit {@code option} (a count, --lr, --seed), or null: checked before Spark starts. */
    static String badValue(String option, String value) {
        if (option.equals("--master") && !MASTER.matcher(value).matches()) {
            return "--master " + value + " is not a Spark master URL (local, local[N], local[*], local-cluster[W,C,M],"
                    + " spark://HOST:PORT, k8s://..., yarn)";
        }
        boolean count = List.of("--steps", "--batch", "--shard-rows", "--ranks").contains(option);
        try {
            if (count && Integer.parseInt(value) < 1) {
                return option + " must be >= 1, got " + value;
            }
            float lr = option.equals("--lr") ? Float.parseFloat(value) : 1;
            if (!(lr > 0) || Float.isInfinite(lr)) {
                return "--lr must be a positive number, got " + value;
            }
            if (option.equals("--seed")) {
                Long.parseLong(value);
            }
            return null;
        } catch (NumberFormatException e) {
            return option + " must be " + (count ? "a whole number >= 1" : option.equals("--lr") ? "a positive number" : "a whole number")
                    + ", got " + value;
        }
    }

    /**
     * Runs a sample's job in a session on {@code options}' master, stops the session and exits: 0
     * when the job says it went well, 1 otherwise.
     *
     * @param options the parsed options ({@link #options})
     * @param appName the Spark application's name
     * @param job     the job: given the session and the master, whether it went well
     */
    public static void run(Map<String, String> options, String appName, BiFunction<SparkSession, String, Boolean> job) {
        String master = options.get("--master");
        if (options.get("--dashboard") != null) {
            System.out.println("the job's dashboard: rank 0 serves it on " + options.get("--dashboard"));
        }
        SparkSession spark;
        try {
            spark = SparkContexts.session(master, appName);
        } catch (RuntimeException e) {   // Spark's "Could not parse Master URL: 'foo'" and the like
            System.err.println(appName + ": --master " + master + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        boolean ok;
        try {
            ok = job.apply(spark, master);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // refused on the driver before any task ran (BarrierRdds: more --ranks than the master's task slots)
            System.err.println(appName + ": " + e.getMessage());
            spark.stop();
            System.exit(2);
            return;
        } finally {
            spark.stop();
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * Trains in one barrier stage of {@code ranks} tasks.
     *
     * @param spark    the session
     * @param ranks    tasks, ranks and DataFrame partitions
     * @param settings steps, batch and shard size
     * @return every rank's result, by rank
     */
    public static List<RankResult> train(SparkSession spark, int ranks, Settings settings) {
        return trainInBarrierStage(spark, ranks, samples(spark, settings.config(), ranks, settings.shardRows()),
                rows -> trainShard(rows, settings));
    }

    /** One barrier task's work: its partition's rows in, its rank's result out. */
    @FunctionalInterface
    public interface ShardTrainer extends Serializable {
        /**
         * Trains one rank on its partition.
         *
         * @param rows the partition's rows (the rank's shard)
         * @return what the rank sends back to the driver
         * @throws Exception when the rank fails (the stage fails, every other rank's group is aborted)
         */
        RankResult train(Iterator<Row> rows) throws Exception;
    }

    /**
     * Runs {@code trainer} on every partition of {@code shards} in one barrier stage of
     * {@code ranks} tasks (one partition per rank).
     *
     * @param spark   the session
     * @param ranks   tasks, ranks and partitions of {@code shards}
     * @param shards  the data, one partition per rank
     * @param trainer what each task does with its partition
     * @return every rank's result, by rank
     */
    public static List<RankResult> trainInBarrierStage(SparkSession spark, int ranks, Dataset<Row> shards, ShardTrainer trainer) {
        BarrierStages.requireRunnable(spark.sparkContext().getConf(), ranks);
        List<RankResult> results = new ArrayList<>(BarrierRdds.mapPartitions(shards.javaRDD(),
                rows -> List.of(trainer.train(rows)).iterator()).collect());
        results.sort(Comparator.comparingInt(RankResult::rank));
        return results;
    }

    /** The labelled samples as a DataFrame ({@code features: array<float>, label: int}), one partition per rank. */
    static Dataset<Row> samples(SparkSession spark, TrainConfig cfg, int ranks, int shardRows) {
        int inputs = cfg.dims()[0];
        int classes = cfg.dims()[cfg.dims().length - 1];
        long seed = cfg.seed();
        StructType schema = new StructType();
        for (int i = 0; i < inputs; i++) {
            schema = schema.add("x" + i, DataTypes.FloatType, false);
        }
        schema = schema.add("label", DataTypes.IntegerType, false);
        return spark.range(0, (long) ranks * shardRows, 1, ranks).map((MapFunction<Long, Row>) id -> {
            float[] x = new float[inputs];
            Object[] row = new Object[inputs + 1];
            row[inputs] = new SyntheticTask(seed, inputs, classes).sample(id, x, 0);
            for (int i = 0; i < inputs; i++) {
                row[i] = x[i];
            }
            return RowFactory.create(row);
        }, Encoders.row(schema));
    }

    /** One barrier task: its partition is its shard; it trains as one rank of the stage's group. */
    static RankResult trainShard(Iterator<Row> rows, Settings settings) {
        TrainConfig cfg = settings.config();
        int inputs = cfg.dims()[0];
        List<Row> shard = new ArrayList<>();
        rows.forEachRemaining(shard::add);
        float[] xs = new float[shard.size() * inputs];
        int[] ys = new int[shard.size()];
        for (int r = 0; r < shard.size(); r++) {
            Row row = shard.get(r);
            for (int i = 0; i < inputs; i++) {
                xs[r * inputs + i] = row.getFloat(i);
            }
            ys[r] = row.getInt(inputs);
        }
        // step s reads rows s*batch.. of the shard, wrapping around (an epoch is shardRows / batch steps)
        BatchSource source = (step, rank, world, x, labels) -> {
            for (int b = 0; b < labels.length; b++) {
                int row = (int) (((long) step * labels.length + b) % ys.length);
                System.arraycopy(xs, row * inputs, x, b * inputs, inputs);
                labels[b] = ys[row];
            }
        };
        // the task's own code may block: it runs on Spark's task thread; the same one call joins here as
        // under collectives-run or torchrun (reactive-spark's LaunchProvider finds the barrier task)
        MeshProcessGroup group = ProcessGroups.fromEnvironment(System.getenv(), settings.options()).block(Duration.ofMinutes(2));
        TrainResult result = new DataParallelTrainer(cfg, System.out, 80, source).train(group).block();
        boolean same = Boolean.TRUE.equals(DataParallelTraining.sameOnAllRanks(group, result.finalParameters()).block());
        return new RankResult(group.rank(), ProcessHandle.current().pid(), result.losses(), result.msPerStep(), same,
                ys.length);
    }

    /** Prints the run; {@return whether the loss fell and the parameters are the same on every rank} */
    public static boolean report(PrintStream out, String master, List<RankResult> results, int steps, int batch) {
        return report(out, master, "MLP " + Arrays.toString(TrainConfig.defaults().dims()), results, steps, batch);
    }

    /**
     * Prints a run of any model: where the ranks ran, the loss (mean over the ranks) as it falls,
     * ms/step and whether every rank ended with identical parameters.
     *
     * @param out     where to print
     * @param master  the Spark master the job ran on
     * @param model   the model, in words
     * @param results every rank's result, by rank
     * @param steps   steps every rank took
     * @param batch   samples per rank per step
     * @return whether the loss fell and the parameters are the same on every rank
     */
    public static boolean report(PrintStream out, String master, String model, List<RankResult> results, int steps, int batch) {
        int world = results.size();
        out.printf(Locale.ROOT, "data-parallel training in a Spark barrier stage on %s: %d ranks (tasks) in JVM(s) %s, "
                        + "%s, DataFrame partitions of %d rows, batch %d per rank, %d steps%n", master, world,
                results.stream().map(r -> Long.toString(r.pid())).distinct().toList(),
                model, results.get(0).shardRows(), batch, steps);
        double[] mean = new double[steps];
        for (RankResult r : results) {
            for (int s = 0; s < steps; s++) {
                mean[s] += r.losses()[s] / world;
            }
        }
        int every = Math.max(1, steps / 10);
        for (int s = 0; s < steps; s += every) {
            out.printf(Locale.ROOT, "step %5d  loss %.4f (mean over the ranks)%n", s + 1, mean[s]);
        }
        int window = Math.max(1, Math.min(50, steps / 5));
        double first = Arrays.stream(mean, 0, window).average().orElse(Double.NaN);
        double last = Arrays.stream(mean, steps - window, steps).average().orElse(Double.NaN);
        double ms = results.stream().mapToDouble(RankResult::msPerStep).max().orElse(Double.NaN);
        boolean same = results.stream().allMatch(RankResult::same);
        out.printf(Locale.ROOT, "loss (mean of %d steps) %.4f at the start, %.4f at the end: %s | %.3f ms/step%n", window,
                first, last, last < first ? "falling" : "NOT falling", ms);
        out.println("parameters identical on all " + world + " ranks: " + (same ? "yes" : "NO"));
        return same && last < first;
    }
}
