package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Ties a group's {@link FlightRecorder} and {@link CollectiveMetrics} to its collectives: wrap the
 * body of each collective with {@link #observe} and it is recorded (SCHEDULED when observed,
 * STARTED on subscription to the body, then COMPLETED or FAILED), timed with its outcome, counted
 * in flight, and a timeout, a peer failure or a peer's abort dumps the recorder (see
 * {@link #dumpsOn(Throwable)} and {@link FlightRecorder#dumpOnFailure(String)}): the error reaches
 * the subscriber once that dump is written (or has failed, or after at most 5 s), so a process that
 * exits on the error still leaves the dump.
 */
public final class CollectiveObserver {

    private final FlightRecorder recorder;
    private final CollectiveMetrics metrics;

    /**
     * An observer writing to {@code recorder} and {@code metrics}.
     *
     * @param recorder the group's recorder
     * @param metrics  the group's meters, or null for none
     */
    public CollectiveObserver(FlightRecorder recorder, CollectiveMetrics metrics) {
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.metrics = metrics;
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
     * {@code rc.collective}. An error for which {@link #dumpsOn(Throwable)} holds (a timeout, a
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
        FlightRecorder.Entry entry = recorder.record(seq, op, dtype, inputShapes, outputShapes, algorithm);
        long t0 = System.nanoTime();
        if (metrics != null) {
            metrics.collectiveStarted();
        }
        AtomicBoolean ended = new AtomicBoolean();
        Mono<T> work;
        try {
            work = Objects.requireNonNull(body.apply(entry), "body returned null");
        } catch (Throwable t) {
            end(entry, t0, ended, t);
            return Mono.error(t);
        }
        return work
                .doOnSubscribe(s -> entry.started())
                .doOnSuccess(v -> end(entry, t0, ended, null))
                .onErrorResume(e -> failed(entry, t0, ended, e))
                .doOnCancel(() -> end(entry, t0, ended, new CancellationException("cancelled")));
    }

    /**
     * {@link #observe} for a collective that emits many values (a stream of chunks): recorded and
     * timed the same way, COMPLETED when the {@code Flux} completes.
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
        FlightRecorder.Entry entry = recorder.record(seq, op, dtype, inputShapes, outputShapes, algorithm);
        long t0 = System.nanoTime();
        if (metrics != null) {
            metrics.collectiveStarted();
        }
        AtomicBoolean ended = new AtomicBoolean();
        Flux<T> work;
        try {
            work = Objects.requireNonNull(body.apply(entry), "body returned null");
        } catch (Throwable t) {
            end(entry, t0, ended, t);
            return Flux.error(t);
        }
        return work
                .doOnSubscribe(s -> entry.started())
                .doOnComplete(() -> end(entry, t0, ended, null))
                .onErrorResume(e -> failed(entry, t0, ended, e))
                .doOnCancel(() -> end(entry, t0, ended, new CancellationException("cancelled")));
    }

    /** The collective failed: {@code error} goes on once the automatic dump it triggers is written. */
    private <T> Mono<T> failed(FlightRecorder.Entry entry, long t0, AtomicBoolean ended, Throwable error) {
        Mono<Path> dump = end(entry, t0, ended, error);
        return dump == null ? Mono.error(error) : FlightRecorderDumps.errorAfter(dump, error);
    }

    /** Records the ending; the automatic dump it started, or null. */
    private Mono<Path> end(FlightRecorder.Entry entry, long t0, AtomicBoolean ended, Throwable error) {
        if (!ended.compareAndSet(false, true)) {
            return null;
        }
        if (error == null) {
            entry.completed();
        } else {
            entry.failed(error);
        }
        if (metrics != null) {
            metrics.collectiveFinished(entry.op, entry.dtype, entry.algorithm, CollectiveMetrics.outcomeOf(error),
                    System.nanoTime() - t0);
        }
        if (dumpsOn(error) && recorder.config().dumpOnFailure()) {
            return recorder.dumpOnFailure(error);
        }
        return null;
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
