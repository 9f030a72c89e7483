package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.AllReduceHook;
import io.reactivecollectives.core.ddp.Bf16CompressHook;
import io.reactivecollectives.core.ddp.BroadcastCoalesced;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.Fp16CompressHook;
import io.reactivecollectives.core.ddp.GradientReducer;
import io.reactivecollectives.core.ddp.PowerSgdHook;
import io.reactivecollectives.core.ddp.PowerSgdState;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.io.PrintStream;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Data-parallel training of an {@link Mlp} on a {@link SyntheticTask} (or any {@link BatchSource}) over a {@link ProcessGroup}:
 * every rank starts from rank 0's weights (broadcast), computes the gradient of its slice of each
 * global batch, averages gradients across ranks, and takes the same SGD step, so all ranks keep the
 * same parameters as one process training on the whole global batch.
 *
 * <p>Two ways to average gradients:
 * <ul>
 *   <li>bucketed ({@link GradientReducer}, the DDP way): as the backward pass finishes each layer
 *       its parameters are marked ready and a full bucket's hook starts at once, overlapping
 *       communication with the backward pass of earlier layers;</li>
 *   <li>streaming: the backward pass is a {@code Flux<Chunk>} that computes the next layer's
 *       gradient only when {@link ProcessGroup#allReduceStream} asks for another chunk, so at most
 *       {@code prefetch} layers' gradients are in flight (back-pressure end to end).</li>
 * </ul>
 * Computation runs on a dedicated single-thread scheduler (never on a transport event loop).
 */
public final class DataParallelTrainer {


    private final TrainConfig cfg;
    private final PrintStream out;
    private final int progressColumns;
    private final BatchSource source;

    /** A trainer printing to {@code out}, its progress bar (if any) within 80 columns. */
    public DataParallelTrainer(TrainConfig cfg, PrintStream out) {
        this(cfg, out, 80);
    }

    /**
     * A trainer printing to {@code out}, its progress bar (if any) within {@code progressColumns}
     * columns less one (a line that fills the last column wraps on some terminals).
     */
    public DataParallelTrainer(TrainConfig cfg, PrintStream out, int progressColumns) {
        this(cfg, out, progressColumns, null);
    }

    /**
     * A trainer reading its batches from {@code source} (null: the {@link SyntheticTask} of the
     * config's seed, {@link BatchSource#synthetic}), printing to {@code out}.
     */
    public DataParallelTrainer(TrainConfig cfg, PrintStream out, int progressColumns, BatchSource source) {
        this.cfg = cfg;
        this.out = out;
        this.progressColumns = progressColumns;
        this.source = source != null ? source
                : BatchSource.synthetic(new SyntheticTask(cfg.seed(), cfg.dims()[0], cfg.dims()[cfg.dims().length - 1]));
    }

    /** The progress bar of {@code steps} steps, written to {@code sink}, each line at most {@code columns - 1} characters. */
    static ProgressBarBuilder progressBar(int steps, int columns, PrintStream sink) {
        return new ProgressBarBuilder()
                .setTaskName("train")
                .setInitialMax(steps)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(100)
                .continuousUpdate()
                .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(sink, Math.max(10, columns - 1)));
    }

    /**
     * Trains on {@code group}; a cold {@code Mono} emitting this rank's result, or the first
     * collective's error.
     */
    public Mono<TrainResult> train(ProcessGroup group) {
        return Mono.defer(() -> {
            // one thread that may block (it prints), fed through Reactor's queues (no lock parks on event
            // loops): one worker of the shared blocking scheduler. Not a scheduler of its own: disposing
            // that at the end shut its executor down while an event loop could still be inside submit()
            // of the last step's hand-over (the task already run), whose clean-up then parks on the
            // executor's lock (BlockHound caught it). Disposing a worker shuts nothing down.
            Scheduler trainer = Schedulers.single(BlockingScheduler.get());
            Run run = new Run(group, trainer);
            return run.start().doFinally(s -> {
                run.close();
                trainer.dispose();
            });
        });
    }

    private final class Run {
        final ProcessGroup group;
        final Scheduler trainer;
        final int rank;
        final int world;
        final Mlp mlp;
        final float[] x;
        final int[] labels;
        final double[] losses;
        GradientReducer reducer;
        Tensor streamGrads;
        ProgressBar bar;
        long timedStart;
        long commNanos;
        long exposedNanos;
        long commAtWarmup;

        Run(ProcessGroup group, Scheduler trainer) {
            this.group = group;
            this.trainer = trainer;
            this.rank = group.rank();
            this.world = group.size();
            this.mlp = new Mlp(cfg.dims(), cfg.seed() * 31 + rank); // different per rank on purpose: the broadcast fixes it
            this.x = new float[cfg.batch() * cfg.dims()[0]];
            this.labels = new int[cfg.batch()];
            this.losses = new double[cfg.steps()];
        }

        Mono<TrainResult> start() {
            Mono<Void> broadcast;
            if (cfg.streaming()) {
                streamGrads = Tensor.zeros(DType.FLOAT32, mlp.parameterCount());
                List<Tensor> values = new ArrayList<>();
                mlp.parameters().forEach(p -> values.add(p.value()));
                broadcast = BroadcastCoalesced.broadcastCoalesced(group, values, GradientReducer.DEFAULT_BROADCAST_BUFFER_BYTES, 0).then();
            } else {
                reducer = GradientReducer.builder(group)
                        .parameters(mlp.parameters())
                        .hook(hook())
                        .bucketCapBytes(cfg.bucketCapBytes())
                        .firstBucketBytes(cfg.firstBucketBytes())
                        .build();
                broadcast = reducer.broadcastParameters();
            }
            return broadcast
                    .publishOn(trainer)
                    .then(Mono.fromRunnable(this::begin))
                    .thenMany(Flux.range(0, cfg.steps()).concatMap(this::step, 0))
                    .then(Mono.fromCallable(this::result));
        }

        CommHook hook() {
            switch (cfg.hook().toLowerCase(Locale.ROOT)) {
                case "allreduce": return new AllReduceHook(group);
                case "fp16": return new Fp16CompressHook(group);
                case "bf16": return new Bf16CompressHook(group);
                case "powersgd": return new PowerSgdHook(PowerSgdState.of(group, 2, 100));
                default: throw new IllegalArgumentException("unknown hook '" + cfg.hook() + "'; expected allreduce, fp16, bf16 or powersgd");
            }
        }

        void begin() {
            mlp.pullValues();
            if (rank == 0 && cfg.progressBar()) {
                bar = progressBar(cfg.steps(), progressColumns, System.err).build();
            }
        }

        /** One step: forward and backward on the trainer thread, gradients averaged, SGD step. */
        Mono<Double> step(int step) {
            if (step == cfg.warmupSteps() || (step == 0 && cfg.steps() <= cfg.warmupSteps())) {
                timedStart = System.nanoTime();
                commNanos = 0;
                exposedNanos = 0;
                commAtWarmup = reducer == null ? 0 : reducer.communicationNanos();
            }
            return Mono.fromCallable(() -> {
                source.batch(step, rank, world, x, labels);
                return mlp.forward(x, labels, cfg.batch());
            }).subscribeOn(trainer)
                    .flatMap(loss -> (cfg.streaming() ? streamingBackward() : bucketedBackward()).thenReturn(loss))
                    .publishOn(trainer)
                    .map(loss -> {
                        mlp.step(cfg.lr(), cfg.momentum());
                        losses[step] = loss;
                        report(step, loss);
                        return loss;
                    });
        }

        /** Backward pass marking each layer's parameters ready as soon as they are computed. */
        Mono<Void> bucketedBackward() {
            mlp.backward(l -> {
                mlp.pushGradient(l);
                reducer.markReady(mlp.weight(l));
                reducer.markReady(mlp.bias(l));
            });
            long waitStart = System.nanoTime();
            return reducer.finish().doOnSuccess(v -> {
                exposedNanos += System.nanoTime() - waitStart;
                mlp.pullGradients();
            });
        }

        /**
         * Backward pass as a back-pressured stream: each request from {@code allReduceStream}
         * computes one more layer's gradient (last layer first) on the trainer thread and emits it as
         * a chunk; reduced chunks are read back into the gradients, divided by the world size.
         */
        Mono<Void> streamingBackward() {
            int layers = mlp.layerCount();
            long[] offsets = new long[layers];
            long off = 0;
            for (int l = layers - 1; l >= 0; l--) {
                offsets[l] = off;
                off += mlp.layerSize(l);
            }
            long[] commStart = new long[1];
            long[] backwardEnd = new long[1];
            float scale = 1f / world;
            Flux<Chunk> chunks = Flux.<Chunk, Integer>generate(() -> layers - 1, (l, sink) -> {
                mlp.backwardLayer(l);
                Tensor view = streamGrads.narrow(offsets[l], mlp.layerSize(l));
                FloatBuffer fb = Mlp.floats(view);
                mlp.copyGradient(l, fb);
                if (commStart[0] == 0) {
                    commStart[0] = System.nanoTime();
                }
                sink.next(new Chunk(layers - 1 - l, offsets[l], view));
                if (l == 0) {
                    backwardEnd[0] = System.nanoTime();
                    sink.complete();
                }
                return l - 1;
            }).subscribeOn(trainer, true);
            return group.allReduceStream(chunks, ReduceOp.SUM, cfg.prefetch())
                    .doOnNext(c -> mlp.readGradient(layers - 1 - c.index(), Mlp.floats(c.tensor()), scale))
                    .then()
                    .doOnSuccess(v -> {
                        long now = System.nanoTime();
                        commNanos += now - commStart[0];
                        exposedNanos += now - backwardEnd[0];
                    });
        }

        void report(int step, double loss) {
            if (rank != 0) {
                return;
            }
            if (bar != null) {
                bar.step();
                bar.setExtraMessage(String.format(Locale.ROOT, " loss %.4f", loss));
            }
            if (cfg.logEvery() > 0 && (step + 1) % cfg.logEvery() == 0) {
                double elapsed = (System.nanoTime() - timedStart) / 1e6;
                int timed = step + 1 - (cfg.steps() <= cfg.warmupSteps() ? 0 : cfg.warmupSteps());
                String speed = timed > 0 && step >= cfg.warmupSteps()
                        ? String.format(Locale.ROOT, ", %.3f ms/step", elapsed / timed) : "";
                double mean = 0;
                for (int k = step + 1 - cfg.logEvery(); k <= step; k++) {
                    mean += losses[k];
                }
                mean /= cfg.logEvery();
                String line = String.format(Locale.ROOT, "step %5d/%d  loss %.4f  (mean of the last %d: %.4f)%s",
                        step + 1, cfg.steps(), loss, cfg.logEvery(), mean, speed);
                if (bar == null) {
                    out.println(line);
                }
            }
        }

        TrainResult result() {
            closeBar();
            long elapsed = System.nanoTime() - timedStart;
            int timed = cfg.steps() <= cfg.warmupSteps() ? cfg.steps() : cfg.steps() - cfg.warmupSteps();
            double ms = timed == 0 ? 0 : elapsed / 1e6 / timed;
            long comm = reducer != null ? reducer.communicationNanos() - commAtWarmup : commNanos;
            double share = elapsed == 0 ? 0 : (double) comm / elapsed;
            double exposed = elapsed == 0 ? 0 : (double) exposedNanos / elapsed;
            double sps = elapsed == 0 ? 0 : (double) timed * cfg.batch() * world / (elapsed / 1e9);
            return new TrainResult(rank, world, mlp.flatValues(), losses.clone(), ms, share, exposed, sps);
        }

        /** Closes the bar once: each close() of a ProgressBar draws its last line again (the 100% line twice). */
        void closeBar() {
            if (bar != null) {
                bar.close();
                bar = null;
            }
        }

        void close() {
            if (reducer != null) {
                reducer.close();
            }
            if (streamGrads != null) {
                streamGrads.release();
            }
            closeBar();
            mlp.close();
        }
    }
}
