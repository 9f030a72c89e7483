package io.reactivecollectives.samples.djl;

import ai.djl.engine.Engine;
import io.reactivecollectives.samples.examples.Ranks;
import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The DJL main job: a transformer encoder (13.7M parameters in the {@code base} preset) trained
 * data-parallel with DJL's PyTorch engine on every rank that {@code bin/collectives-run} (or
 * torchrun) starts, through {@code io.reactivecollectives.djl.DistributedTrainer}. Rank 0 prints the
 * loss as it falls, ms/step, samples/s, the share of the step spent communicating, and whether every
 * rank ended with identical parameters.
 *
 * <pre>bin/collectives-train --engine djl --steps 100</pre>
 *
 * <p>libtorch comes from the {@code pytorch-native-cpu} jar on the class path and is never fetched
 * ({@code ai.djl.offline=true}); each rank runs libtorch on one intra-op and one inter-op thread
 * unless {@code ai.djl.pytorch.num_threads} says otherwise.
 */
@Command(name = "collectives-train --engine djl", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Data-parallel training of a transformer encoder with DJL's PyTorch engine on synthetic token data.")
public final class DjlTraining implements Callable<Integer>, Cli.Validated {

    static final List<String> HOOKS = List.of("allreduce", "fp16", "bf16", "powersgd");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--preset", defaultValue = "base", description = "model size: base (13.7M parameters) or tiny (default ${DEFAULT-VALUE})")
    String preset;

    @Option(names = "--steps", defaultValue = "60", description = "optimizer steps (default ${DEFAULT-VALUE})")
    int steps;

    @Option(names = "--batch", defaultValue = "16", description = "samples per rank per step (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--samples", defaultValue = "65536", description = "samples in the synthetic data set (default ${DEFAULT-VALUE})")
    long samples;

    @Option(names = "--lr", description = "SGD learning rate (default 0.003 for base, 0.05 for tiny)")
    Float lr;

    @Option(names = "--seed", defaultValue = "7", description = "data, sampler and initial parameters' seed (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--hook", defaultValue = "allreduce", description = "allreduce, fp16, bf16 or powersgd (default ${DEFAULT-VALUE})")
    String hook;

    @Option(names = "--bucket-cap-kb", defaultValue = "25600", description = "bucket size limit in KiB (default ${DEFAULT-VALUE}, DDP's 25 MiB)")
    long bucketCapKb;

    @Option(names = "--first-bucket-kb", defaultValue = "1024", description = "first bucket limit in KiB (default ${DEFAULT-VALUE}, DDP's 1 MiB)")
    long firstBucketKb;

    @Option(names = "--warmup-steps", defaultValue = "5", description = "steps before the timing starts (default ${DEFAULT-VALUE})")
    int warmupSteps;

    @Option(names = "--log-every", defaultValue = "0", description = "print a line every N steps (default: every 10%% of the run)")
    int logEvery;

    @Option(names = "--json", description = "print rank 0's result as one JSON line at the end")
    boolean json;

    @Option(names = "--unstaged", description = "one backward pass, then every bucket (default: the backward pass runs by the "
            + "model's stages, the last stages' buckets on the wire while earlier stages are differentiated)")
    boolean unstaged;

    @Option(names = "--nosync-steps", defaultValue = "0", description = "after the timed steps, this many more under no_sync"
            + " (gradients accumulated, not communicated) to report the communication not hidden by compute as PyTorch DDP's"
            + " benchmark measures it: median step less median no_sync step (default ${DEFAULT-VALUE}: not measured)")
    int nosyncSteps;

    @Option(names = "--sparse-embedding", description = "the token table's gradient travels as the rows the batch touched,"
            + " as DDP sends an nn.Embedding(sparse=True)'s (default: dense, the whole table)")
    boolean sparseEmbedding;

    @Option(names = "--elastic", description = "train elastically (a lost rank shrunk out, a restarted one admitted); "
            + "on by itself under collectives-run --max-restarts N")
    boolean elastic;

    @Option(names = "--memory", description = "with every progress line, rank 0's resident set and heap after a GC (for leak checks)")
    boolean memory;

    /**
     * Runs one rank.
     *
     * @param args the options ({@code --help})
     */
    public static void main(String[] args) {
        // libtorch from the jar on the class path, never downloaded; one thread per rank unless told otherwise
        System.setProperty("ai.djl.offline", System.getProperty("ai.djl.offline", "true"));
        System.setProperty("ai.djl.pytorch.num_threads", System.getProperty("ai.djl.pytorch.num_threads", "1"));
        System.setProperty("ai.djl.pytorch.num_interop_threads", System.getProperty("ai.djl.pytorch.num_interop_threads", "1"));
        System.setProperty("ai.djl.pytorch.graph_optimizer", System.getProperty("ai.djl.pytorch.graph_optimizer", "false"));
        // DJL's INFO lines (engine threads, platform) and its CUDA probe's warning on a machine without a GPU
        System.setProperty("org.slf4j.simpleLogger.log.ai.djl", System.getProperty("org.slf4j.simpleLogger.log.ai.djl", "warn"));
        System.setProperty("org.slf4j.simpleLogger.log.ai.djl.util.cuda", System.getProperty("org.slf4j.simpleLogger.log.ai.djl.util.cuda", "error"));
        System.exit(Cli.execute(new DjlTraining(), args));
    }

    @Override
    public void validate() {
        StringBuilder problems = new StringBuilder();
        if (!HOOKS.contains(hook.toLowerCase(Locale.ROOT))) {
            problems.append("; --hook ").append(hook).append(" is not one of ").append(String.join(", ", HOOKS));
        }
        if (!preset.equalsIgnoreCase("base") && !preset.equalsIgnoreCase("tiny")) {
            problems.append("; --preset ").append(preset).append(" is not one of base, tiny");
        }
        atLeast(problems, "--steps", steps, 1);
        atLeast(problems, "--batch", batch, 1);
        atLeast(problems, "--samples", samples, 1);
        atLeast(problems, "--warmup-steps", warmupSteps, 0);
        atLeast(problems, "--log-every", logEvery, 0);
        atLeast(problems, "--nosync-steps", nosyncSteps, 0);
        atLeast(problems, "--bucket-cap-kb", bucketCapKb, 1);
        atLeast(problems, "--first-bucket-kb", firstBucketKb, 1);
        if (bucketCapKb > (1L << 30) || firstBucketKb > (1L << 30)) {
            problems.append("; bucket sizes must be at most 1 TiB (").append(1L << 30).append(" KiB)");
        }
        if (lr != null && (!(lr > 0) || !Float.isFinite(lr))) {
            problems.append("; --lr must be a finite number > 0, got ").append(lr);
        }
        if (warmupSteps >= steps && steps >= 1) {
            problems.append("; --warmup-steps ").append(warmupSteps).append(" leaves no timed step of --steps ").append(steps);
        }
        if (problems.length() > 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), problems.substring(2));
        }
    }

    private static void atLeast(StringBuilder problems, String option, long value, long min) {
        if (value < min) {
            problems.append("; ").append(option).append(" must be >= ").append(min).append(", got ").append(value);
        }
    }

    DjlTrainingRun.Settings settings() {
        float rate = lr != null ? lr : preset.equalsIgnoreCase("tiny") ? 0.05f : 0.003f;
        return new DjlTrainingRun.Settings(EncoderConfig.preset(preset), steps, batch, samples, rate, seed, hook,
                bucketCapKb << 10, firstBucketKb << 10, warmupSteps, logEvery > 0 ? logEvery : Math.max(1, steps / 10), memory,
                !unstaged, nosyncSteps, sparseEmbedding);
    }

    @Override
    public Integer call() {
        DjlTrainingRun.Settings s = settings();
        Engine engine = Engine.getEngine("PyTorch"); // loads libtorch here, on the main thread, not on a network thread
        if (elastic || io.reactivecollectives.transport.ElasticGroup.restartsEnabled(System.getenv())) {
            return new ElasticDjlTraining(s, System.out).run(io.reactivecollectives.transport.GroupOptions.defaults()
                    .withConnectTimeout(java.time.Duration.ofSeconds(120)));
        }
        return Ranks.run(group -> {
            if (group.rank() == 0) {
                System.out.printf(Locale.ROOT, "data-parallel training on %d ranks with DJL %s (PyTorch engine, libtorch %s, %s intra-op thread(s) per rank):"
                                + " transformer encoder %s, batch %d per rank (%d global), %d steps, hook %s%n",
                        group.size(), Engine.getDjlVersion(), engine.getVersion(), System.getProperty("ai.djl.pytorch.num_threads"),
                        s.model(), s.batch(), s.batch() * group.size(), s.steps(), s.hook());
            }
            return new DjlTrainingRun(s, System.out).train(group).map(o -> {
                if (group.rank() == 0) {
                    report(group.size(), o);
                }
                return o.identical();
            });
        }) == Boolean.TRUE ? 0 : 1;
    }

    private void report(int world, DjlTrainingRun.Outcome o) {
        System.out.printf(Locale.ROOT, "loss (mean of the last steps) %.4f | %.1f ms/step (forward+backward %.1f, optimizer %.1f) | %.1f samples/s"
                        + " | communication %.1f%% of step time (%.1f%% not overlapped with compute)%n",
                o.meanLoss(), o.msPerStep(), o.computeMs(), o.optimizerMs(), o.samplesPerSecond(), 100 * o.commShare(), 100 * o.exposedShare());
        if (!Double.isNaN(o.exposedCommMs())) {
            System.out.printf(Locale.ROOT, "communication not hidden by compute, as DDP's benchmark measures it: %.1f ms/step"
                    + " (median step less optimizer, less median no_sync step)%n", o.exposedCommMs());
        }
        System.out.println("parameters identical on all " + world + " ranks: " + (o.identical() ? "yes" : "NO"));
        if (json) {
            System.out.printf(Locale.ROOT, "{\"framework\": \"reactive-collectives+djl\", \"world\": %d, \"batch_per_rank\": %d, \"params\": %d,"
                            + " \"buckets\": %d, \"hook\": \"%s\", \"ms_per_step\": %.3f, \"compute_ms\": %.3f, \"optimizer_ms\": %.3f, \"comm_share\": %.3f, \"exposed_comm_share\": %.3f,"
                            + " \"exposed_comm_ms\": %s, \"final_loss\": %.4f}%n",
                    world, batch, o.parameters(), o.buckets(), hook, o.msPerStep(), o.computeMs(), o.optimizerMs(), o.commShare(), o.exposedShare(),
                    Double.isNaN(o.exposedCommMs()) ? "null" : String.format(Locale.ROOT, "%.3f", o.exposedCommMs()), o.meanLoss());
        }
    }
}
