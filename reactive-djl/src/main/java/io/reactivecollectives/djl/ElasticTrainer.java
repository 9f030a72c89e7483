package io.reactivecollectives.djl;

import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.Trainer;
import ai.djl.training.TrainingConfig;
import io.reactivecollectives.core.ElasticState;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.Parameter;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A {@link DistributedTrainer} whose group may change while it trains (an elastic group of
 * {@code reactive-transport}: a lost rank shrunk out, a restarted one admitted), and the
 * {@link ElasticState} such a group hands to a joiner: the parameters and the optimizer's state
 * (momentum, Adam's moments, update counts) as tensors over libtorch's memory, and the optimizer
 * steps taken, with whatever the application adds.
 *
 * <pre>{@code
 * ElasticTrainer trainer = ElasticTrainer.builder(model, config).seed(7).build();
 * trainer.initialize(inputShape).block();                 // local: nothing sent yet
 * try (ElasticGroup elastic = ElasticGroup.fromEnvironment(trainer, options).block()) {
 *     if (elastic.joined()) {
 *         trainer.regroup(elastic.group()).block();       // the state came from a member
 *     } else {
 *         trainer.begin(elastic.group()).block();          // rank 0's parameters everywhere, checked
 *     }
 *     while (trainer.steps() < steps) {
 *         try {
 *             if (elastic.boundary().block()) {
 *                 trainer.regroup(elastic.group()).block();
 *             }
 *             trainer.step(batch(trainer.steps(), elastic.group()), labels(...)).block();
 *         } catch (CollectiveException e) {
 *             elastic.recover(e).block();
 *             trainer.regroup(elastic.group()).block();
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>A step is whole: the optimizer runs once every bucket is back (not bucket by bucket as
 * {@link DistributedTrainer} does), so a step whose communication fails changes nothing on this
 * rank; {@link #steps()} counts the steps applied and is the state's {@link #version()}, so that
 * survivors on which the failed step did complete hand their state to the others. A hook's own
 * state (PowerSGD's error feedback) starts again with each generation.
 */
public final class ElasticTrainer implements ElasticState, AutoCloseable {

    private final DistributedTrainer trainer;
    private final OptimizerState optimizerState;
    private final String name;
    private final Supplier<byte[]> saveExtra;
    private final Consumer<byte[]> restoreExtra;
    /** The views handed out by the last {@link #tensors()}, released at the next call or at close. */
    private List<Tensor> lent = List.of();

    private ElasticTrainer(Builder b) {
        this.trainer = b.inner.build();
        try {
            this.optimizerState = OptimizerState.of(trainer.optimizer());
        } catch (RuntimeException e) {
            trainer.close();
            throw e;
        }
        this.name = b.model.getName();
        this.saveExtra = b.saveExtra;
        this.restoreExtra = b.restoreExtra;
    }

    /**
     * A builder for an elastic trainer of {@code model} with {@code config} (its loss, optimizer and
     * initializers). Its optimizer's state must be one {@link ElasticTrainer} can read: any of DJL's
     * own optimizers; another is refused by {@link Builder#build()}.
     *
     * @param model  the model, with its block set
     * @param config its training configuration
     * @return a new builder
     */
    public static Builder builder(Model model, TrainingConfig config) {
        return new Builder(model, config);
    }

    /**
     * Initializes the model's parameters on this process only (nothing is sent): a joiner's are then
     * overwritten by a member's, a first member's by rank 0's in {@link #begin}. Cold.
     *
     * @param inputShapes the shapes of one batch's inputs
     * @return a cold {@code Mono} completing when the parameters exist
     */
    public Mono<Void> initialize(Shape... inputShapes) {
        return trainer.initializeLocally(inputShapes);
    }

    /**
     * Starts training in {@code group} as one of its first members: rank 0's parameters are copied
     * to every rank and checked (as {@link DistributedTrainer#initialize}). A collective.
     *
     * @param group the group's first generation
     * @return a cold {@code Mono} completing when this rank holds rank 0's parameters
     */
    public Mono<Void> begin(ProcessGroup group) {
        return trainer.regroup(Objects.requireNonNull(group, "group"), true);
    }

    /**
     * Goes on in a new generation of the group (after a join, at a boundary that admitted someone,
     * or after a recovery): new buckets and hook for it, the gradients of a failed step dropped.
     * Nothing is sent.
     *
     * @param group the new generation's group on this rank
     * @return a cold {@code Mono} completing when the trainer works in {@code group}
     */
    public Mono<Void> regroup(ProcessGroup group) {
        return trainer.regroup(Objects.requireNonNull(group, "group"), false);
    }

    /**
     * One whole step (see {@link DistributedTrainer#step}): nothing is applied unless every bucket
     * came back.
     *
     * @param data   the batch's inputs
     * @param labels the batch's labels
     * @return a cold {@code Mono} emitting what the step did
     */
    public Mono<StepResult> step(NDList data, NDList labels) {
        return trainer.step(data, labels);
    }

    /**
     * Whether every rank's parameters are identical to this rank's (a collective).
     *
     * @return a cold {@code Mono} emitting true when they are
     */
    public Mono<Boolean> parametersIdentical() {
        return trainer.parametersIdentical();
    }

    /** {@return the optimizer steps applied, on this process or (for a joiner) before it joined} */
    public long steps() {
        return trainer.appliedSteps();
    }

    /** {@return the trainer underneath (counters; do not step it directly)} */
    public DistributedTrainer distributed() {
        return trainer;
    }

    /** {@return the DJL trainer underneath} */
    public Trainer trainer() {
        return trainer.trainer();
    }

    @Override
    public String fingerprint() {
        return "DJL model " + name + ", optimizer " + optimizerState.describe() + ", "
                + ElasticState.layoutOf(values());
    }

    @Override
    public List<Tensor> tensors() {
        release();
        List<Tensor> state = optimizerState.views(requireViews());
        lent = state;
        List<Tensor> all = new ArrayList<>(values());
        all.addAll(state);
        return all;
    }

    @Override
    public byte[] metadata() {
        byte[] counts = optimizerState.counts(requireViews());
        byte[] extra = saveExtra == null ? new byte[0] : saveExtra.get();
        return ByteBuffer.allocate(8 + counts.length + 4 + extra.length)
                .putLong(trainer.appliedSteps())
                .put(counts)
                .putInt(extra.length).put(extra)
                .array();
    }

    @Override
    public void restore(byte[] metadata) {
        ByteBuffer b = ByteBuffer.wrap(metadata);
        long applied = b.getLong();
        optimizerState.restoreCounts(b, requireViews());
        byte[] extra = new byte[b.getInt()];
        b.get(extra);
        trainer.appliedSteps(applied);
        if (restoreExtra != null) {
            restoreExtra.accept(extra);
        }
    }

    @Override
    public long version() {
        return trainer.appliedSteps();
    }

    /** Releases the views lent to the group and closes the trainer underneath. */
    @Override
    public void close() {
        release();
        trainer.close();
    }

    private List<Tensor> values() {
        List<Tensor> values = new ArrayList<>();
        for (Parameter p : requireViews().parameters()) {
            values.add(p.value());
        }
        values.addAll(requireViews().fixed());   // a joiner takes the frozen layers and running statistics too
        return values;
    }

    private ParameterViews requireViews() {
        ParameterViews views = trainer.views();
        if (views == null) {
            throw new IllegalStateException("ElasticTrainer of model " + name + ": call initialize(inputShapes) before "
                    + "joining a group (a joiner's parameters must exist to be overwritten)");
        }
        return views;
    }

    private void release() {
        lent.forEach(Tensor::release);
        lent = List.of();
    }

    /** Settings of an {@link ElasticTrainer} (those of {@link DistributedTrainer.Builder}, plus the application's state). */
    public static final class Builder {
        private final Model model;
        private final DistributedTrainer.Builder inner;
        private Supplier<byte[]> saveExtra;
        private Consumer<byte[]> restoreExtra;

        private Builder(Model model, TrainingConfig config) {
            this.model = model;
            this.inner = new DistributedTrainer.Builder(model, config, null);
        }

        /**
         * The hook for each generation's group (see {@link DistributedTrainer.Builder#hook}).
         *
         * @param hook a function from a group to its hook
         * @return this builder
         */
        public Builder hook(Function<ProcessGroup, CommHook> hook) {
            inner.hook(hook);
            return this;
        }

        /**
         * The bucket cap (see {@link DistributedTrainer.Builder#bucketCapBytes}).
         *
         * @param bytes positive
         * @return this builder
         */
        public Builder bucketCapBytes(long bytes) {
            inner.bucketCapBytes(bytes);
            return this;
        }

        /**
         * The first bucket's cap (see {@link DistributedTrainer.Builder#firstBucketBytes}).
         *
         * @param bytes positive
         * @return this builder
         */
        public Builder firstBucketBytes(long bytes) {
            inner.firstBucketBytes(bytes);
            return this;
        }

        /**
         * The seed of the initial parameters (see {@link DistributedTrainer.Builder#seed}).
         *
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(int seed) {
            inner.seed(seed);
            return this;
        }

        /**
         * Whether the backward pass runs by the model's stages (see
         * {@link DistributedTrainer.Builder#stagedBackward}).
         *
         * @param staged whether to stage it
         * @return this builder
         */
        public Builder stagedBackward(boolean staged) {
            inner.stagedBackward(staged);
            return this;
        }

        /**
         * The application's own state beyond the trainer's (a loss history, a data loader's
         * position that does not follow from {@link #steps()}), handed to joiners with it.
         *
         * @param save    encodes it (a few megabytes at most), on a member
         * @param restore takes a member's encoding, on a joiner (or a survivor that was behind)
         * @return this builder
         */
        public Builder applicationState(Supplier<byte[]> save, Consumer<byte[]> restore) {
            this.saveExtra = Objects.requireNonNull(save, "save");
            this.restoreExtra = Objects.requireNonNull(restore, "restore");
            return this;
        }

        /**
         * The trainer (creates the DJL trainer; reads where its optimizer keeps its state).
         *
         * @return a new elastic trainer
         * @throws IllegalArgumentException when the optimizer's state cannot be read
         */
        public ElasticTrainer build() {
            return new ElasticTrainer(this);
        }
    }
}
