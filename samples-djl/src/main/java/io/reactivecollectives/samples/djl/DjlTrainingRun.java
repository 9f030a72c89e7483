package io.reactivecollectives.samples.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDManager;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ddp.AllReduceHook;
import io.reactivecollectives.core.ddp.Bf16CompressHook;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.Fp16CompressHook;
import io.reactivecollectives.core.ddp.PowerSgdHook;
import io.reactivecollectives.core.ddp.PowerSgdState;
import io.reactivecollectives.djl.DistributedSampler;
import io.reactivecollectives.djl.DistributedTrainer;
import io.reactivecollectives.djl.StepResult;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One rank's run of the DJL main job: a {@link TransformerEncoder} trained by a
 * {@link DistributedTrainer} on this rank's {@link DistributedSampler} shard of a
 * {@link SyntheticTokens} data set, epoch after epoch, printing progress on rank 0.
 */
final class DjlTrainingRun {

    /** What a run measured on this rank. */
    record Outcome(long parameters, int buckets, double meanLoss, double msPerStep, double samplesPerSecond,
                   double commShare, double exposedShare, double computeMs, double optimizerMs, double exposedCommMs,
                   boolean identical) {
    }

    private final Settings s;
    private final PrintStream out;

    /** The run's settings (from the command line). */
    record Settings(EncoderConfig model, int steps, int batch, long samples, float lr, long seed, String hook,
                    long bucketCapBytes, long firstBucketBytes, int warmupSteps, int logEvery, boolean memory, boolean staged,
                    int nosyncSteps, boolean sparseEmbedding) {
    }

    DjlTrainingRun(Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
    }

