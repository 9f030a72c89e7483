package io.reactivecollectives.core.observe;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Function;

/**
 * Ties a group's {@link FlightRecorder} and {@link CollectiveMetrics} to its collectives: wrap the
 * body of each collective with {@link #observe} and it is recorded (SCHEDULED when observed,
 * STARTED on subscription to the body, then COMPLETED or FAILED), timed with its outcome, counted
 * in flight, optionally an {@link Observation} (for tracing; see {@link #observe}), and a timeout, a peer failure or a peer's abort dumps the recorder (see
 * {@link #dumpsOn(Throwable)} and {@link FlightRecorder#dumpOnFailure(String)}): the error reaches
 * the subscriber once that dump is written (or has failed, or after at most 5 s), so a process that
 * exits on the error still leaves the dump.
 */
public final class CollectiveObserver {

    private final FlightRecorder recorder;
    private final CollectiveMetrics metrics;
    private final ObservationRegistry observations;

    /**
     * An observer without observations ({@link ObservationRegistry#NOOP}).
     *
     * @param recorder the group's recorder
     * @param metrics  the group's meters, or null for none
     */
    public CollectiveObserver(FlightRecorder recorder, CollectiveMetrics metrics) {
        this(recorder, metrics, ObservationRegistry.NOOP);
    }

    /**
     * @param recorder     the group's recorder
     * @param metrics      the group's meters, or null for none
     * @param observations where each collective's {@link Observation} goes; null or
     *                     {@link ObservationRegistry#NOOP} for none. While the registry is a no-op
     *                     ({@link ObservationRegistry#isNoop()}, as is one without handlers, checked per
     *                     collective) nothing is created per collective
     */
    public CollectiveObserver(FlightRecorder recorder, CollectiveMetrics metrics, ObservationRegistry observations) {
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.metrics = metrics;
        this.observations = observations == null ? ObservationRegistry.NOOP : observations;
    }

    /** {@return where the collectives' observations go ({@link ObservationRegistry#NOOP}: nowhere)} */
    public ObservationRegistry observations() {
        return observations;
    }

    /** {@return the flight recorder} */
    public FlightRecorder recorder() {
        return recorder;
    }

    /**
     * The meters, or null.
     *
     * @return the meters, or null
     */
    public CollectiveMetrics metrics() {
        return metrics;
    }

    /**
     * Records the collective {@code seq} now (SCHEDULED) and returns {@code body}'s {@code Mono}
     * with its signals observed: subscription marks it STARTED, success COMPLETED, an error or a
     * cancellation FAILED; each terminal signal records the duration since this call in
     * {@code rc.collective}. With an {@link ObservationRegistry} other than the no-op one, subscription
     * also starts an {@link Observation} of the collective (see
     * {@link DefaultCollectiveObservationConvention}), the child of the observation the subscriber's
     * Reactor context holds under Micrometer's {@code ObservationThreadLocalAccessor.KEY} if any, and
     * put in the body's context under that key; the terminal signal stops it, with the error recorded
     * (not for a cancellation: its {@code outcome} says so). An error for which {@link #dumpsOn(Throwable)} holds (a timeout, a
     * {@link PeerFailureException}, ...) also triggers the automatic dump, and goes downstream once
     * the dump is written (on the dump's thread). The signals themselves pass through unchanged.
     * Call it where the sequence number is assigned (inside the collective's {@code Mono.defer}).
     *
     * @param <T>          what the collective emits
     * @param seq          the collective's sequence number
     * @param op           the op
     * @param dtype        the element type, null where the op has none
     * @param inputShapes  shapes of the input tensors
     * @param outputShapes shapes of the output tensors
     * @param algorithm    the algorithm, null if not chosen yet
     * @param body         builds the collective's work; it may report progress on the entry
     *                     ({@link FlightRecorder.Entry#waitingFor(int, String)}, {@link FlightRecorder.Entry#algorithm(String)})
     * @return {@code body}'s {@code Mono}, observed
     */
    public <T> Mono<T> observe(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes,
                               String algorithm, Function<FlightRecorder.Entry, Mono<T>> body) {
        return observe(seq, op, dtype, inputShapes, outputShapes, algorithm, System.nanoTime(), false, body);
    }

    /**
     * {@link #observe(long, OpType, DType, long[][], long[][], String, Function)} for a caller that
     * already read the clock as the collective started (so that a collective costs one clock reading
     * at its start and one at its end): the entry is recorded, and counts as started, at
     * {@code startNanos}, and the duration in {@code rc.collective} runs from it. Call it, as the
     * other, inside the collective's {@code Mono.defer}, and subscribe to the result at once.
     *
     * @param <T>          what the collective emits
     * @param seq          the collective's sequence number
     * @param op           the op
     * @param dtype        the element type, null where the op has none
     * @param inputShapes  shapes of the input tensors
     * @param outputShapes shapes of the output tensors
     * @param algorithm    the algorithm, null if not chosen yet
     * @param startNanos   {@link System#nanoTime()} as the collective started
     * @param body         builds the collective's work
     * @return {@code body}'s {@code Mono}, observed
     */
    public <T> Mono<T> observe(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes,
                               String algorithm, long startNanos, Function<FlightRecorder.Entry, Mono<T>> body) {
        return observe(seq, op, dtype, inputShapes, outputShapes, algorithm, startNanos, true, body);
    }

