package io.reactivecollectives.djl;

import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * What a trainer may do next: one operation at a time (a second one started while the first runs
 * fails at once); training only once the ranks' parameters were found identical (an
 * {@code initialize} or {@code regroup} that failed, or was cancelled, leaves the trainer
 * unagreed); and, after a step or accumulation that failed, a fresh start: its gradients (partial
 * sums) discarded and the parameters checked again before the next step, since a failed step can
 * have updated some buckets on some ranks only.
 */
final class StepGuard {

    private final AtomicReference<String> running = new AtomicReference<>();
    private volatile boolean agreed;
    /** A step or accumulation failed: the gradients it left are to be zeroed before the next one. */
    private volatile boolean dirty;
    /** A step failed (on every rank: its collectives failed everywhere): the parameters are to be checked before the next step. */
    private volatile boolean recheck;
    private volatile boolean closed;

    /** Names an operation with the trainer's rank in errors ({@code DistributedTrainer.step on rank 1}). */
    private final Function<String, String> where;

    StepGuard(Function<String, String> where) {
        this.where = where;
    }

    /**
     * {@code work}, unless another operation is running (then an {@link IllegalStateException} naming
     * both). One that fails because the trainer was closed while it ran (its compute thread gone, its
     * arrays' manager closed) fails saying so, with the engine's error as the cause.
     */
    <T> Mono<T> run(String operation, Mono<T> work) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(new IllegalStateException(where.apply(operation) + ": the trainer is closed"));
            }
            String other = running.compareAndExchange(null, operation);
            if (other != null) {
                return Mono.error(new IllegalStateException(where.apply(operation) + ": " + other
                        + " is still running; wait for it (one step at a time per trainer)"));
            }
            // before the result reaches downstream (a Mono's value is its end), so a chained next step may start at once
            return work.doOnTerminate(() -> running.set(null)).doOnCancel(() -> running.set(null))
                    .onErrorMap(e -> closed, e -> new IllegalStateException(where.apply(operation) + ": the trainer was"
                            + " closed while " + operation + " ran; close it only once no call is running", e));
        });
    }

    /**
     * {@link #run}, for a step or accumulation: once {@code ready} passed (a refusal there changed
     * nothing, on this rank only), one that errs or is cancelled leaves gradients to discard and, for
     * a step, the parameters to check ({@link #afterFailure}).
     */
    <T> Mono<T> runTraining(String operation, Runnable ready, Mono<T> work) {
        return run(operation, Mono.defer(() -> {
            ready.run();
            Runnable failed = () -> {
                dirty = true;
                recheck |= operation.equals("step");
            };
            return work.doOnError(e -> failed.run()).doOnCancel(failed);
        }));
    }

    /** The trainer was closed: every operation from now on fails saying so. */
    void close() {
        closed = true;
    }

    /** The ranks' parameters were found identical (or not: an agreement being made again). */
    void agreed(boolean agreed) {
        this.agreed = agreed;
    }

    /** {@return whether the ranks' parameters were found identical by the last initialize or regroup} */
    boolean agreed() {
        return agreed;
    }

    /** Forgets a failure (the group's state replaces the trainer's). */
    void clearFailure() {
        dirty = false;
        recheck = false;
    }

    /**
     * After a step or accumulation that failed: its gradients (partial sums) zeroed, and, before a
     * step, every rank's parameters checked identical (a collective every rank makes, since the
     * failure reached every rank): a failed step can have updated some buckets on some ranks only.
     * Nothing when none failed. An accumulation that failed is this rank's alone: its gradients are
     * zeroed, and nothing collective follows from it.
     */
    Mono<Void> afterFailure(String operation, Mono<Void> zeroGradients, java.util.function.Supplier<Mono<Void>> check) {
        Mono<Void> zeroed = dirty ? zeroGradients.doOnSuccess(v -> dirty = false) : Mono.empty();
        return operation.equals("step") && recheck ? zeroed.then(Mono.defer(check)).doOnSuccess(v -> recheck = false) : zeroed;
    }

    /** Fails (naming {@code where}) when the trainer has no parameters viewed yet. */
    static void requireViews(boolean viewed, String where) {
        if (!viewed) {
            throw new IllegalStateException(where + ": call initialize(inputShapes) first");
        }
    }

    /** Fails when the trainer may not train: no parameters, no group, or parameters not found identical. */
    void requireReady(String operation, boolean viewed, boolean grouped, String where) {
        requireViews(viewed, where);
        if (!grouped) {
            throw new IllegalStateException("DistributedTrainer." + operation + ": not in a group yet (ElasticTrainer.begin"
                    + " or regroup first; or initialize again, if it failed)");
        }
        if (!agreed) {
            throw new IllegalStateException(where + ": the ranks' parameters were not found identical yet:"
                    + " initialize (or regroup) did not complete; call it again");
        }
    }
}
