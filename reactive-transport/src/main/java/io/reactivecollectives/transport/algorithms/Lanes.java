package io.reactivecollectives.transport.algorithms;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.IntFunction;

/**
 * Lanes {@code 0..count-1} of one collective, at most {@code concurrency} of them running at once:
 * lane {@code i} is subscribed once fewer than {@code concurrency} earlier lanes are still running,
 * the whole completes when every lane has, and the first error (or a cancel) cancels the running
 * lanes, starts no more and is passed on. What {@code Flux.range(0, count).flatMap(lane,
 * concurrency).then()} does, as one hand-written operator: one object per lane and one per
 * subscription, instead of flatMap's queues, inner subscribers and the drain loop that the JIT
 * compiled (twice, as the largest compile of the data path) for every process.
 *
 * <p>Lanes that complete synchronously are started in a loop, not recursively.
 *
 * <p>The lane machinery is this one file: a pipelined lane is usually a {@link PairedSteps} (nested
 * here), so a segment's steps and the lanes that run them go through one file, not two.
 */
final class Lanes extends Mono<Void> {

    private final int count;
    private final int concurrency;
    private final IntFunction<? extends Mono<Void>> lane;

    private Lanes(int count, int concurrency, IntFunction<? extends Mono<Void>> lane) {
        this.count = count;
        this.concurrency = concurrency;
        this.lane = lane;
    }

    /**
     * Runs {@code count} lanes, at most {@code concurrency} at a time (cold: each subscription runs
     * them again).
     *
     * @param count       how many lanes, at least 0
     * @param concurrency how many may run at once, at least 1
     * @param lane        lane {@code i}'s transfers, asked for when it starts
     * @return completes once every lane has
     */
    static Mono<Void> all(int count, int concurrency, IntFunction<? extends Mono<Void>> lane) {
        if (count < 0 || concurrency < 1) {
            throw new IllegalArgumentException("lanes: count " + count + ", concurrency " + concurrency);
        }
        return count == 0 ? Mono.empty() : new Lanes(count, concurrency, lane);
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Run run = new Run(actual, this);
        actual.onSubscribe(run);
        run.drain();
    }

    /** One subscription: starts the lanes, counts them out, ends once. */
    static final class Run implements Subscription {
        private static final AtomicIntegerFieldUpdater<Run> WIP = AtomicIntegerFieldUpdater.newUpdater(Run.class, "wip");
        private static final AtomicIntegerFieldUpdater<Run> FINISHED =
                AtomicIntegerFieldUpdater.newUpdater(Run.class, "finished");
        private static final AtomicIntegerFieldUpdater<Run> DONE = AtomicIntegerFieldUpdater.newUpdater(Run.class, "done");

        private final CoreSubscriber<? super Void> actual;
        private final Lanes parent;
        private final Inner[] inners;       // lanes started so far, in order (for cancelling them)
        volatile int started;               // written in drain only
        volatile int wip;
        volatile int finished;              // lanes completed
        volatile int done;                  // 1 once terminated or cancelled

        Run(CoreSubscriber<? super Void> actual, Lanes parent) {
            this.actual = actual;
            this.parent = parent;
            this.inners = new Inner[parent.count];
        }

        void drain() {
            if (WIP.getAndIncrement(this) != 0) {
                return;
            }
            int missed = 1;
            for (;;) {
                int s = started;
                while (done == 0 && s < parent.count && s - finished < parent.concurrency) {
                    Mono<Void> m;
                    try {
                        m = parent.lane.apply(s);
                        if (m == null) {
                            throw new NullPointerException("lane " + s + " is null");
                        }
                    } catch (Throwable e) {
                        failed(Operators.onOperatorError(e, actual.currentContext()));
                        return;
                    }
                    Inner in = new Inner(this);
                    inners[s] = in;
                    started = ++s;
                    m.subscribe(in);
                    if (done != 0) {
                        in.cancel();    // a cancel that read started before this lane counted
                    }
                }
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }

        void laneCompleted() {
            if (FINISHED.incrementAndGet(this) == parent.count) {
                if (DONE.compareAndSet(this, 0, 1)) {
                    actual.onComplete();
                }
            } else {
                drain();
            }
        }

        void failed(Throwable e) {
            if (DONE.compareAndSet(this, 0, 1)) {
                cancelLanes();
                actual.onError(e);
            } else {
                Operators.onErrorDropped(e, actual.currentContext());
            }
        }

        @Override
        public void request(long n) {
            // nothing is emitted; the lanes start on subscription
        }

        @Override
        public void cancel() {
            if (DONE.compareAndSet(this, 0, 1)) {
                cancelLanes();
            }
        }

        private void cancelLanes() {
            int s = started;
            for (int i = 0; i < s; i++) {
                Inner in = inners[i];
                if (in != null) {
                    in.cancel();
                }
            }
        }
    }

    /** One lane's subscriber. */
    static final class Inner implements CoreSubscriber<Void> {
        private static final AtomicReferenceFieldUpdater<Inner, Subscription> S =
                AtomicReferenceFieldUpdater.newUpdater(Inner.class, Subscription.class, "s");

        private final Run run;
        volatile Subscription s;

        Inner(Run run) {
            this.run = run;
        }

        @Override
        public Context currentContext() {
            return run.actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription sub) {
            if (Operators.setOnce(S, this, sub)) {
                sub.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(Void v) {
            // a Mono<Void> emits nothing
        }

        @Override
        public void onError(Throwable t) {
            S.lazySet(this, Operators.cancelledSubscription());   // ended: nothing to cancel
            run.failed(t);
        }

        @Override
        public void onComplete() {
            S.lazySet(this, Operators.cancelledSubscription());
            run.laneCompleted();
        }

        void cancel() {
            Operators.terminate(S, this);
        }
    }

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
    abstract static class PairedSteps extends Mono<Void> {

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
}