    private <T> Mono<T> observe(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes,
                                String algorithm, long now, boolean startedNow, Function<FlightRecorder.Entry, Mono<T>> body) {
        Run run = begin(seq, op, dtype, inputShapes, outputShapes, algorithm, now);
        run.startedNow = startedNow;
        Mono<T> work;
        try {
            work = Objects.requireNonNull(body.apply(run.entry), "body returned null");
        } catch (Throwable t) {
            end(run, t);
            return Mono.error(t);
        }
        Mono<T> observed = new ObservedMono<>(work, this, run);
        if (observations.isNoop()) {
            return observed;
        }
        return Mono.deferContextual(c -> observed.contextWrite(Context.of(CollectiveObservations.CONTEXT_KEY,
                run.observe(observations, recorder, dtype, inputShapes, c))));
    }

    /**
     * {@link #observe} for a collective that emits many values (a stream of chunks): recorded, timed
     * and observed the same way, COMPLETED when the {@code Flux} completes.
     *
     * @param <T>          what the collective emits
     * @param seq          the collective's sequence number
     * @param op           the op
     * @param dtype        the element type, null where the op has none
     * @param inputShapes  shapes of the input tensors
     * @param outputShapes shapes of the output tensors
     * @param algorithm    the algorithm, null if not chosen yet
     * @param body         builds the collective's work
     * @return {@code body}'s {@code Flux}, observed
     */
    public <T> Flux<T> observeMany(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes,
                                   String algorithm, Function<FlightRecorder.Entry, Flux<T>> body) {
        Run run = begin(seq, op, dtype, inputShapes, outputShapes, algorithm, System.nanoTime());
        Flux<T> work;
        try {
            work = Objects.requireNonNull(body.apply(run.entry), "body returned null");
        } catch (Throwable t) {
            end(run, t);
            return Flux.error(t);
        }
        Flux<T> observed = work
                .doOnSubscribe(s -> run.entry.started())
                .doOnComplete(() -> end(run, null))
                .onErrorResume(e -> failed(run, e))
                .doOnCancel(() -> end(run, new CancellationException("cancelled")));
        if (observations.isNoop()) {
            return observed;
        }
        return Flux.deferContextual(c -> observed.contextWrite(Context.of(CollectiveObservations.CONTEXT_KEY,
                run.observe(observations, recorder, dtype, inputShapes, c))));
    }

    /** Records the collective (SCHEDULED) and counts it in flight. */
    private Run begin(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes, String algorithm,
                      long now) {
        Run run = new Run(recorder.record(seq, op, dtype, inputShapes, outputShapes, algorithm, now), now);
        if (metrics != null) {
            metrics.collectiveStarted();
        }
        return run;
    }

    /** The collective failed: {@code error} goes on once the automatic dump it triggers is written. */
    <T> Mono<T> failed(Run run, Throwable error) {
        Mono<Path> dump = end(run, error);
        return dump == null ? Mono.error(error) : FlightRecorderDumps.errorAfter(dump, error);
    }

    /** Records the ending (the first one only); the automatic dump it started, or null. */
    Mono<Path> end(Run run, Throwable error) {
        if (!Run.ENDED.compareAndSet(run, 0, 1)) {
            return null;
        }
        FlightRecorder.Entry entry = run.entry;
        long now = System.nanoTime();
        if (error == null) {
            entry.completedAt(now);
        } else {
            entry.failed(error);
        }
        if (metrics != null) {
            metrics.collectiveFinished(entry.op, entry.dtype, entry.algorithm, CollectiveMetrics.outcomeOf(error),
                    now - run.t0);
        }
        Observation observation = run.observation;
        if (observation != null) {
            CollectiveObservations.stop(observation, error);
        }
        if (dumpsOn(error) && recorder.config().dumpOnFailure()) {
            return recorder.dumpOnFailure(error);
        }
        return null;
    }

    /** One collective: its entry, when it was observed, its observation (if any); set once it has ended. */
    static final class Run {

        static final AtomicIntegerFieldUpdater<Run> ENDED = AtomicIntegerFieldUpdater.newUpdater(Run.class, "ended");

        final FlightRecorder.Entry entry;
        final long t0;
        boolean startedNow;   // the entry counts as started at t0 (no clock reading at subscription)
        volatile Observation observation;
        volatile int ended;

        Run(FlightRecorder.Entry entry, long t0) {
            this.entry = entry;
            this.t0 = t0;
        }

        void started() {
            if (startedNow) {
                entry.startedAt(t0);
            } else {
                entry.started();
            }
        }

        /** Starts the observation (on subscription, with the subscriber's context) and returns it. */
        Observation observe(ObservationRegistry registry, FlightRecorder recorder, DType dtype, long[][] inputShapes,
                            ContextView context) {
            Observation o = CollectiveObservations.start(registry, recorder, entry, dtype, inputShapes, context);
            observation = o;
            return o;
        }
    }

    /**
     * Whether a collective that ended with {@code error} dumps the recorder: timeouts
     * ({@link CollectiveTimeoutException}, {@link TimeoutException}), peer failures and any other
     * {@link CollectiveException} (such as a peer's abort after its own timeout), but not a
     * mismatch (every rank reports it in full), an abort or close of the group asked for here, a
     * cancellation or an argument error.
     *
     * @param error the error the collective ended with
     * @return whether it triggers the automatic dump
     */
    public static boolean dumpsOn(Throwable error) {
        if (error instanceof TimeoutException) {
            return true;
        }
        return error instanceof CollectiveException && !(error instanceof CollectiveMismatchException)
                && !(error instanceof GroupAbortedException);
    }
}
