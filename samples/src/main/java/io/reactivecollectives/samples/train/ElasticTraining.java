package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ElasticState;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.Parameter;
import io.reactivecollectives.transport.ElasticGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The main job's training, elastic: run under {@code collectives-run --max-restarts N}, a rank that
 * dies is shrunk out by the others, which go on from the step they were on; its restarted process
 * asks to join, is admitted at the next step's boundary with the model, the momentum buffers, the
 * step and the losses so far streamed to it, and the group is back at full size. Each step is
 * applied once: a step whose gradient all-reduce failed is taken again on the shrunk group, and a
 * survivor that had applied it while another had not hands its state to the others
 * ({@link ElasticState#version()}).
 *
 * <p>The steps run on the main thread of the rank's process (the program's own thread, which may
 * wait), each rank's slice of a step's global batch following its rank in the generation.
 */
final class ElasticTraining implements ElasticState {

    private final TrainConfig cfg;
    private final Mlp mlp;
    private final PrintStream out;
    private final double[] losses;
    private long step;
    private final BatchSource source;

    ElasticTraining(TrainConfig cfg, PrintStream out) {
        this.cfg = cfg;
        this.out = out;
        this.mlp = new Mlp(cfg.dims(), cfg.seed() * 31);
        this.losses = new double[cfg.steps()];
        this.source = BatchSource.synthetic(new SyntheticTask(cfg.seed(), cfg.dims()[0], cfg.dims()[cfg.dims().length - 1]));
    }

    @Override
    public String fingerprint() {
        return fingerprint(cfg);
    }

    /**
     * What a joiner must share with the members to be admitted: the model and every setting that
     * changes the training (a replacement with another learning rate or momentum would otherwise
     * train on with it, and the ranks' parameters would part). The hook and streaming are in too,
     * although this loop reduces the gradients itself: a joiner that asked for others is refused.
     */
    static String fingerprint(TrainConfig cfg) {
        return "collectives-train MLP " + Arrays.toString(cfg.dims()) + " seed " + cfg.seed() + " steps " + cfg.steps()
                + " batch " + cfg.batch() + " lr " + Float.floatToIntBits(cfg.lr()) + " (" + cfg.lr() + ") momentum "
                + Float.floatToIntBits(cfg.momentum()) + " (" + cfg.momentum() + ") hook " + cfg.hook()
                + " streaming " + cfg.streaming();
    }

    @Override
    public List<Tensor> tensors() {
        return mlp.exportState();
    }

    @Override
    public byte[] metadata() {
        ByteBuffer b = ByteBuffer.allocate(8 + 8 * (int) step);
        b.putLong(step);
        for (int i = 0; i < step; i++) {
            b.putDouble(losses[i]);
        }
        return b.array();
    }

    @Override
    public void restore(byte[] metadata) {
        mlp.importState();
        ByteBuffer b = ByteBuffer.wrap(metadata);
        step = b.getLong();
        for (int i = 0; i < step; i++) {
            losses[i] = b.getDouble();
        }
    }

    @Override
    public long version() {
        return step;
    }

    /**
     * Trains to the last step on the group the environment describes, as a member or as a joiner.
     *
     * @param options the group's options
     * @return 0 when every rank ended with identical parameters (or this process asked to join after
     *         the job ended), 1 otherwise (also when this process left the job: excluded from the group,
     *         or no quorum; the launcher then restarts it and it joins)
     */
    int run(GroupOptions options) {
        try {
            return train(options);
        } catch (io.reactivecollectives.core.JobEndedException e) {
            out.println("collectives-train: " + e.getMessage());
            return 0;   // a restart (or a host come back) too late: the job is done without it
        } catch (RuntimeException e) {
            out.println("collectives-train: this process leaves the job at step " + step + ": " + e.getMessage());
            return 1;
        }
    }

    private int train(GroupOptions options) {
        long start = System.nanoTime();
        try (ElasticGroup elastic = ElasticGroup.fromEnvironment(this, options).block()) {
            ElasticLog log = ElasticLog.follow(elastic, out);
            if (elastic.joined()) {
                out.printf(Locale.ROOT, "joined the running job as rank %d of %d at step %d%n", elastic.group().rank(),
                        elastic.group().size(), step);
            }
            long firstStep = step;   // a joiner's steps begin where the members were
            float[] x = new float[cfg.batch() * cfg.dims()[0]];
            int[] labels = new int[cfg.batch()];
            List<Tensor> grads = mlp.parameters().stream().map(Parameter::grad).toList();
            while (step < cfg.steps()) {
                try {
                    elastic.boundary().block();
                    MeshProcessGroup g = elastic.group();
                    int s = (int) step;
                    source.batch(s, g.rank(), g.size(), x, labels);
                    double loss = mlp.forward(x, labels, cfg.batch());
                    mlp.backward(mlp::pushGradient);
                    g.allReduceCoalesced(grads, ReduceOp.AVG, io.reactivecollectives.core.CollectiveOptions.DEFAULT).block();
                    mlp.pullGradients();
                    mlp.step(cfg.lr(), cfg.momentum());
                    losses[s] = loss;
                    step++;
                    report(g, s, loss);
                } catch (CollectiveException e) {
                    MeshProcessGroup g = elastic.recover(e).block();
                    out.printf(Locale.ROOT, "recovered at step %d: now rank %d of %d (generation %d)%n", step,
                            g.rank(), g.size(), g.generation());
                }
            }
            MeshProcessGroup g = elastic.group();
            boolean same = Boolean.TRUE.equals(DataParallelTraining.sameOnAllRanks(g, mlp.flatValues()).block());
            g.barrier().block();
            elastic.finish().block();   // a process still asking to join is told the job ended
            if (g.rank() == 0) {
                log.summary(losses, (System.nanoTime() - start) / 1e6 / Math.max(1, cfg.steps() - firstStep),
                        cfg.steps() - firstStep, g.size(), same);
            }
            return same ? 0 : 1;
        } finally {
            mlp.close();
        }
    }

    private void report(MeshProcessGroup g, int s, double loss) {
        if (g.rank() == 0 && cfg.logEvery() > 0 && (s + 1) % cfg.logEvery() == 0) {
            out.printf(Locale.ROOT, "step %5d/%d  loss %.4f  (%d ranks, generation %d)%n", s + 1, cfg.steps(), loss,
                    g.size(), g.generation());
        }
    }
}