    static Function<ProcessGroup, CommHook> hook(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "fp16" -> Fp16CompressHook::new;
            case "bf16" -> Bf16CompressHook::new;
            case "powersgd" -> g -> new PowerSgdHook(PowerSgdState.of(g, 2, 100));
            default -> AllReduceHook::new;
        };
    }

    Mono<Outcome> train(ProcessGroup group) {
        return Mono.using(() -> new Resources(group), r -> r.run(group), Resources::close);
    }

    private final class Resources {
        final Model model = Model.newInstance("encoder");
        final DistributedTrainer trainer;
        final NDManager data = NDManager.newBaseManager();
        final SyntheticTokens tokens = SyntheticTokens.forConfig(s.seed(), s.model());
        final DistributedSampler sampler;
        final int stepsPerEpoch;
        long[] epochIndices;
        double lossSum;
        int lossCount;
        long timedNanos;
        long exposedNanos;
        long optimizerNanos;
        long computeNanos;
        long commAtWarmup;
        long timedStart;
        /** Each timed step's time less its optimizer's, and each no_sync step's time (for the exposed communication as DDP measures it). */
        final List<Long> synced = new ArrayList<>();
        final List<Long> nosync = new ArrayList<>();

        Resources(ProcessGroup group) {
            model.setBlock(new TransformerEncoder(s.model()));
            DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(s.lr())).build());
            trainer = DistributedTrainer.builder(model, config, group).hook(hook(s.hook()))
                    .bucketCapBytes(s.bucketCapBytes()).firstBucketBytes(s.firstBucketBytes()).seed((int) s.seed())
                    .stagedBackward(s.staged()).rowSparseGradients(name -> s.sparseEmbedding() && TokenEmbedding.isTokenTable(name))
                    .build();
            sampler = DistributedSampler.builder(s.samples(), group.size(), group.rank()).seed(s.seed()).build();
            // the epoch's last batch is short when the shard does not divide (as PyTorch's DataLoader without drop_last);
            // every rank's shard has the same length, so every rank's last batch has the same size
            stepsPerEpoch = (sampler.numSamples() + s.batch() - 1) / s.batch();
        }

        Mono<Outcome> run(ProcessGroup group) {
            boolean chatty = group.rank() == 0;
            return trainer.initialize(((TransformerEncoder) model.getBlock()).inputShape(s.batch()))
                    .doOnSuccess(v -> {
                        if (chatty) {
                            out.printf(Locale.ROOT, "model: %,d parameters in %d buckets; %d steps per epoch of %,d samples%n",
                                    trainer.parameterCount(), trainer.bucketCount(), stepsPerEpoch, s.samples());
                        }
                    })
                    .thenMany(Flux.range(0, s.steps()).concatMap(step -> step(step, false)))
                    .doOnNext(r -> record(r, chatty))
                    // DDP's no_sync after the timed steps (as torch_ddp_train.py's --nosync-steps): gradients add up, nothing is applied
                    .thenMany(Flux.range(s.steps(), s.nosyncSteps()).concatMap(step -> step(step, true)))
                    .doOnNext(r -> nosync.add(r.stepNanos()))
                    .then(trainer.parametersIdentical())
                    .map(this::outcome);
        }

        private Mono<StepResult> step(int step, boolean noSync) {
            int epoch = step / stepsPerEpoch;
            int inEpoch = step % stepsPerEpoch;
            if (inEpoch == 0) {
                sampler.setEpoch(epoch);
                epochIndices = sampler.indices();
            }
            return Mono.using(data::newSubManager, m -> {
                int from = inEpoch * s.batch();
                long[] mine = java.util.Arrays.copyOfRange(epochIndices, from, Math.min(epochIndices.length, from + s.batch()));
                SyntheticTokens.Samples b = tokens.batch(mine, m);
                return noSync ? trainer.accumulate(b.data(), b.labels()) : trainer.step(b.data(), b.labels());
            }, NDManager::close);
        }

        private void record(StepResult r, boolean chatty) {
            if (r.step() == s.warmupSteps()) {
                commAtWarmup = trainer.communicationNanos();
                timedStart = System.nanoTime();
            }
            if (r.step() > s.warmupSteps()) {
                timedNanos += r.stepNanos();
                exposedNanos += r.exposedNanos();
                optimizerNanos += r.optimizerNanos();
                computeNanos += r.computeNanos();
                if (s.nosyncSteps() > 0) {   // kept only for that measure: a 10,000-step memory run holds none
                    synced.add(r.stepNanos() - r.optimizerNanos());
                }
            }
            if (r.step() > s.steps() - Math.min(100, s.steps() / 2 + 1)) {
                lossSum += r.loss();
                lossCount++;
            }
            if (chatty && (r.step() % s.logEvery() == 0 || r.step() == s.steps())) {
                long timed = r.step() - s.warmupSteps();
                out.printf(Locale.ROOT, "step %5d/%d  loss %.4f  %s%s%n", r.step(), s.steps(), r.loss(),
                        timed > 0 ? String.format(Locale.ROOT, "%.1f ms/step", timedNanos / 1e6 / timed) : "(warm-up)",
                        s.memory() ? "  " + MemoryProbe.line() : "");
            }
        }

        private Outcome outcome(boolean identical) {
            long timedSteps = Math.max(1, s.steps() - s.warmupSteps());
            double wall = Math.max(1, System.nanoTime() - timedStart);
            double msPerStep = timedNanos / 1e6 / timedSteps;
            double comm = (trainer.communicationNanos() - commAtWarmup) / wall;
            // DDP's measure: median step with the all-reduce less median step under no_sync (its first one left out, as the script does)
            double exposedMs = nosync.size() < 2 ? Double.NaN
                    : (median(synced) - median(nosync.subList(1, nosync.size()))) / 1e6;
            return new Outcome(trainer.parameterCount(), trainer.bucketCount(), lossSum / Math.max(1, lossCount), msPerStep,
                    1000.0 * s.batch() * trainer.group().size() / msPerStep, comm, exposedNanos / (double) Math.max(1, timedNanos),
                    computeNanos / 1e6 / timedSteps, optimizerNanos / 1e6 / timedSteps, exposedMs, identical);
        }

        private static double median(List<Long> values) {
            long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
            int n = v.length;
            return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
        }

        void close() {
            trainer.close();
            model.close();
            data.close();
        }
    }
}
