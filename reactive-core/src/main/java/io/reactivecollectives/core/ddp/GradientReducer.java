package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.ddp.IterationBuckets.Ready;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * DDP's gradient reducer (c10d's {@code Reducer}) for CPU parameters: parameters are assigned to
 * buckets once ({@link BucketAssignment}: reverse registration order, 1 MiB first bucket, 25 MiB
 * after by default), and in each iteration a bucket's {@link CommHook} runs as soon as the last of
 * its gradients is marked ready, so communication overlaps the rest of the backward pass. Buckets are
 * launched in index order on every rank (a bucket ready early waits for the ones before it to be
 * launched), so all ranks issue their collectives in the same order. When a hook's result arrives it
 * is copied into each parameter's gradient.
 *
 * <p>Two ways to drive an iteration:
 * <ul>
 *   <li>reactive: {@link #reduce(Flux)} takes the stream of parameters whose gradients are ready and
 *       emits each bucket once its gradients are reduced and copied back;</li>
 *   <li>imperative, as a backward pass does: {@link #markReady(Parameter)} after each gradient is
 *       computed, then {@link #finish()}, a {@code Mono} completing once all buckets are reduced.</li>
 * </ul>
 * A gradient must not be written between being marked ready and the end of the iteration. Every
 * parameter must be marked ready once per iteration. Before the first iteration, call
 * {@link #broadcastParameters()} so that every rank starts from rank 0's values.
 *
 * <p>The reducer owns its bucket buffers ({@link #close()} releases them); the parameters' tensors
 * stay the caller's.
 */
public final class GradientReducer implements AutoCloseable {

    /** PyTorch DDP's {@code broadcast_bucket_size}: 250 MiB. */
    public static final long DEFAULT_BROADCAST_BUFFER_BYTES = 250L << 20;

    private final ProcessGroup group;
    private final List<Parameter> parameters;
    private final CommHook hook;
    private final int maxBucketsInFlight;
    private final long broadcastBufferBytes;
    private final List<List<Integer>> assignment;
    private final BucketLayout layout;
    private final GradBucket[] denseBuckets;

    private final BucketCommunication communication;

    private Iteration current;
    private boolean closed;

    private GradientReducer(Builder b) {
        this.group = b.group;
        this.parameters = List.copyOf(b.parameters);
        if (parameters.isEmpty()) {
            throw new IllegalArgumentException("GradientReducer: no parameters registered");
        }
        this.hook = b.hook != null ? b.hook : new AllReduceHook(group);
        this.communication = new BucketCommunication(hook);
        this.maxBucketsInFlight = b.maxBucketsInFlight;
        this.broadcastBufferBytes = b.broadcastBufferBytes;
        BucketLayout layout = new BucketLayout(parameters, b.sparse, b.stageOf, b.bucketCapBytes, b.firstBucketBytes);
        this.layout = layout;
        this.assignment = layout.assignment;
        this.denseBuckets = layout.denseBuckets;
    }

    /**
     * A builder for a reducer over {@code group}.
     *
     * @param group the group the gradients are reduced over
     * @return a new builder
     */
    public static Builder builder(ProcessGroup group) {
        return new Builder(group);
    }

    /**
     * The parameters, in registration order.
     *
     * @return the parameters
     */
    public List<Parameter> parameters() {
        return parameters;
    }

    /**
     * How many buckets the gradients are split into.
     *
     * @return the number of buckets
     */
    public int bucketCount() {
        return assignment.size();
    }

    /**
     * For each bucket in launch order, its parameters in layout order.
     *
     * @return the parameters of each bucket
     */
    public List<List<Parameter>> bucketParameters() {
        List<List<Parameter>> out = new ArrayList<>();
        for (List<Integer> b : assignment) {
            List<Parameter> ps = new ArrayList<>();
            b.forEach(i -> ps.add(parameters.get(i)));
            out.add(Collections.unmodifiableList(ps));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The hook that reduces each bucket.
     *
     * @return the hook
     */
    public CommHook hook() {
        return hook;
    }

    /**
     * Copies rank 0's parameter values into every rank's ({@link BroadcastCoalesced}, buffers of the
     * builder's broadcast size). A cold {@code Mono} completing when done on this rank.
     *
     * @return a cold {@code Mono} completing when this rank's parameters hold rank 0's values
     */
    public Mono<Void> broadcastParameters() {
        return Mono.defer(() -> {
            List<Tensor> values = new ArrayList<>();
            parameters.forEach(p -> values.add(p.value()));
            return BroadcastCoalesced.broadcastCoalesced(group, values, broadcastBufferBytes, 0).then();
        });
    }

    /**
     * Nanoseconds during which at least one hook was running, summed over the reducer's life: the
     * wall time spent communicating, whether or not it overlapped computation.
     *
     * @return the communication time in nanoseconds
     */
    public long communicationNanos() {
        return communication.nanos();
    }

    // ------------------------------------------------------------------ reactive form

    /**
     * Reduces one iteration's gradients. Each parameter emitted by {@code readyParameters} has its
     * gradient copied into its bucket; when a bucket is complete (and every bucket before it has been
     * launched) its hook runs; the returned {@code Flux} emits each bucket, in index order, once its
     * result is in the parameters' gradients, and completes after the last one. It fails with
     * {@link IllegalStateException} when a parameter arrives twice or the stream ends with buckets
     * incomplete, and with a hook's error. Cold: subscribing twice runs two iterations.
     *
     * @param readyParameters the parameters whose gradients are ready, in the order they become ready
     * @return a cold {@code Flux} of the reduced buckets, in index order
     */
    public Flux<GradBucket> reduce(Flux<Parameter> readyParameters) {
        return reduceReady(readyParameters.map(p -> new Ready(p, null)));
    }

    /**
     * {@link #reduce(Flux)} for a model with parameters registered sparse
     * ({@link Builder#sparseParameter}): when such a parameter arrives, {@code rowsOf} gives its
     * row-sparse gradient (on the thread that emitted the parameter); the reducer copies it into the
     * parameter's bucket and then releases the returned tensors. Dense parameters are read from
     * their gradients as {@link #reduce(Flux)} reads them.
     *
     * @param readyParameters the parameters whose gradients are ready, in the order they become ready
     * @param rowsOf          a sparse parameter's gradient, owned by the reducer once returned
     * @return a cold {@code Flux} of the reduced buckets, in index order
     */
    public Flux<GradBucket> reduce(Flux<Parameter> readyParameters, Function<Parameter, SparseGradient> rowsOf) {
        Objects.requireNonNull(rowsOf, "rowsOf");
        return reduceReady(readyParameters.map(p -> layout.isSparse(p) ? new Ready(p, rowsOf.apply(p), true) : new Ready(p, null)));
    }

    private Flux<GradBucket> reduceReady(Flux<Ready> ready) {
        return Flux.defer(() -> {
            if (closed) {
                return Flux.error(new IllegalStateException("GradientReducer is closed"));
            }
            IterationBuckets iteration = new IterationBuckets(parameters, layout);
            int concurrency = hook.singleCollective() ? maxBucketsInFlight : 1;
            return ready
                    .concatMapIterable(iteration::accept)
                    .flatMapSequential(communication::run, concurrency, 1)
                    .concatWith(Mono.defer(() -> {
                        IllegalStateException incomplete = iteration.incomplete();
                        return incomplete != null ? Mono.error(incomplete) : Mono.<GradBucket>empty();
                    }))
                    .doFinally(s -> iteration.releaseSparse())
                    .doOnDiscard(Ready.class, IterationBuckets::discard);   // rows queued when the stream ends early
        });
    }

    // ------------------------------------------------------------------ imperative form

    private final class Iteration {
        final Sinks.Many<Ready> ready = Sinks.many().unicast().onBackpressureBuffer();
        final Sinks.One<Void> done = Sinks.one();

        Iteration() {
            reduceReady(ready.asFlux()).subscribe(b -> { }, done::tryEmitError, done::tryEmitEmpty);
        }
    }

    /**
     * Marks {@code parameter}'s dense gradient ready for this iteration: copies it into its bucket and,
     * if that completes the next buckets to launch, starts their hooks (asynchronously; this call does
     * not wait for communication). Errors surface through {@link #finish()}.
     *
     * @param parameter a registered parameter
     */
    public synchronized void markReady(Parameter parameter) {
        emit(new Ready(Objects.requireNonNull(parameter, "parameter"), null));
    }

    /**
     * Marks a parameter registered as sparse ready with its row-sparse gradient (copied).
     *
     * @param parameter a registered parameter
     * @param gradient  its row-sparse gradient
     */
    public synchronized void markReady(Parameter parameter, SparseGradient gradient) {
        emit(new Ready(Objects.requireNonNull(parameter, "parameter"), Objects.requireNonNull(gradient, "gradient")));
    }

    private void emit(Ready r) {
        if (current == null) {
            current = new Iteration();
        }
        current.ready.tryEmitNext(r);
    }

    /**
     * Ends this iteration's marking: a {@code Mono} completing once every bucket has been reduced and
     * copied into the gradients, or failing with the first error (a hook's, or
     * {@link IllegalStateException} naming parameters never marked ready). The next
     * {@link #markReady} starts a new iteration.
     *
     * @return a {@code Mono} completing once this iteration's gradients are reduced
     */
    public Mono<Void> finish() {
        return Mono.defer(() -> {
            Iteration it;
            synchronized (this) {
                it = current != null ? current : new Iteration();
                current = null;
            }
            it.ready.tryEmitComplete();
            return it.done.asMono();
        });
    }

    /** Releases the bucket buffers. Call when no iteration is running. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (GradBucket b : denseBuckets) {
            if (b != null) {
                b.buffer().release();
            }
        }
    }

    /** Settings of a {@link GradientReducer}. */
    public static final class Builder {
        private final ProcessGroup group;
        private final List<Parameter> parameters = new ArrayList<>();
        private final java.util.Set<String> sparse = new java.util.HashSet<>();
        private long bucketCapBytes = BucketAssignment.DEFAULT_BUCKET_CAP_BYTES;
        private long firstBucketBytes = BucketAssignment.DEFAULT_FIRST_BUCKET_BYTES;
        private long broadcastBufferBytes = DEFAULT_BROADCAST_BUFFER_BYTES;
        private int maxBucketsInFlight = 4;
        private ToIntFunction<Parameter> stageOf = p -> 0;
        private CommHook hook;

        private Builder(ProcessGroup group) {
            this.group = Objects.requireNonNull(group, "group");
        }

        /**
         * Registers parameters, in the order the forward pass uses them.
         *
         * @param ps the parameters
         * @return this builder
         */
        public Builder parameters(List<Parameter> ps) {
            parameters.addAll(ps);
            return this;
        }

        /**
         * Registers one parameter.
         *
         * @param p the parameter
         * @return this builder
         */
        public Builder parameter(Parameter p) {
            parameters.add(Objects.requireNonNull(p, "parameter"));
            return this;
        }

        /**
         * Registers one parameter whose gradient is row-sparse, as {@code nn.Embedding(sparse=True)}'s
         * (it gets a bucket of its own, filled by {@link GradientReducer#markReady(Parameter,
         * SparseGradient)}): {@link AllReduceHook} sends only the rows each rank touched, so this pays
         * when the ranks together touch a small share of the rows; every rank must register the same
         * parameters as sparse.
         *
         * @param p the parameter
         * @return this builder
         */
        public Builder sparseParameter(Parameter p) {
            parameters.add(Objects.requireNonNull(p, "parameter"));
            sparse.add(p.name());
            return this;
        }

        /**
         * The size limit of buckets after the first (DDP's {@code bucket_cap_mb}); default 25 MiB.
         *
         * @param bytes the size in bytes
         * @return this builder
         */
        public Builder bucketCapBytes(long bytes) {
            this.bucketCapBytes = bytes;
            return this;
        }

        /**
         * For a backward pass run stage by stage: the stage whose pass makes each parameter's gradient
         * final. A bucket of at least the first bucket's size then ends where its stage ends, also below
         * its size limit, so that it leaves as soon as its own stage is differentiated instead of waiting
         * for the next ({@link BucketAssignment}). Default: one stage, buckets by size alone (DDP's).
         *
         * @param stageOf each registered parameter's stage
         * @return this builder
         */
        public Builder stageOf(ToIntFunction<Parameter> stageOf) {
            this.stageOf = Objects.requireNonNull(stageOf, "stageOf");
            return this;
        }

        /**
         * The size limit of the first bucket; default 1 MiB.
         *
         * @param bytes the size in bytes
         * @return this builder
         */
        public Builder firstBucketBytes(long bytes) {
            this.firstBucketBytes = bytes;
            return this;
        }

        /**
         * The buffer size of {@link #broadcastParameters()}; default 250 MiB.
         *
         * @param bytes the size in bytes
         * @return this builder
         */
        public Builder broadcastBufferBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("broadcast buffer size must be >= 1, got " + bytes);
            }
            this.broadcastBufferBytes = bytes;
            return this;
        }

        /**
         * The communication hook; default {@link AllReduceHook}.
         *
         * @param h the hook
         * @return this builder
         */
        public Builder hook(CommHook h) {
            this.hook = Objects.requireNonNull(h, "hook");
            return this;
        }

        /**
         * How many single-collective hooks may be in flight at once (default 4).
         *
         * @param n the limit, at least 1
         * @return this builder
         */
        public Builder maxBucketsInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxBucketsInFlight must be >= 1, got " + n);
            }
            this.maxBucketsInFlight = n;
            return this;
        }

        /**
         * Builds the reducer: the parameters are laid out in buckets (in reverse registration order, as DDP).
         *
         * @return the reducer
         */
        public GradientReducer build() {
            return new GradientReducer(this);
        }
    }
}
