package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.samples.examples.Ranks;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.tools.ToolsSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The main job: data-parallel training of a small MLP on every rank started by
 * {@code bin/collectives-run} (rank, world and rendezvous from the torchrun-style environment).
 * Rank 0 shows a progress bar with the loss of every step, then the throughput, the share of time
 * spent communicating, and a check that every rank ended with the same parameters.
 *
 * <pre>bin/collectives-run --nproc-per-node 2 -- io.reactivecollectives.samples.train.DataParallelTraining --steps 2000</pre>
 */
@Command(name = "collectives-train", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Data-parallel training of an MLP on a synthetic classification task.")
public final class DataParallelTraining implements Callable<Integer>, Cli.Validated {

    /** The communication hooks {@code --hook} names. */
    static final List<String> HOOKS = List.of("allreduce", "fp16", "bf16", "powersgd");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--steps", defaultValue = "2000", description = "optimizer steps (default ${DEFAULT-VALUE})")
    int steps;

    @Option(names = "--batch", defaultValue = "32", description = "samples per rank per step (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--input", defaultValue = "32", description = "input features (default ${DEFAULT-VALUE})")
    int input;

    @Option(names = "--hidden", defaultValue = "128", description = "hidden width (default ${DEFAULT-VALUE})")
    int hidden;

    @Option(names = "--layers", defaultValue = "2", description = "hidden layers (default ${DEFAULT-VALUE})")
    int layers;

    @Option(names = "--classes", defaultValue = "8", description = "classes (default ${DEFAULT-VALUE})")
    int classes;

    @Option(names = "--lr", defaultValue = "0.05", description = "learning rate (default ${DEFAULT-VALUE})")
    float lr;

    @Option(names = "--momentum", defaultValue = "0.9", description = "SGD momentum (default ${DEFAULT-VALUE})")
    float momentum;

    @Option(names = "--seed", defaultValue = "7", description = "task and initialisation seed (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--hook", defaultValue = "allreduce", completionCandidates = Hooks.class,
            description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    String hook;

    @Option(names = "--streaming", description = "stream each layer's gradient through allReduceStream instead of buckets")
    boolean streaming;

    @Option(names = "--prefetch", defaultValue = "2", description = "chunks in flight when streaming (default ${DEFAULT-VALUE})")
    int prefetch;

    @Option(names = "--bucket-cap-kb", defaultValue = "25600", description = "bucket size limit in KiB (default ${DEFAULT-VALUE}, DDP's 25 MiB)")
    long bucketCapKb;

    @Option(names = "--first-bucket-kb", defaultValue = "1024", description = "first bucket limit in KiB (default ${DEFAULT-VALUE})")
    long firstBucketKb;

    @Option(names = "--small-allreduce-kb", defaultValue = "1024",
            description = "all-reduces up to this size use recursive doubling (one exchange at 2 ranks), larger ones the ring (default ${DEFAULT-VALUE})")
    long smallAllReduceKb;

    @Option(names = "--log-every", defaultValue = "0",
            description = "print a line every N steps instead of the progress bar (default: bar on a terminal, else every 5%%)")
    int logEvery;

    @Option(names = "--warmup-steps", defaultValue = "50",
            description = "steps before the timing starts, while the JIT compiles the step (default ${DEFAULT-VALUE})")
    int warmupSteps;

    @Option(names = "--no-progress", description = "no progress bar")
    boolean noProgress;

    @Option(names = "--json", description = "print rank 0's result as one JSON line at the end")
    boolean json;

    @Option(names = "--elastic", description = {"train elastically: a lost rank is shrunk out and a restarted one joins"
            + " (on by itself under collectives-run --max-restarts N)"})
    boolean elastic;

    public static void main(String[] args) {
        System.exit(Cli.execute(new DataParallelTraining(), args));
    }

    /** The values {@code --hook} takes, for the help. */
    static final class Hooks implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return HOOKS.iterator();
        }
    }

    /** The most KiB a size option takes (1 TiB): its bytes stay far from overflowing a long. */
    static final long MAX_KB = 1L << 30;

    /** The most elements one array holds (a layer's weights, a batch's activations, all parameters). */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    @Override
    public void validate() {
        String problem = problem();
        if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
    }

    /** What is wrong with the options (every bound broken, else the first other problem found), or null. */
    private String problem() {
        if (!HOOKS.contains(hook.toLowerCase(Locale.ROOT))) {
            return "--hook " + hook + " is not one of " + String.join(", ", HOOKS);
        }
        String bound = atLeast("--steps", steps, 1) + atLeast("--warmup-steps", warmupSteps, 0)
                + atLeast("--log-every", logEvery, 0) + atLeast("--batch", batch, 1) + atLeast("--input", input, 1)
                + atLeast("--hidden", hidden, 1) + atLeast("--layers", layers, 0) + atLeast("--classes", classes, 2)
                + atLeast("--prefetch", prefetch, 1) + atLeast("--bucket-cap-kb", bucketCapKb, 1)
                + atLeast("--first-bucket-kb", firstBucketKb, 1) + atLeast("--small-allreduce-kb", smallAllReduceKb, 0)
                + atMostKb("--bucket-cap-kb", bucketCapKb) + atMostKb("--first-bucket-kb", firstBucketKb)
                + atMostKb("--small-allreduce-kb", smallAllReduceKb);
        if (!bound.isEmpty()) {
            return bound.substring(2);
        }
        if (!(lr > 0) || !Float.isFinite(lr)) {
            return "--lr must be a finite number > 0, got " + lr;
        }
        if (!(momentum >= 0 && momentum < 1)) {
            return "--momentum must be in [0, 1), got " + momentum;
        }
        if (streaming && !"allreduce".equalsIgnoreCase(hook)) {
            return "--streaming sends plain all-reduces: it takes no --hook " + hook;
        }
        if (elastic() && (streaming || !"allreduce".equalsIgnoreCase(hook))) {
            return "the elastic run (--elastic, or under collectives-run --max-restarts) averages plain all-reduces: "
                    + "it takes no --streaming or --hook " + hook;
        }
        return modelTooLarge();
    }

    /** {@code "; <option> must be >= min, got <value>"}, or empty when it is. */
    private static String atLeast(String option, long value, long min) {
        return value >= min ? "" : "; " + option + " must be >= " + min + ", got " + value;
    }

    /** {@code "; <option> must be at most <MAX_KB> (1 TiB), got <value>"}, or empty when it is. */
    private static String atMostKb(String option, long value) {
        return value <= MAX_KB ? "" : "; " + option + " must be at most " + MAX_KB + " (1 TiB), got " + value;
    }

    /** Why the MLP of {@code --input}, {@code --hidden}, {@code --layers}, {@code --classes} and {@code --batch} cannot be held, or null. */
    private String modelTooLarge() {
        long widest = Math.max(Math.max(input, hidden), classes);
        long total = 0;
        for (int l = 0; l <= layers; l++) {
            long in = l == 0 ? input : hidden;
            long out = l == layers ? classes : hidden;
            if (in * out > MAX_ARRAY) {
                return "layer " + l + " would hold " + in + " x " + out + " weights (--input, --hidden, --classes); at most "
                        + MAX_ARRAY + " fit one array";
            }
            total += in * out + out;
            if (total > MAX_ARRAY) {
                return "the MLP would hold over " + MAX_ARRAY + " parameters (--input, --hidden, --layers, --classes)";
            }
        }
        if (batch * widest > MAX_ARRAY) {
            return "--batch " + batch + " of " + widest + " values each exceeds " + MAX_ARRAY + " per array";
        }
        return null;
    }

    /** The columns a progress line may fill: the launcher's {@code COLUMNS} (the terminal's less its prefix), else 80. */
    static int progressColumns(java.util.Map<String, String> env) {
        String c = env.get("COLUMNS");
        try {
            int v = c == null ? 80 : Integer.parseInt(c.trim());
            return v > 0 ? v : 80;
        } catch (NumberFormatException e) {
            return 80;
        }
    }

    /** Whether this run is elastic: {@code --elastic}, or a launcher that restarts failed ranks. */
    private boolean elastic() {
        return elastic || io.reactivecollectives.transport.ElasticGroup.restartsEnabled(System.getenv());
    }

    TrainConfig config() {
        int[] dims = new int[layers + 2];
        dims[0] = input;
        for (int i = 1; i <= layers; i++) {
            dims[i] = hidden;
        }
        dims[layers + 1] = classes;
        // a progress bar on a terminal; on a pipe or file, a line every 5% of the run instead
        String ttySetting = ToolsSettings.TTY.get();
        boolean tty = "1".equals(ttySetting) || (ttySetting == null && System.console() != null);
        boolean bar = logEvery == 0 && !noProgress && tty;
        int every = logEvery > 0 ? logEvery : (!noProgress && !tty ? Math.max(1, steps / 20) : 0);
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, hook, streaming, bucketCapKb << 10,
                firstBucketKb << 10, prefetch, every, bar, warmupSteps);
    }

    @Override
    public Integer call() {
        TrainConfig cfg = config();
        if (elastic()) {
            return new ElasticTraining(cfg, System.out).run(GroupOptions.defaults()
                    .withConnectTimeout(java.time.Duration.ofSeconds(120))
                    .withSmallAllReduceBytes(smallAllReduceKb << 10));
        }
        return Ranks.run(o -> o.withSmallAllReduceBytes(smallAllReduceKb << 10), group -> {
            if (group.rank() == 0) {
                System.out.printf(Locale.ROOT, "data-parallel training on %d ranks: MLP %s, batch %d per rank (%d global), %d steps, %s%n",
                        group.size(), java.util.Arrays.toString(cfg.dims()), cfg.batch(), cfg.batch() * group.size(), cfg.steps(),
                        cfg.streaming() ? "streaming gradients (allReduceStream, prefetch " + cfg.prefetch() + ")" : "bucketed gradients, hook " + cfg.hook());
            }
            return new DataParallelTrainer(cfg, System.out, progressColumns(System.getenv())).train(group)
                    .flatMap(r -> sameOnAllRanks(group, r.finalParameters()).map(same -> {
                        if (group.rank() == 0) {
                            report(group, cfg, r, same);
                        }
                        return same;
                    }));
        }) == Boolean.TRUE ? 0 : 1;
    }

    private void report(ProcessGroup group, TrainConfig cfg, TrainResult r, boolean same) {
        System.out.printf(Locale.ROOT, "loss (mean of the last %d steps) %.4f | %.3f ms/step | %.0f samples/s | communication %.1f%% of step time (%.1f%% not overlapped with compute)%n",
                Math.min(100, r.losses().length), r.meanLoss(100), r.msPerStep(), r.samplesPerSecond(), 100 * r.commShare(), 100 * r.exposedCommShare());
        System.out.println("parameters identical on all " + group.size() + " ranks: " + (same ? "yes" : "NO"));
        if (json) {
            System.out.printf(Locale.ROOT, "{\"framework\": \"reactive-collectives\", \"world\": %d, \"batch_per_rank\": %d, \"params\": %d,"
                            + " \"streaming\": %b, \"hook\": \"%s\", \"ms_per_step\": %.3f, \"comm_share\": %.3f, \"exposed_comm_share\": %.3f,"
                            + " \"final_loss_mean100\": %.4f}%n",
                    group.size(), cfg.batch(), r.finalParameters().length, cfg.streaming(), cfg.hook(), r.msPerStep(),
                    r.commShare(), r.exposedCommShare(), r.meanLoss(100));
        }
    }

    /**
     * Whether every rank holds bit-identical {@code params}: the MIN and MAX of each value agree.
     *
     * @param group  the ranks
     * @param params this rank's parameters
     * @return a cold {@code Mono} emitting the same answer on every rank
     */
    public static Mono<Boolean> sameOnAllRanks(ProcessGroup group, float[] params) {
        return Mono.using(
                () -> new Tensor[] {Tensor.fromFloats(params), Tensor.fromFloats(params)},
                t -> group.allReduce(t[0], ReduceOp.MIN).then(group.allReduce(t[1], ReduceOp.MAX))
                        .then(Mono.fromCallable(() -> t[0].contentEquals(t[1]))),
                t -> {
                    t[0].release();
                    t[1].release();
                });
    }

}
