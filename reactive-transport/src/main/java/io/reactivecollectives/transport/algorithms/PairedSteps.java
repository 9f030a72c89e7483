package io.reactivecollectives.transport.algorithms;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A sequence of steps, each a send and a receive that run together; the next step starts once
 * both completed, the first error ends the sequence (and cancels the step's other transfer). What
 * {@code Mono.when(send, receive)} chained with {@code then} does, as one hand-written operator:
 * one object per subscription (the {@link Run}, with the two subscribers every step reuses), instead of a
 * {@code MonoWhen} with its coordinator and arrays and a {@code MonoIgnoreThen} per step, for the
 * pipelined lanes that run one such sequence per segment.
 *
 * <p>Steps that complete synchronously are run in a loop, not recursively.
 */
abstract class PairedSteps extends Mono<Void> {

    private final int steps;

    PairedSteps(int steps) {
        this.steps = steps;
    }

    /** The send of step {@code i}. */
    abstract Mono<Void> send(int i);

    /** The receive of step {@code i}. */
    abstract Mono<Void> receive(int i);

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Run r = new Run(actual, this);
        actual.onSubscribe(r);
        r.drain();
    }

    /** One subscription: runs the steps in order. */
    static final class Run implements Subscription {
        private static final AtomicIntegerFieldUpdater<Run> WIP = AtomicIntegerFieldUpdater.newUpdater(Run.class, "wip");
        private static final AtomicIntegerFieldUpdater<Run> PENDING =
                AtomicIntegerFieldUpdater.newUpdater(Run.class, "pending");
        private static final AtomicIntegerFieldUpdater<Run> DONE = AtomicIntegerFieldUpdater.newUpdater(Run.class, "done");

        private final CoreSubscriber<? super Void> actual;
        private final PairedSteps parent;
        private int step;                   // the next step to start (in drain only)
        volatile int wip;
        volatile int pending;               // transfers of the current step not completed yet
        volatile int done;                  // 1 once terminated or cancelled
        private final Inner first = new Inner(this);    // reused by every step: a step's transfers
        private final Inner second = new Inner(this);   // have completed before the next subscribes

        Run(CoreSubscriber<? super Void> actual, PairedSteps parent) {
            this.actual = actual;
            this.parent = parent;
        }

        void drain() {
            if (WIP.getAndIncrement(this) != 0) {
                return;
            }
            int missed = 1;
            for (;;) {
                if (done != 0) {
                    return;
                }
                if (pending == 0) {
                    if (step == parent.steps) {
                        if (DONE.compareAndSet(this, 0, 1)) {
                            actual.onComplete();
                        }
                        return;
                    }
                    int i = step++;
                    Mono<Void> send;
                    Mono<Void> receive;
                    try {
                        send = parent.send(i);
                        receive = parent.receive(i);
                    } catch (RuntimeException e) {
                        error(e);
                        return;
                    }
                    PENDING.set(this, 2);
                    send.subscribe(first);
                    receive.subscribe(second);
                }
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }

        void innerDone() {
            if (PENDING.decrementAndGet(this) == 0) {
                drain();
            }
        }

        void error(Throwable t) {
            if (DONE.compareAndSet(this, 0, 1)) {
                cancelInners();
                actual.onError(t);
            }
        }

        private void cancelInners() {
            first.cancel();
            second.cancel();
        }

        @Override
        public void request(long n) {
            // completes without a value: nothing to wait for
        }

        @Override
        public void cancel() {
            if (DONE.compareAndSet(this, 0, 1)) {
                cancelInners();
            }
        }

        Context context() {
            return actual.currentContext();
        }
    }

    /** The subscriber of one transfer of a step. */
    static final class Inner implements CoreSubscriber<Void> {
        private final Run run;
        private volatile Subscription s;

        Inner(Run run) {
            this.run = run;
        }

        @Override
        public Context currentContext() {
            return run.context();
        }

        @Override
        public void onSubscribe(Subscription s) {
            this.s = s;
            if (run.done != 0) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(Void v) {
            // a transfer completes without a value
        }

        @Override
        public void onError(Throwable t) {
            run.error(t);
        }

        @Override
        public void onComplete() {
            run.innerDone();
        }

        void cancel() {
            Subscription x = s;
            if (x != null) {
                x.cancel();
            }
        }
    }
}
