package io.reactivecollectives.samples.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDManager;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.JobEndedException;
import io.reactivecollectives.djl.DistributedSampler;
import io.reactivecollectives.djl.ElasticTrainer;
import io.reactivecollectives.djl.StepResult;
import io.reactivecollectives.samples.train.ElasticLog;
import io.reactivecollectives.transport.ElasticGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The DJL main job, elastic (under {@code collectives-run --max-restarts N}, or with
 * {@code --elastic}): a rank that dies is shrunk out by the others, which take the failed step again
 * and go on; its restarted process builds the model, asks to join, and is admitted at the next
 * step's boundary with the parameters, the optimizer's state, the step and the losses so far
 * streamed to it ({@link ElasticTrainer}).
 *
 * <p>Data: step {@code s} of a generation of {@code n} ranks reads, on rank {@code r}, batch
 * {@code s mod k} of epoch {@code s / k} of the {@link DistributedSampler} shard {@code (n, r)},
 * where {@code k} is the steps per epoch at size {@code n}; after a change of size the epochs are cut
 * again for the new size at the same step. The steps run on the process's main thread.
 */
final class ElasticDjlTraining {

    private final DjlTrainingRun.Settings s;
    private final PrintStream out;
    private final double[] losses;

    ElasticDjlTraining(DjlTrainingRun.Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
        this.losses = new double[settings.steps()];
    }

    /**
     * Trains to the last step as a member or a joiner.
     *
     * @param options the group's options
     * @return 0 when every rank ended with identical parameters (or this process asked to join after
     *         the job ended), 1 otherwise (also when this process left the job)
     */
    int run(GroupOptions options) {
        try (Model model = Model.newInstance("encoder"); NDManager data = NDManager.newBaseManager()) {
            TransformerEncoder encoder = new TransformerEncoder(s.model());
            model.setBlock(encoder);
            DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(s.lr())).build());
            try (ElasticTrainer trainer = ElasticTrainer.builder(model, config).hook(DjlTrainingRun.hook(s.hook()))
                    .bucketCapBytes(s.bucketCapBytes()).firstBucketBytes(s.firstBucketBytes()).seed((int) s.seed())
                    .stagedBackward(s.staged()).applicationState(this::saveLosses, this::restoreLosses).build()) {
                trainer.initialize(encoder.inputShape(s.batch())).block();
                return train(trainer, data, options);
            }
        } catch (JobEndedException e) {
            out.println("collectives-train: " + e.getMessage());
            return 0;   // restarted too late: the job is done without this process
        } catch (RuntimeException e) {
            out.println("collectives-train: this process leaves the job: " + e);
            return 1;
        }
    }

    private int train(ElasticTrainer trainer, NDManager data, GroupOptions options) {
        long start = System.nanoTime();
        SyntheticTokens tokens = SyntheticTokens.forConfig(s.seed(), s.model());
        try (ElasticGroup elastic = ElasticGroup.fromEnvironment(trainer, options).block()) {
            ElasticLog log = ElasticLog.follow(elastic, out);
            long firstStep = trainer.steps();
            if (elastic.joined()) {
                out.printf(Locale.ROOT, "joined the running job as rank %d of %d at step %d%n", elastic.group().rank(),
                        elastic.group().size(), firstStep);
                trainer.regroup(elastic.group()).block();
            } else {
                trainer.begin(elastic.group()).block();
                if (elastic.group().rank() == 0) {
                    out.printf(Locale.ROOT, "elastic data-parallel training on %d ranks: transformer encoder %s, batch %d per rank,"
                            + " %d steps, hook %s%n", elastic.group().size(), s.model(), s.batch(), s.steps(), s.hook());
                }
            }
            Shards shards = new Shards();
            while (trainer.steps() < s.steps()) {
                try {
                    if (elastic.boundary().block()) {
                        trainer.regroup(elastic.group()).block();
                    }
                    MeshProcessGroup g = elastic.group();
                    int step = (int) trainer.steps();
                    StepResult r;
                    try (NDManager m = data.newSubManager();
                         SyntheticTokens.Samples b = tokens.batch(shards.indices(step, g), m)) {
                        r = trainer.step(b.data(), b.labels()).block();
                    }
                    losses[step] = r.loss();
                    report(g, step, r.loss());
                } catch (CollectiveException e) {
                    MeshProcessGroup g = elastic.recover(e).block();
                    trainer.regroup(g).block();
                    out.printf(Locale.ROOT, "recovered at step %d: now rank %d of %d (generation %d)%n", trainer.steps(),
                            g.rank(), g.size(), g.generation());
                }
            }
            MeshProcessGroup g = elastic.group();
            boolean same = Boolean.TRUE.equals(trainer.parametersIdentical().block());
            g.barrier().block();
            elastic.finish().block(Duration.ofMinutes(1));
            if (g.rank() == 0) {
                log.summary(losses, (System.nanoTime() - start) / 1e6 / Math.max(1, s.steps() - firstStep), s.steps() - firstStep,
                        g.size(), same);
            }
            return same ? 0 : 1;
        }
    }

    /** This rank's shard of the data set for its generation's size, re-cut when the size changes. */
    private final class Shards {
        private int size = -1;
        private int rank = -1;
        private DistributedSampler sampler;
        private int stepsPerEpoch;
        private int epoch = -1;
        private long[] indices;

        long[] indices(int step, MeshProcessGroup g) {
            if (g.size() != size || g.rank() != rank) {
                size = g.size();
                rank = g.rank();
                sampler = DistributedSampler.builder(s.samples(), size, rank).seed(s.seed()).build();
                stepsPerEpoch = (sampler.numSamples() + s.batch() - 1) / s.batch();
                epoch = -1;
            }
            int e = step / stepsPerEpoch;
            if (e != epoch) {
                sampler.setEpoch(e);
                indices = sampler.indices();
                epoch = e;
            }
            int from = (step % stepsPerEpoch) * s.batch();
            return Arrays.copyOfRange(indices, from, Math.min(indices.length, from + s.batch()));
        }
    }

    private void report(MeshProcessGroup g, int step, double loss) {
        if (g.rank() == 0 && ((step + 1) % s.logEvery() == 0 || step + 1 == s.steps())) {
            out.printf(Locale.ROOT, "step %5d/%d  loss %.4f  (%d ranks, generation %d)%n", step + 1, s.steps(), loss, g.size(),
                    g.generation());
        }
    }

    private byte[] saveLosses() {
        ByteBuffer b = ByteBuffer.allocate(8 * losses.length);
        for (double l : losses) {
            b.putDouble(l);
        }
        return b.array();
    }

    private void restoreLosses(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        for (int i = 0; i < losses.length && b.remaining() >= 8; i++) {
            losses[i] = b.getDouble();
        }
    }
}
