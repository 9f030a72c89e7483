package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * {@link Transfers#exchangeReduce}: sends a byte range of a buffer to a peer and receives the peer's
 * piece for the same range (or sends to one peer and receives from another: a barrier's empty
 * messages, {@link Transfers#exchangeEmpty}); once both are done (the range is no longer being read) the piece is
 * reduced into the range. A hand-written operator, one object per subscription (the {@link Both},
 * which subscribes to the send and to the receive and is the task that reduces large pieces on
 * {@link Schedulers#parallel()}), in place of {@code zip}, {@code flatMap} and a discard hook: it is
 * the only step of a small all-reduce or a barrier on two ranks, where every layer shows in the latency.
 *
 * <p>The piece is released exactly once: by whoever finishes (after reducing, or when reducing
 * fails), or, when the exchange ends before both halves were done (an error, a cancel), by
 * whoever ends it while the piece is held.
 */
final class ExchangeReduce extends Mono<Void> {

    private final Peers p;
    private final int to;
    private final int peer;             // received from
    private final int step;
    private final int chunk;
    private final ReduceOp op;
    private final DType dtype;
    private final ByteBuf buf;
    private final int index;
    private final int count;

    /**
     * Sends to {@code to}, receives from {@code from} ({@code count} 0: an empty message each way,
     * {@code op} and {@code dtype} may be null).
     */
    ExchangeReduce(Peers p, int to, int from, int step, int chunk, ReduceOp op, DType dtype, ByteBuf buf, int index,
                   int count) {
        this.p = p;
        this.to = to;
        this.peer = from;
        this.step = step;
        this.chunk = chunk;
        this.op = op;
        this.dtype = dtype;
        this.buf = buf;
        this.index = index;
        this.count = count;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Both b = new Both(actual, this);
        actual.onSubscribe(b);
        if (b.state >= Both.DONE) {
            return;
        }
        // the SPI's send directly, as the receive below: Transfers.send only forwards to it
        p.sendRange(to, step, chunk, buf, index, length()).subscribe(b.sent);
        if (b.state < Both.DONE) {
            p.receiveScattered(peer, step, chunk).subscribe(b.received);
        }
    }

    private int length() {
        return count == 0 ? 0 : count * dtype.byteSize();
    }

    /** Checks the piece's length and reduces it into place; does not release it. */
    private void work(ByteBuf in) {
        Transfers.checkLength(p, peer, step, chunk, in, length());
        if (count > 0) {
            ReduceKernels.reduceIntoScattered(op, dtype, buf, index, in, in.readerIndex(), count);
        }
    }

    /** The subscription downstream, the state of both halves and the offloaded reduction. */
    static final class Both implements Subscription, Runnable {
        static final int SENT = 1;
        static final int RECEIVED = 2;
        static final int DONE = 4;
        private static final AtomicIntegerFieldUpdater<Both> STATE = AtomicIntegerFieldUpdater.newUpdater(Both.class, "state");

        private final CoreSubscriber<? super Void> actual;
        private final ExchangeReduce parent;
        final Half sent = new Half(this, false);
        final Half received = new Half(this, true);
        private ByteBuf piece;          // written before RECEIVED is set
        volatile int state;

        Both(CoreSubscriber<? super Void> actual, ExchangeReduce parent) {
            this.actual = actual;
            this.parent = parent;
        }

        /** Marks one half done; the half that completes both finishes. */
        void done(int bit) {
            for (;;) {
                int s = state;
                if (s >= DONE) {
                    if (bit == RECEIVED) {
                        release();   // ended before: the piece is this half's to release
                    }
                    return;
                }
                int ns = s | bit;
                if (STATE.compareAndSet(this, s, ns)) {
                    if (ns == (SENT | RECEIVED)) {
                        finish();
                    }
                    return;
                }
            }
        }

        private void finish() {
            ByteBuf b = piece;
            if (b == null || Transfers.OFFLOAD_BYTES <= 0 || parent.length() < Transfers.OFFLOAD_BYTES) {
                run();
                return;
            }
            try {
                Schedulers.parallel().schedule(this);
            } catch (RejectedExecutionException e) {
                release();
                end(e);
            }
        }

        /** The reduction (inline or offloaded): always releases the piece; skipped when ended. */
        @Override
        public void run() {
            ByteBuf b = piece;
            piece = null;
            try {
                if (b != null && state < DONE) {
                    parent.work(b);
                }
            } catch (RuntimeException e) {
                b.release();
                end(e);
                return;
            }
            if (b != null) {
                b.release();
            }
            end(null);
        }

        /** Ends with {@code e} (null: success) unless ended; a piece held before finishing is released. */
        void end(Throwable e) {
            for (;;) {
                int s = state;
                if (s >= DONE) {
                    return;
                }
                if (STATE.compareAndSet(this, s, s | DONE)) {
                    if (s == RECEIVED) {
                        release();   // received but never finished
                    }
                    if (e == null) {
                        actual.onComplete();
                    } else {
                        sent.cancel();
                        received.cancel();
                        actual.onError(e);
                    }
                    return;
                }
            }
        }

        private void release() {
            ByteBuf b = piece;
            piece = null;
            if (b != null) {
                b.release();
            }
        }

        @Override
        public void request(long n) {
            // completes without a value: nothing to wait for
        }

        @Override
        public void cancel() {
            for (;;) {
                int s = state;
                if (s >= DONE) {
                    return;
                }
                if (STATE.compareAndSet(this, s, s | DONE)) {
                    sent.cancel();
                    received.cancel();
                    if (s == RECEIVED) {
                        release();
                    }
                    return;
                }
            }
        }
    }

    /** The subscriber of one half (the send, or the receive whose piece it keeps). */
    static final class Half implements CoreSubscriber<Object> {
        private final Both both;
        private final boolean receive;
        private volatile Subscription s;
        private boolean gotPiece;

        Half(Both both, boolean receive) {
            this.both = both;
            this.receive = receive;
        }

        @Override
        public Context currentContext() {
            return both.actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription sub) {
            if (Operators.validate(s, sub)) {
                s = sub;
                if (both.state >= Both.DONE) {
                    sub.cancel();
                } else if (receive) {
                    sub.request(1);
                }
            }
        }

        @Override
        public void onNext(Object o) {
            if (receive) {
                gotPiece = true;
                both.piece = (ByteBuf) o;
                both.done(Both.RECEIVED);
            }
        }

        @Override
        public void onError(Throwable t) {
            both.end(t);
        }

        @Override
        public void onComplete() {
            if (!receive) {
                both.done(Both.SENT);
            } else if (!gotPiece) {
                both.done(Both.RECEIVED);  // an empty receive: nothing to reduce
            }
        }

        void cancel() {
            Subscription sub = s;
            if (sub != null) {
                sub.cancel();
            }
        }
    }
}
