package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One receive of a {@link Mailbox}: a payload addressed by (tag, step, chunk, source) in a
 * collective's {@link CollectiveBox}. A hand-written operator (one object per subscription, the
 * {@link Waiter}, which is also what waits in the box's slot) instead of {@code Mono.create} with
 * its sink, cancel callback and discard hook: a receive runs for every pipelined segment.
 *
 * <p>Each subscription claims the payload on subscribe (or waits for it); the payload goes
 * downstream once requested. A payload that arrives after cancellation, or that waits for a
 * request when the subscription is cancelled, is released here: whoever moves the state to
 * {@code DONE} while a payload is held releases it, exactly once.
 */
final class MailboxReceive extends Mono<ByteBuf> {

    private final Mailbox mailbox;
    final CollectiveBox box;
    final int tag;
    final int step;
    final int chunk;
    final int source;
    private final ReceiveHooks hooks;
    /** The subscriber finishes with the payload inside onNext: it may be lent. */
    private final boolean borrows;

    MailboxReceive(Mailbox mailbox, CollectiveBox box, int tag, int step, int chunk, int source, ReceiveHooks hooks,
                   boolean borrows) {
        this.mailbox = mailbox;
        this.box = box;
        this.tag = tag;
        this.step = step;
        this.chunk = chunk;
        this.source = source;
        this.hooks = hooks;
        this.borrows = borrows;
    }

    @Override
    public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
        Waiter w = new Waiter(actual, this);
        actual.onSubscribe(w);
        if (w.state == Waiter.DONE) {
            return;
        }
        hooks.waiting(source);
        mailbox.claim(w);
    }

    /** The subscription: waits in the box's slot until the payload arrives or the box fails. */
    static final class Waiter implements org.reactivestreams.Subscription, reactor.core.Scannable {
        static final int REQUESTED = 1;
        static final int HAS_VALUE = 2;
        static final int DONE = 4;
        private static final AtomicIntegerFieldUpdater<Waiter> STATE =
                AtomicIntegerFieldUpdater.newUpdater(Waiter.class, "state");

        final CoreSubscriber<? super ByteBuf> actual;
        final MailboxReceive r;         // what it receives: box, tag, step, chunk, source
        boolean slotted;                // it waited in its slot; guarded by the mailbox's lock
        volatile int state;
        private ByteBuf value;

        Waiter(CoreSubscriber<? super ByteBuf> actual, MailboxReceive r) {
            this.actual = actual;
            this.r = r;
        }

        /** Whether a payload handed over now would be emitted within the call, to a subscriber that may borrow it. */
        boolean borrowsNow() {
            return r.borrows && (state & REQUESTED) != 0;
        }

        /** The payload arrived (ownership taken): emits it when requested, releases it when cancelled. */
        void success(ByteBuf payload) {
            value = payload;
            for (;;) {
                int s = state;
                if ((s & DONE) != 0) {
                    value = null;
                    ReferenceCountUtil.safeRelease(payload);
                    return;
                }
                if ((s & REQUESTED) != 0) {
                    if (STATE.compareAndSet(this, s, DONE)) {
                        emit(payload);
                        return;
                    }
                } else if (STATE.compareAndSet(this, s, s | HAS_VALUE)) {
                    return;
                }
            }
        }

        /** The box failed: errors downstream unless done. */
        void error(Throwable e) {
            for (;;) {
                int s = state;
                if ((s & DONE) != 0) {
                    return;
                }
                if (STATE.compareAndSet(this, s, DONE)) {
                    releaseHeld(s);
                    actual.onError(e);
                    return;
                }
            }
        }

        @Override
        public void request(long n) {
            if (!Operators.validate(n)) {
                return;
            }
            for (;;) {
                int s = state;
                if ((s & (REQUESTED | DONE)) != 0) {
                    return;
                }
                if ((s & HAS_VALUE) != 0) {
                    if (STATE.compareAndSet(this, s, DONE)) {
                        ByteBuf v = value;
                        value = null;
                        emit(v);
                        return;
                    }
                } else if (STATE.compareAndSet(this, s, s | REQUESTED)) {
                    return;
                }
            }
        }

        @Override
        public void cancel() {
            for (;;) {
                int s = state;
                if ((s & DONE) != 0) {
                    return;
                }
                if (STATE.compareAndSet(this, s, DONE)) {
                    releaseHeld(s);
                    r.mailbox.forget(this);
                    return;
                }
            }
        }

        private void releaseHeld(int s) {
            if ((s & HAS_VALUE) != 0) {
                ByteBuf v = value;
                value = null;
                ReferenceCountUtil.safeRelease(v);
            }
        }

        private void emit(ByteBuf payload) {
            value = null;
            r.hooks.received(r.source, payload);
            actual.onNext(payload);
            actual.onComplete();
        }

        @Override
        public Object scanUnsafe(Attr key) {
            if (key == Attr.ACTUAL) {
                return actual;
            }
            if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
                return (state & DONE) != 0;
            }
            return null;
        }
    }
}
