package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveException;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The receipts (ACK frames) a collective waits for: a rank that only sends in a collective
 * completes once every rank it sent to confirmed that the frames agreed with its own collective.
 * State lives in the {@link CollectiveBox}, guarded by the box itself. The wait is a hand-written
 * operator (its {@link Waiter} is what the box holds) instead of {@code Mono.create} with a sink and
 * a cancel callback: a small broadcast's root waits for receipts every time.
 */
final class Receipts {

    private Receipts() {
    }

    static void received(CollectiveBox box, int source) {
        Waiter done = null;
        synchronized (box) {
            if (box.acksReceived == null) {
                box.acksReceived = new BitSet();
            }
            box.acksReceived.set(source);
            if (box.ackWaiter != null && allIn(box)) {
                done = box.ackWaiter;
                box.ackWaiter = null;
            }
        }
        if (done != null) {
            done.end(null);
        }
    }

    static Mono<Void> await(CollectiveBox box, BitSet peers) {
        return new Await(box, peers);
    }

    /** The collective failed: its wait for receipts fails with {@code e}. */
    static void fail(CollectiveBox box, CollectiveException e) {
        Waiter waiter;
        synchronized (box) {
            if (box.receiptFailure == null) {
                box.receiptFailure = e;
            }
            waiter = box.ackWaiter;
            box.ackWaiter = null;
        }
        if (waiter != null) {
            waiter.end(e);
        }
    }

    /** Whether every awaited peer's receipt is in (the box's lock held). */
    private static boolean allIn(CollectiveBox box) {
        BitSet awaited = box.acksAwaited;
        BitSet received = box.acksReceived;
        for (int i = awaited.nextSetBit(0); i >= 0; i = awaited.nextSetBit(i + 1)) {
            if (received == null || !received.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** Waits for the receipts of {@code peers} in {@code box}. */
    private static final class Await extends Mono<Void> {
        private final CollectiveBox box;
        private final BitSet peers;

        Await(CollectiveBox box, BitSet peers) {
            this.box = box;
            this.peers = peers;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            Waiter w = new Waiter(actual, box);
            actual.onSubscribe(w);
            CollectiveException fail;
            boolean done = false;
            synchronized (box) {
                fail = box.receiptFailure;
                if (fail == null) {
                    box.acksAwaited = peers;
                    if (allIn(box)) {
                        done = true;
                    } else {
                        box.ackWaiter = w;
                    }
                }
            }
            if (fail != null) {
                w.end(fail);
            } else if (done) {
                w.end(null);
            }
        }
    }

    /** The subscription: completes (or fails) once, unless cancelled. */
    static final class Waiter implements Subscription {
        private static final AtomicIntegerFieldUpdater<Waiter> DONE = AtomicIntegerFieldUpdater.newUpdater(Waiter.class, "done");

        private final CoreSubscriber<? super Void> actual;
        private final CollectiveBox box;
        private volatile int done;

        Waiter(CoreSubscriber<? super Void> actual, CollectiveBox box) {
            this.actual = actual;
            this.box = box;
        }

        /** Completes ({@code e} null) or fails with {@code e}, once. */
        void end(Throwable e) {
            if (DONE.compareAndSet(this, 0, 1)) {
                if (e == null) {
                    actual.onComplete();
                } else {
                    actual.onError(e);
                }
            }
        }

        @Override
        public void request(long n) {
            // completes without a value: nothing to wait for
        }

        @Override
        public void cancel() {
            if (DONE.compareAndSet(this, 0, 1)) {
                synchronized (box) {
                    if (box.ackWaiter == this) {
                        box.ackWaiter = null;
                    }
                }
            }
        }
    }
}
