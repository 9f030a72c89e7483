package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.Trainer;
import ai.djl.training.TrainingConfig;
import ai.djl.training.optimizer.Optimizer;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.AllReduceHook;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.GradBucket;
import io.reactivecollectives.core.ddp.GradientReducer;
import io.reactivecollectives.core.ddp.Parameter;
import io.reactivecollectives.core.ddp.SparseGradient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * PyTorch DDP for a DJL {@link Model}: every rank trains a replica on its own batch, and the replicas
 * stay identical because every rank starts from rank 0's parameters and applies the same averaged
 * gradient.
 *
 * <ul>
 *   <li>{@link #initialize} initializes the model, broadcasts rank 0's parameters into every rank's
 *       (straight into libtorch's memory) and checks that all ranks now hold identical parameters
 *       (a digest of every parameter's bytes, all-gathered);</li>
 *   <li>{@link #step} runs the forward and backward pass, then hands the gradients to a
 *       {@link GradientReducer} (DDP's buckets: reverse registration order, a small first bucket,
 *       25 MiB after, each averaged by the {@link CommHook}, {@link AllReduceHook} by default; with a
 *       staged backward pass a bucket of at least the first bucket's size also ends where its stage
 *       does, so it does not wait for the next), and
 *       as each bucket comes back runs the optimizer on its parameters while later buckets are
 *       still on the wire;</li>
 *   <li>{@link #accumulate} is DDP's {@code no_sync}: forward and backward only, the gradients add
 *       up locally until the next {@link #step} averages the sum.</li>
 * </ul>
 *
 * <p>Copies: the reducer's buckets are the only buffers. A gradient is copied from libtorch's memory
 * into its bucket (as soon as the backward pass ends, bucket by bucket, while earlier buckets are
 * reduced) and the average copied back into libtorch's memory; nothing of the model's size is
 * allocated per step, on the heap or off it.
 *
 * <p>What DJL does not let us overlap: its backward pass is one call into libtorch with no hook per
 * parameter, so, unlike DDP, no bucket can start before the whole backward pass ends. What overlaps
 * instead is the copying into later buckets and the optimizer's update of earlier buckets with the
 * communication of the buckets between them.
 *
 * <p>Threads: forward, backward and the optimizer run on one worker of the library's bounded
 * {@link BlockingScheduler} (never on a network thread); communication runs on the transport's.
 * DJL's PyTorch engine allows one {@code GradientCollector} per JVM at a time, so trainers of
 * several ranks in one JVM ({@code LocalCluster}) take turns for their forward and backward passes.
 * One step at a time per trainer: a step started before the previous one ended fails.
 */
public final class DistributedTrainer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DistributedTrainer.class);

    private ProcessGroup group;
    private final Trainer trainer;
    private final Optimizer optimizer;
    private final Function<ProcessGroup, CommHook> hookFactory;
    private CommHook hook;
    /** Elastic: the optimizer runs once every bucket is back, so a step that fails applies nothing. */
    private final boolean wholeSteps;
    private final long bucketCapBytes;
    private final long firstBucketBytes;
    private final Integer seed;
    private final LibtorchPasses passes;
    private final boolean stagedBackward;
    private final Predicate<String> rowSparse;
    /** The model's stages when the backward pass runs stage by stage, else null; and each stage's parameters (view indices). */
    private StagedBlock stages;
    private int[][] stageParameters;
    /** A staged pass found a gradient moved: view the gradients again before the next step. */
    private boolean rebuildNext;
    private final Scheduler compute;
    private final StepGuard guard = new StepGuard(this::where);

    private ParameterViews views;
    private GradientReducer reducer;
    private final CloseGuard closing = new CloseGuard();
    private Map<Parameter, Integer> indexOf;
    private List<Parameter> readyOrder;
    private long steps;
    /** Optimizer steps applied (a step that failed is not counted). */
    private long appliedSteps;
    /** The current step's optimizer time (written and read on the compute thread only). */
    private long optimizerNanos;

    private DistributedTrainer(Builder b) {
        this.group = b.group;
        this.optimizer = Objects.requireNonNull(b.config.getOptimizer(), "DistributedTrainer: the training config has no optimizer");
        this.hookFactory = b.hook != null ? b.hook : AllReduceHook::new;
        this.hook = group == null ? null : hookFactory.apply(group);
        this.wholeSteps = b.group == null;
        this.bucketCapBytes = b.bucketCapBytes;
        this.firstBucketBytes = b.firstBucketBytes;
        this.seed = b.seed;
        this.trainer = b.model.newTrainer(b.config);
        this.passes = new LibtorchPasses(trainer);
        this.stagedBackward = b.stagedBackward;
        this.rowSparse = b.rowSparse;
        this.compute = Schedulers.single(BlockingScheduler.get());
    }

    /**
     * A builder for a trainer of {@code model} with {@code config} (its loss, optimizer and
     * initializers) over {@code group}.
     *
     * @param model  the model, with its block set
     * @param config its training configuration (the optimizer is applied by this trainer)
     * @param group  the ranks that train together
     * @return a new builder
     */
    public static Builder builder(Model model, TrainingConfig config, ProcessGroup group) {
        return new Builder(model, config, Objects.requireNonNull(group, "group"));
    }

    /**
     * The DJL trainer underneath (for its loss, metrics and manager). Do not call its {@code step()}:
     * this trainer applies the optimizer itself.
     *
     * @return the DJL trainer
     */
    public Trainer trainer() {
        return trainer;
    }

    /**
     * The group the gradients are averaged over.
     *
     * @return the group
     */
    public ProcessGroup group() {
        return group;
    }

    /**
     * Initializes the model for inputs of {@code inputShapes}, copies rank 0's parameters into every
     * rank's (also those that take no gradient: frozen layers, running statistics) and checks that
     * all ranks hold identical parameters (running statistics aside). Cold; must complete before the
     * first {@link #step}. Fails on every rank (naming the ranks that differ) if the check fails, for
     * instance when the ranks built different models.
     *
     * @param inputShapes the shapes of one batch's inputs
     * @return a cold {@code Mono} completing when this rank holds rank 0's parameters
     */
    public Mono<Void> initialize(Shape... inputShapes) {
        return guard.run("initialize", Mono.defer(() -> {
            if (guard.agreed()) {
                return Mono.error(new IllegalStateException(where("initialize") + ": already initialized"));
            }
            // one that failed or was cancelled after its parameters were drawn is made again from its broadcast
            return (views == null ? initializeLocally(inputShapes) : Mono.<Void>empty())
                    .then(Mono.fromRunnable(() -> buildReducerOnce("initialize")).subscribeOn(compute))
                    .then(Mono.defer(() -> reducer.broadcastParameters().then(views.broadcastFixed(group))))
                    .then(checkIdentical("initialize"))
                    .then(Mono.fromRunnable(() -> guard.agreed(true)));
        }));
    }

    /** The parameters drawn and their gradients made, on this process only (nothing is sent). */
    Mono<Void> initializeLocally(Shape... inputShapes) {
        return Mono.<Void>fromRunnable(() -> {
            if (views != null) {
                throw new IllegalStateException(where("initialize") + ": already initialized");
            }
            passes.initialize(seed, inputShapes);
            passes.materializeGradients();
            closing.keep(ParameterViews.of(trainer.getModel().getBlock()), where("initialize"), v -> views = v);
        }).subscribeOn(compute);
    }

    /**
     * Moves the trainer to {@code next} (a new generation of an elastic group): a new hook and new
     * buckets for it, every gradient zeroed (a step that failed left partial sums); with
     * {@code broadcast}, rank 0's parameters are copied to every rank and checked, as in
     * {@link #initialize}.
     */
    Mono<Void> regroup(ProcessGroup next, boolean broadcast) {
        return guard.run("regroup", Mono.<Void>fromRunnable(() -> {
                    requireViews("regroup");
                    guard.agreed(false);
                    guard.clearFailure();   // the gradients are zeroed below and the state is the group's
                    closing.release(() -> {
                        if (reducer != null) {
                            reducer.close();
                            reducer = null;
                        }
                    });
                    views.zeroGradients();
                    group = next;
                    hook = hookFactory.apply(next);
                    buildReducer("regroup");
                }).subscribeOn(compute)
                .then(broadcast ? Mono.defer(() -> reducer.broadcastParameters().then(views.broadcastFixed(next))).then(checkIdentical("regroup")) : Mono.empty())
                .then(Mono.fromRunnable(() -> guard.agreed(true))));
    }

    /** The views of the trainable parameters (null before initialization). */
    ParameterViews views() {
        return views;
    }

    /** The optimizer this trainer applies. */
    Optimizer optimizer() {
        return optimizer;
    }

    /** {@return the optimizer steps applied so far} */
    long appliedSteps() {
        return appliedSteps;
    }

    /** Sets the steps applied (a joiner takes a member's count). */
    void appliedSteps(long applied) {
        this.appliedSteps = applied;
        this.steps = applied;
    }

    /**
     * Whether every rank's parameters are identical to this rank's, bit for bit (a digest of every
     * parameter's bytes, dtype and shape, frozen ones included, running statistics not; all-gathered).
     * A collective: every rank must call it.
     *
     * @return a cold {@code Mono} emitting true when all ranks hold identical parameters
     */
    public Mono<Boolean> parametersIdentical() {
        return Mono.defer(() -> {
            requireViews("parametersIdentical");
            return ParameterDigests.all(group, views, compute)
                    .map(ParameterDigests::differing)
                    .map(List::isEmpty);
        });
    }

    /**
     * One training step on this rank's batch: forward, loss, backward, the gradients averaged over
     * all ranks (added to whatever {@link #accumulate} left), and the optimizer's update. Every rank
     * must take the same number of steps ({@link DistributedSampler} gives every rank as many
     * samples). The NDArrays created during the step are closed before the step ends; {@code data}
     * and {@code labels} stay the caller's.
     *
     * @param data   the batch's inputs
     * @param labels the batch's labels
     * @return a cold {@code Mono} emitting what the step did once this rank's parameters are updated
     */
    public Mono<StepResult> step(NDList data, NDList labels) {
        return guard.runTraining("step", () -> requireInitialized("step"), Mono.defer(() -> afterFailure("step")).then(Mono.defer(() -> {
            if (rebuildNext) {
                rebuildNext = false;
                rebuildReducer();
            }
            long start = System.nanoTime();
            long n = steps + 1;
            optimizerNanos = 0;
            float[] loss = new float[1];
            long[] backwardEnd = new long[1];
            Mono<Void> applied;
            if (stages != null) {
                // the reduction listens first, so that a stage's buckets leave while earlier stages are differentiated
                Sinks.Many<Parameter> ready = Sinks.many().unicast().onBackpressureBuffer();
                Mono<Void> passes = Mono.fromRunnable(() -> {
                    loss[0] = forwardBackwardStaged(data, labels, ready);
                    backwardEnd[0] = System.nanoTime();
                });
                applied = Mono.when(apply(reducer.reduce(ready.asFlux(), this::rowsOf)), passes.doOnError(ready::tryEmitError));
            } else {
                loss[0] = passes.forwardBackward(data, labels);
                backwardEnd[0] = System.nanoTime();
                if (views.moved()) {
                    LOG.debug("rank {}: libtorch moved a gradient at step {}; viewing the gradients again", group.rank(), n);
                    rebuildReducer();
                }
                applied = apply(reducer.reduce(Flux.fromIterable(readyOrder), this::rowsOf));
            }
            return applied
                    .then(Mono.fromCallable(() -> {
                        steps = n;
                        appliedSteps++;
                        long end = System.nanoTime();
                        return new StepResult(n, loss[0], true, backwardEnd[0] - start,
                                Math.max(0, end - backwardEnd[0] - optimizerNanos), optimizerNanos, end - start);
                    }));
        }).subscribeOn(compute).onErrorResume(e -> passes.tellPeers(group, e))));
    }

    /** After a failed step or accumulation: its gradients zeroed and, before a step, the parameters checked ({@link StepGuard}). */
    private Mono<Void> afterFailure(String operation) {
        return guard.afterFailure(operation, Mono.<Void>fromRunnable(() -> views.zeroGradients()).subscribeOn(compute),
                () -> checkIdentical(operation + " after a failed one"));
    }

    /** The optimizer over the averaged buckets: bucket by bucket as each comes back, or all at the end (whole steps). */
    private Mono<Void> apply(Flux<GradBucket> averaged) {
        Flux<GradBucket> here = averaged.publishOn(compute);
        return wholeSteps ? here.collectList().doOnNext(all -> all.forEach(this::update)).then() : here.doOnNext(this::update).then();
    }

    /**
     * The staged passes: as each stage's gradients are final its parameters go to the reduction
     * (their gradients copied into the buckets, here on the compute thread), last stage first. A
     * gradient libtorch moved cannot be read through its view: the step then fails, and the next
     * one views the gradients again.
     */
    private float forwardBackwardStaged(NDList data, NDList labels, Sinks.Many<Parameter> ready) {
        float loss = passes.forwardBackwardStaged(stages, data, labels, stage -> {
            for (int i : stageParameters[stage]) {
                if (views.moved(i)) {
                    rebuildNext = true;
                    throw new IllegalStateException("DistributedTrainer.step on rank " + group.rank() + ": libtorch moved the"
                            + " gradient of parameter " + views.parameters().get(i).name() + " during the backward pass");
                }
                ready.tryEmitNext(views.parameters().get(i));
            }
        });
        ready.tryEmitComplete();
        return loss;
    }

    /**
     * DDP's {@code no_sync}: forward, loss and backward on this rank's batch, the gradients added to
     * the ones already there and not communicated; the next {@link #step} averages the sum.
     *
     * @param data   the batch's inputs
     * @param labels the batch's labels
     * @return a cold {@code Mono} emitting what the step did
     */
    public Mono<StepResult> accumulate(NDList data, NDList labels) {
        return guard.runTraining("accumulate", () -> requireInitialized("accumulate"),
                Mono.defer(() -> afterFailure("accumulate")).then(Mono.fromCallable(() -> {
            long start = System.nanoTime();
            float loss = passes.forwardBackward(data, labels);
            long end = System.nanoTime();
            return new StepResult(++steps, loss, false, end - start, 0, 0, end - start);
        }).subscribeOn(compute)));
    }

    /**
     * Wall time during which at least one bucket's hook was running, summed over all steps.
     *
     * @return nanoseconds spent communicating (overlapped or not)
     */
    public long communicationNanos() {
        return reducer == null ? 0 : reducer.communicationNanos();
    }

    /**
     * The number of trainable parameters' elements.
     *
     * @return the parameter count (0 before {@link #initialize})
     */
    public long parameterCount() {
        return views == null ? 0 : views.numel();
    }

    /**
     * How many buckets the gradients travel in.
     *
     * @return the bucket count (0 before {@link #initialize})
     */
    public int bucketCount() {
        return reducer == null ? 0 : reducer.bucketCount();
    }

    /**
     * Releases the buckets and views and closes the DJL trainer; every call after it fails saying the
     * trainer is closed. Call when no step is running: one still running fails, on this rank, saying
     * the trainer was closed while it ran (its peers wait in its collectives until their timeout).
     */
    @Override
    public void close() {
        guard.close();
        closing.close(() -> {
            if (reducer != null) {
                reducer.close();
            }
            if (views != null) {
                views.close();
            }
        });
        trainer.close();
        compute.dispose();
    }

    // ------------------------------------------------------------------ on the compute thread

    /** The views (if none yet) and the reducer over them; {@code operation} names the caller in errors. */
    private void buildReducer(String operation) {
        if (views == null) {
            closing.keep(ParameterViews.of(trainer.getModel().getBlock()), where(operation), v -> views = v);
        }
        Map<Parameter, Integer> index = new IdentityHashMap<>();
        List<Parameter> ps = views.parameters();
        for (int i = 0; i < ps.size(); i++) {
            index.put(ps.get(i), i);
        }
        indexOf = index;
        List<Parameter> reversed = new ArrayList<>(ps);
        Collections.reverse(reversed); // the backward pass ends with the first layers: last layers' buckets first
        readyOrder = List.copyOf(reversed);
        planStages();
        closing.keep(BucketPlan.reducer(group, hook, ps, index, bucketCapBytes, firstBucketBytes, stageParameters, rowSparse),
                where(operation), r -> reducer = r);
    }

    private void buildReducerOnce(String operation) {
        if (reducer == null) {
            buildReducer(operation);
        }
    }

    /** Each stage's parameters when the model has stages and the backward pass may run by them. */
    private void planStages() {
        StagedBlock staged = stagedBackward ? StagedBlock.of(trainer.getModel().getBlock()) : null;
        stageParameters = staged == null ? null : StagePlan.of(staged, views);
        stages = staged;
    }

    private void rebuildReducer() {
        closing.release(() -> {
            reducer.close();
            views.close();
            views = null;
        });
        buildReducer("step");
    }

    /** The rows of a parameter sent by rows ({@link Builder#rowSparseGradients}), read from its gradient. */
    private SparseGradient rowsOf(Parameter p) {
        return RowSparseGradients.of(views.array(indexOf.get(p)), p.name());
    }

    /** The optimizer's update of one averaged bucket's parameters, then their gradients zeroed. */
    private void update(GradBucket bucket) {
        long start = System.nanoTime();
        for (Parameter p : bucket.parameters()) {
            views.update(optimizer, indexOf.get(p));
        }
        optimizerNanos += System.nanoTime() - start;
    }

    /** Every rank's digest of its parameters and its optimizer's class (a collective). */
    private Mono<Void> checkIdentical(String operation) {
        return Mono.defer(() -> ParameterDigests.check(group, views, optimizer, compute, "DistributedTrainer." + operation));
    }

    /** {@code operation} as error messages name it, with this rank. */
    private String where(String operation) {
        return "DistributedTrainer." + operation + (group == null ? "" : " on rank " + group.rank());
    }

    private void requireViews(String operation) {
        StepGuard.requireViews(views != null, where(operation));
    }

    private void requireInitialized(String operation) {
        guard.requireReady(operation, views != null, reducer != null, where(operation));
    }

    /** Settings of a {@link DistributedTrainer}. */
    public static final class Builder {
        private final Model model;
        private final TrainingConfig config;
        private final ProcessGroup group;
        private Function<ProcessGroup, CommHook> hook;
        private long bucketCapBytes;
        private long firstBucketBytes;
        private Integer seed;
        private boolean stagedBackward = true;
        private Predicate<String> rowSparse = name -> false;

        /** {@code group} null: an {@link ElasticTrainer}'s, in a group only once attached, its steps whole. */
        Builder(Model model, TrainingConfig config, ProcessGroup group) {
            this.model = Objects.requireNonNull(model, "model");
            this.config = Objects.requireNonNull(config, "config");
            this.group = group;
            if (model.getBlock() == null) {
                throw new IllegalArgumentException("DistributedTrainer: the model has no block (Model.setBlock)");
            }
        }

        /**
         * The hook that averages each bucket, made for the group (default {@link AllReduceHook};
         * {@code Fp16CompressHook}, {@code Bf16CompressHook} and {@code PowerSgdHook} compress).
         *
         * @param hook a function from the group to the hook
         * @return this builder
         */
        public Builder hook(Function<ProcessGroup, CommHook> hook) {
            this.hook = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * The most bytes of gradients per bucket (DDP's {@code bucket_cap_mb}; default 25 MiB).
         *
         * @param bytes the bucket cap, positive
         * @return this builder
         */
        public Builder bucketCapBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("DistributedTrainer: bucket cap must be positive, got " + bytes);
            }
            this.bucketCapBytes = bytes;
            return this;
        }

        /**
         * The first bucket's cap (DDP's 1 MiB by default), so that communication starts early.
         *
         * @param bytes the first bucket's cap, positive
         * @return this builder
         */
        public Builder firstBucketBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("DistributedTrainer: first bucket cap must be positive, got " + bytes);
            }
            this.firstBucketBytes = bytes;
            return this;
        }

        /**
         * The parameters, by name, whose gradients travel as their rows, as DDP sends an
         * {@code nn.Embedding(sparse=True)}'s (default none): an embedding's table, of which a batch
         * touches few rows. Each step the rows of the gradient holding anything but zeros are
         * gathered by libtorch and summed across the ranks ({@code ProcessGroup.allReduceSparse}, by
         * {@code AllReduceHook}; the compressing hooks send them dense), and the average is written
         * back dense, so the update is the one the dense all-reduce gives. It pays when the ranks
         * together touch a small share of the rows; every rank must name the same parameters.
         *
         * @param parameterName true for the parameters to send by rows
         * @return this builder
         */
        public Builder rowSparseGradients(Predicate<String> parameterName) {
            this.rowSparse = Objects.requireNonNull(parameterName, "parameterName");
            return this;
        }

        /**
         * Seeds the engine's generator just before the initializers draw the parameters, so that
         * rank 0's initial parameters (which every rank receives) repeat from run to run, also when
         * several ranks share a JVM and its one generator (seeding and drawing are then done by one
         * rank at a time). Without it the parameters follow whatever state the generator is in.
         *
         * @param seed the seed ({@code Engine.setRandomSeed})
         * @return this builder
         */
        public Builder seed(int seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Whether the backward pass runs stage by stage when the model has stages (a
         * {@link StagedBlock}, or a {@code SequentialBlock}'s children), so that the last stages'
         * buckets are on the wire while earlier stages are differentiated (default true). False:
         * one backward pass, then every bucket.
         *
         * @param staged whether to stage the backward pass
         * @return this builder
         */
        public Builder stagedBackward(boolean staged) {
            this.stagedBackward = staged;
            return this;
        }

        /**
         * The trainer (creates the DJL trainer; nothing is sent until {@link #initialize}).
         *
         * @return a new trainer
         */
        public DistributedTrainer build() {
            return new DistributedTrainer(this);
        }
    }
}
