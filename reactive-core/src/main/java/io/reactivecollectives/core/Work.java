package io.reactivecollectives.core;

import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle on a collective that is already running, as c10d's {@code Work}, for code ported from
 * PyTorch that issues a collective and waits for it later:
 * <pre>{@code
 * Work work = Work.of(group.allReduce(grad, ReduceOp.SUM), OpType.ALLREDUCE, seq, rank);
 * ... overlap other work ...
 * work.wait(Duration.ofMinutes(1));   // on a thread that may block
 * }</pre>
 *
 * <p>{@link #of} subscribes to the collective at once (issuing is eager, as in c10d); the
 * {@code Work} then records how it ended. Reactive code should compose the {@link Mono} itself
 * instead; {@link #future()} is the non-blocking bridge. The value the collective emits (the reduced
 * tensor, the source rank...) is the future's value; the {@code Work} does not release it.
 *
 * <p>Thread-safe. {@link #wait(Duration)} blocks and so refuses to run on a non-blocking thread
 * (Netty event loops, {@code Schedulers.parallel()}).
 */
public final class Work {

    /** {@link #sourceRank()} when there is none (not a receive-from-any, or not finished). */
    public static final int NO_SOURCE = -1;
    /** The rank used in error messages when {@link #of(Mono, OpType, long)} was not told it. */
    public static final int UNKNOWN_RANK = -1;

    private final OpType opType;
    private final long sequenceNumber;
    private final int rank;
    private final long startNanos;
    private volatile long endNanos;
    private final CompletableFuture<Object> done = new CompletableFuture<>();
    private final AtomicBoolean terminated = new AtomicBoolean();
    private final Subscriber subscriber = new Subscriber();
    private volatile Object value;

    private Work(OpType opType, long sequenceNumber, int rank) {
        this.opType = Objects.requireNonNull(opType, "opType");
        this.sequenceNumber = sequenceNumber;
        this.rank = rank;
        this.startNanos = System.nanoTime();
    }

    /**
     * Subscribes to {@code collective} now and returns its {@code Work}; messages name the rank as
     * {@value #UNKNOWN_RANK}. For {@link OpType#RECVANYSOURCE} an {@code Integer} the Mono emits is
     * the {@link #sourceRank()}.
     *
     * @param collective     the operation's {@code Mono}, subscribed at once
     * @param type           the kind of operation
     * @param sequenceNumber its sequence number in the group
     * @return the {@code Work}
     */
    public static Work of(Mono<?> collective, OpType type, long sequenceNumber) {
        return of(collective, type, sequenceNumber, UNKNOWN_RANK);
    }

    /**
     * Subscribes to {@code collective} now and returns its {@code Work}; errors it makes name {@code rank}.
     *
     * @param collective     the operation's {@code Mono}, subscribed at once
     * @param type           the kind of operation
     * @param sequenceNumber its sequence number in the group
     * @param rank           the rank issuing it
     * @return the {@code Work}
     */
    public static Work of(Mono<?> collective, OpType type, long sequenceNumber, int rank) {
        Objects.requireNonNull(collective, "collective");
        Work work = new Work(type, sequenceNumber, rank);
        collective.subscribe(work.subscriber);
        return work;
    }

    /**
     * The {@code Work} of a receive-from-any ({@link ProcessGroup#recvAnySource}): subscribes now;
     * {@link #sourceRank()} is the rank the Mono emits.
     *
     * @param recv           the receive's {@code Mono}, emitting the source rank; subscribed at once
     * @param sequenceNumber its sequence number in the group
     * @param rank           the rank issuing it
     * @return the {@code Work}
     */
    public static Work ofRecvAnySource(Mono<Integer> recv, long sequenceNumber, int rank) {
        return of(recv, OpType.RECVANYSOURCE, sequenceNumber, rank);
    }

    /**
     * Whether the collective has ended: succeeded, failed or aborted.
     *
     * @return whether it has ended
     */
    public boolean isCompleted() {
        return done.isDone();
    }

    /**
     * Whether the collective has ended successfully.
     *
     * @return whether it succeeded
     */
    public boolean isSuccess() {
        return done.isDone() && !done.isCompletedExceptionally();
    }

    /**
     * The failure (or the {@link CancellationException} of {@link #abort()}), once ended with one.
     *
     * @return the failure, or empty while running or after success
     */
    public Optional<Throwable> exception() {
        if (!done.isCompletedExceptionally()) {
            return Optional.empty();
        }
        try {
            done.getNow(null);
            return Optional.empty();
        } catch (CompletionException e) {
            return Optional.of(e.getCause() == null ? e : e.getCause());
        } catch (CancellationException e) {
            return Optional.of(e);
        }
    }

    /**
     * Blocks until the collective ends or {@code timeout} runs out; returns {@code true} when it
     * succeeded. Like c10d's {@code wait}, the failure is thrown: the collective's own
     * {@link RuntimeException} (a {@link CollectiveException} for communication failures), the
     * {@link CancellationException} of {@link #abort()}, or a {@link CompletionException} around a
     * checked one. When the time runs out it throws a {@link CollectiveTimeoutException} naming the op,
     * rank and sequence number, and the collective keeps running ({@link #abort()} stops it).
     *
     * @param timeout the longest wait
     * @return {@code true} when the collective succeeded
     * @throws IllegalStateException when called on a non-blocking thread (Netty event loop,
     *         {@code Schedulers.parallel()}): compose the Mono or use {@link #future()} there; also
     *         when the waiting thread is interrupted (its interrupt flag is set again)
     */
    public boolean wait(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (Schedulers.isInNonBlockingThread()) {
            throw new IllegalStateException(prefix() + ": Work.wait called on non-blocking thread "
                    + Thread.currentThread().getName() + "; compose the collective's Mono or use Work.future() instead");
        }
        try {
            done.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            throw new CollectiveTimeoutException(opType.displayName(), rank, sequenceNumber,
                    CollectiveException.NO_PEER, elapsed(), "Work.wait timed out after " + timeout.toMillis()
                    + " ms; the collective is still running");
        } catch (ExecutionException e) {
            throw rethrowable(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(prefix() + ": interrupted in Work.wait", e);
        }
    }

    /**
     * Aborts the collective: cancels the subscription (which, for the library's collectives, aborts
     * it on this rank) and ends this {@code Work} with a {@link CancellationException}. Returns
     * {@code false}, changing nothing, if it had already ended.
     *
     * @return {@code true} when this call aborted it
     */
    public boolean abort() {
        boolean aborted = terminate(null, new CancellationException(prefix() + ": aborted by Work.abort()"));
        subscriber.dispose();
        return aborted;
    }

    /**
     * A future completed with the collective's value ({@code null} if it emitted none) or its
     * failure; completing it from outside changes nothing, and cancelling it {@linkplain #abort()
     * aborts} the collective.
     *
     * @return the future
     */
    public CompletableFuture<Object> future() {
        CompletableFuture<Object> view = done.copy();
        view.whenComplete((v, e) -> {
            if (view.isCancelled()) {
                abort();
            }
        });
        return view;
    }

    /**
     * How long the collective ran, from {@link #of} to its end, once ended.
     *
     * @return the duration, or empty while running
     */
    public Optional<Duration> duration() {
        return done.isDone() ? Optional.of(Duration.ofNanos(endNanos - startNanos)) : Optional.empty();
    }

    /**
     * The collective's sequence number in its group.
     *
     * @return the sequence number
     */
    public long sequenceNumber() {
        return sequenceNumber;
    }

    /**
     * What kind of collective this is.
     *
     * @return the kind of operation
     */
    public OpType opType() {
        return opType;
    }

    /**
     * The rank that issued it, or {@value #UNKNOWN_RANK}.
     *
     * @return the rank, or {@value #UNKNOWN_RANK}
     */
    public int rank() {
        return rank;
    }

    /**
     * For a successful {@link OpType#RECVANYSOURCE}, the rank the data came from; otherwise
     * {@value #NO_SOURCE}.
     *
     * @return the source rank, or {@value #NO_SOURCE}
     */
    public int sourceRank() {
        Object v = value;
        return opType == OpType.RECVANYSOURCE && isSuccess() && v instanceof Integer source ? source : NO_SOURCE;
    }

    /**
     * How it ended: {@link WorkResult#SUCCESS}; for a {@link CollectiveException}, its
     * {@link CollectiveException#workResult()} ({@code TIMEOUT} for a {@link CollectiveTimeoutException},
     * {@code COMM_ERROR} otherwise); {@link WorkResult#UNKNOWN} while running or for any other error.
     *
     * @return the result
     */
    public WorkResult result() {
        if (!done.isDone()) {
            return WorkResult.UNKNOWN;
        }
        if (isSuccess()) {
            return WorkResult.SUCCESS;
        }
        return exception()
                .filter(CollectiveException.class::isInstance)
                .map(e -> ((CollectiveException) e).workResult())
                .orElse(WorkResult.UNKNOWN);
    }

    @Override
    public String toString() {
        return "Work[" + prefix() + ", " + (isCompleted() ? result() : "running") + "]";
    }

    private String prefix() {
        return opType.displayName() + "[seq=" + sequenceNumber + "] rank " + rank;
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private boolean terminate(Object result, Throwable error) {
        if (!terminated.compareAndSet(false, true)) {
            return false;
        }
        endNanos = System.nanoTime();
        if (error == null) {
            done.complete(result);
        } else {
            done.completeExceptionally(error);
        }
        return true;
    }

    private static RuntimeException rethrowable(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new CompletionException(t);
    }

    private final class Subscriber extends BaseSubscriber<Object> {
        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        protected void hookOnNext(Object next) {
            value = next;
        }

        @Override
        protected void hookOnComplete() {
            terminate(value, null);
        }

        @Override
        protected void hookOnError(Throwable throwable) {
            terminate(null, throwable);
        }
    }
}
