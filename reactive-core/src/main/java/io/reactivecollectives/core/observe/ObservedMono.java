package io.reactivecollectives.core.observe;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.concurrent.CancellationException;

/**
 * A collective's {@code Mono} as {@link CollectiveObserver#observe} watches it: one operator (one
 * subscriber per subscription) in place of {@code doOnSubscribe}, {@code doOnSuccess},
 * {@code onErrorResume} and {@code doOnCancel}, which ran for every collective. Subscription marks
 * the entry STARTED; the value (or an empty completion) ends the run as COMPLETED before it goes
 * downstream; an error ends it as FAILED and goes downstream once the automatic dump it may start
 * is written; a cancellation ends it as FAILED and cancels the work (or the wait for the dump).
 */
final class ObservedMono<T> extends Mono<T> {

    private final Mono<T> work;
    private final CollectiveObserver observer;
    private final CollectiveObserver.Run run;

    ObservedMono(Mono<T> work, CollectiveObserver observer, CollectiveObserver.Run run) {
        this.work = work;
        this.observer = observer;
        this.run = run;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        work.subscribe(new Watch<>(actual, this));
    }

    private static final class Watch<T> implements CoreSubscriber<T>, Subscription {
        private final CoreSubscriber<? super T> actual;
        private final ObservedMono<T> parent;
        private Subscription upstream;
        /** The wait for the dump before the error goes downstream, once there is one. */
        private volatile Subscription dumpWait;
        private boolean done;

        Watch(CoreSubscriber<? super T> actual, ObservedMono<T> parent) {
            this.actual = actual;
            this.parent = parent;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            if (Operators.validate(upstream, s)) {
                upstream = s;
                parent.run.started();
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(T t) {
            if (done) {
                Operators.onNextDropped(t, actual.currentContext());
                return;
            }
            done = true;
            parent.observer.end(parent.run, null);
            actual.onNext(t);
            actual.onComplete();
        }

        @Override
        public void onError(Throwable e) {
            if (done) {
                Operators.onErrorDropped(e, actual.currentContext());
                return;
            }
            done = true;
            parent.observer.<T>failed(parent.run, e).subscribe(new DumpWait());
        }

        @Override
        public void onComplete() {
            if (done) {
                return;
            }
            done = true;
            parent.observer.end(parent.run, null);
            actual.onComplete();
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            parent.observer.end(parent.run, new CancellationException("cancelled"));
            Subscription w = dumpWait;
            if (w != null) {
                w.cancel();
            }
            upstream.cancel();
        }

        /** Passes the error on once the dump is written (the {@code Mono} errs, or errs at once without a dump). */
        private final class DumpWait implements CoreSubscriber<T> {
            @Override
            public Context currentContext() {
                return actual.currentContext();
            }

            @Override
            public void onSubscribe(Subscription s) {
                dumpWait = s;
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(T t) {
                actual.onNext(t);
            }

            @Override
            public void onError(Throwable e) {
                actual.onError(e);
            }

            @Override
            public void onComplete() {
                actual.onComplete();
            }
        }
    }
}
