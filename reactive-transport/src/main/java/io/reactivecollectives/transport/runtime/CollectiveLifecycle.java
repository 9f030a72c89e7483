package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.transport.group.CollectiveWatchdog;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The end of one collective as a single operator around its work (in place of a chain of
 * {@code timeout}, {@code onErrorMap}, {@code doOnError}, {@code doOnTerminate}, {@code doOnCancel}
 * and {@code doFinally}, each an object and a subscriber per call): a deadline from the group's
 * {@link CollectiveWatchdog}, and exactly one ending per subscription, whichever comes first of
 * the result, an error, the deadline and a cancel.
 *
 * <ul>
 *   <li>result: {@link Ending#released()}, then the value downstream, then {@link Ending#finished()};</li>
 *   <li>error: {@link Ending#mapError} (wraps it, tells the peers), {@code released()}, the mapped
 *       error downstream, {@code finished()};</li>
 *   <li>deadline: the work is cancelled and ends as an error with {@link Ending#timeoutError()};</li>
 *   <li>cancel: {@code released()}, {@link Ending#cancelled()}, the work cancelled, {@code finished()}.</li>
 * </ul>
 * A value that arrives after another ending is discarded ({@code onDiscard}); a late error is dropped
 * to Reactor's hook.
 */
final class CollectiveLifecycle<T> extends Mono<T> {

    /** What the runner does at each ending. */
    interface Ending {
        /** The error downstream sees for {@code e}; the peers are told here. */
        Throwable mapError(Throwable e);

        /** The deadline passed: the error to end with (before {@link #mapError}). */
        Throwable timeoutError();

        /** Before the ending goes downstream: the tensors are free again. */
        void released();

        /** The subscriber cancelled. */
        void cancelled();

        /** After the ending went downstream. */
        void finished();
    }

    private final Mono<T> work;
    private final CollectiveWatchdog watchdog;
    private final Duration timeout;
    private final Ending ending;
    private final long startNanos;

    /** {@code startNanos}: when the collective started ({@link System#nanoTime()}); its deadline is that plus {@code timeout}. */
    CollectiveLifecycle(Mono<T> work, CollectiveWatchdog watchdog, Duration timeout, long startNanos, Ending ending) {
        this.work = work;
        this.watchdog = watchdog;
        this.timeout = timeout;
        this.startNanos = startNanos;
        this.ending = ending;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        work.subscribe(new Sub<>(actual, this));
    }

    private static final class Sub<T> implements CoreSubscriber<T>, org.reactivestreams.Subscription, Runnable {

        private static final AtomicIntegerFieldUpdater<Sub> ENDED = AtomicIntegerFieldUpdater.newUpdater(Sub.class, "ended");

        private final CoreSubscriber<? super T> actual;
        private final CollectiveLifecycle<T> parent;
        private org.reactivestreams.Subscription upstream;
        private volatile CollectiveWatchdog.Alarm alarm;
        private volatile int ended;

        Sub(CoreSubscriber<? super T> actual, CollectiveLifecycle<T> parent) {
            this.actual = actual;
            this.parent = parent;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(org.reactivestreams.Subscription s) {
            if (Operators.validate(upstream, s)) {
                upstream = s;
                actual.onSubscribe(this);
                // armed once downstream holds the subscription: an alarm may fire at once
                CollectiveWatchdog.Alarm a = parent.watchdog.arm(parent.timeout, this, parent.startNanos);
                alarm = a;
                if (ended != 0) {
                    a.disarm();   // it ended while the subscription was handed down, before the alarm was set
                }
            }
        }

        private boolean end() {
            return ENDED.compareAndSet(this, 0, 1);
        }

        private void finish() {
            CollectiveWatchdog.Alarm a = alarm;
            if (a != null) {
                a.disarm();
            }
            parent.ending.finished();
        }

        @Override
        public void onNext(T t) {
            if (!end()) {
                Operators.onDiscard(t, actual.currentContext());
                return;
            }
            parent.ending.released();
            actual.onNext(t);
            actual.onComplete();
            finish();
        }

        @Override
        public void onError(Throwable e) {
            if (!end()) {
                Operators.onErrorDropped(e, actual.currentContext());
                return;
            }
            fail(e);
        }

        private void fail(Throwable e) {
            Throwable mapped = parent.ending.mapError(e);
            parent.ending.released();
            actual.onError(mapped);
            finish();
        }

        @Override
        public void onComplete() {
            if (end()) {
                parent.ending.released();
                actual.onComplete();
                finish();
            }
        }

        /** The deadline passed (on the watchdog's thread). */
        @Override
        public void run() {
            if (end()) {
                upstream.cancel();
                fail(parent.ending.timeoutError());
            }
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            if (end()) {
                parent.ending.released();
                parent.ending.cancelled();
                upstream.cancel();
                finish();
            }
        }
    }
}
