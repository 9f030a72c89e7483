package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.kernels.ByteCopies;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The fused transfer stages algorithms are built from: send a byte range of a tensor's buffer
 * (zero-copy, as a retained slice), receive a piece and reduce it into place, receive a piece and
 * copy it into place. Received payloads are released as soon as they were used, also on error and
 * cancellation.
 *
 * <p>The one place algorithms name their transfers, and where the receive primitive is implemented
 * ({@link ReceiveInto}, nested here so that a segment's receive runs in this file rather than in one
 * more): an algorithm's step goes from its own file through this one to the {@link Peers} it was
 * given. Sends are {@link Peers#sendRange} as is; the exchange of recursive doubling and the barrier
 * is {@link ExchangeReduce} (its own file: with it this one would exceed the size limit).
 */
public final class Transfers {

    private Transfers() {
    }

    /**
     * Received pieces of at least this many bytes are reduced or copied into place on
     * {@link Schedulers#parallel()} instead of the connection's event loop, so the loop goes on
     * reading and writing while another core does the arithmetic (gloo likewise keeps its I/O
     * thread apart from the reducing thread). System property {@code rc.transport.offloadBytes};
     * the default is 64 KiB on hosts with 4 or more processors (so that the default 256 KiB
     * segments are offloaded; the comparison is in {@code perf/RESULTS.md}) and off (0) below, where
     * there is no spare core to hand the work to.
     */
    public static final long OFFLOAD_BYTES = TransportSettings.OFFLOAD_BYTES.get();

    /** Sends bytes {@code [index, index + length)} of {@code buf} to {@code peer}, without copying them. */
    public static Mono<Void> send(Peers p, int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return p.sendRange(peer, step, chunk, buf, index, length);
    }

    /** Receives a piece from {@code peer} and reduces its {@code count} elements into {@code dst} at {@code index}. */
    public static Mono<Void> receiveReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                           ByteBuf dst, int index, int count) {
        return new ReceiveInto(p, peer, step, chunk, op, dtype, dst, index, count, count * dtype.byteSize());
    }

    /** Receives a piece of {@code length} bytes from {@code peer} and copies it into {@code dst} at {@code index}. */
    public static Mono<Void> receiveCopy(Peers p, int peer, int step, int chunk, ByteBuf dst, int index, int length) {
        return new ReceiveInto(p, peer, step, chunk, null, null, dst, index, length, length);
    }

    /**
     * Sends bytes {@code [index, index + count * elementSize)} of {@code buf} to {@code peer} and
     * receives the peer's piece for the same range; once <em>both</em> are done (so the memory
     * being sent is no longer read), reduces the received piece into that range.
     */
    public static Mono<Void> exchangeReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                            ByteBuf buf, int index, int count) {
        return new ExchangeReduce(p, peer, peer, step, chunk, op, dtype, buf, index, count);
    }

    /**
     * Sends an empty message to {@code to} and receives one from {@code from} (a barrier's round);
     * completes when both are done. A non-empty message from {@code from} is a protocol error.
     */
    public static Mono<Void> exchangeEmpty(Peers p, int to, int from, int step) {
        return new ExchangeReduce(p, to, from, step, 0, null, null, Unpooled.EMPTY_BUFFER, 0, 0);
    }

    /** Fails with a protocol error naming {@code peer} unless {@code in} holds {@code length} bytes. */
    static void checkLength(Peers p, int peer, int step, int chunk, ByteBuf in, int length) {
        if (in.readableBytes() != length) {
            throw p.protocolError(peer, "rank " + peer + " sent " + in.readableBytes() + " bytes for step " + step
                    + " chunk " + chunk + ", expected " + length + " (do the tensors have the same size on every rank?)");
        }
    }

    /**
     * Receives one piece and reduces or copies it into place ({@link #receiveReduce},
     * {@link #receiveCopy}): a hand-written operator, one object per subscription (the
     * {@link Into}, which subscribes to the receive, does the work and is the task that runs it on
     * {@link Schedulers#parallel()} for large pieces) instead of {@code flatMap} with a lambda per
     * piece: it runs for every pipelined segment.
     *
     * <p>The piece is released exactly once: after the work, when the work fails, or, for a
     * subscription cancelled before the offloaded task ran, by the task (which then skips the work).
     */
    static final class ReceiveInto extends Mono<Void> {

        private final Peers p;
        private final int peer;
        private final int step;
        private final int chunk;
        private final ReduceOp op;          // null: copy
        private final DType dtype;
        private final ByteBuf dst;
        private final int index;
        private final int count;            // elements to reduce, or bytes to copy
        private final int length;           // bytes expected

        ReceiveInto(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype, ByteBuf dst, int index, int count,
                    int length) {
            this.p = p;
            this.peer = peer;
            this.step = step;
            this.chunk = chunk;
            this.op = op;
            this.dtype = dtype;
            this.dst = dst;
            this.index = index;
            this.count = count;
            this.length = length;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            // worked on inside onNext (not offloaded): the piece may be lent where the transport received it
            (offloaded() ? p.receiveScattered(peer, step, chunk) : p.receiveLent(peer, step, chunk))
                    .subscribe(new Into(actual, this));
        }

        /** Whether the work runs on {@link Schedulers#parallel()} rather than in {@code onNext}. */
        private boolean offloaded() {
            return OFFLOAD_BYTES > 0 && length >= OFFLOAD_BYTES;
        }

        /** Checks the piece's length and reduces or copies it into place; does not release it. */
        void work(ByteBuf in) {
            checkLength(p, peer, step, chunk, in, length);
            if (op == null) {
                ByteCopies.copy(in, in.readerIndex(), dst, index, length);
            } else if (count > 0) {
                ReduceKernels.reduceIntoScattered(op, dtype, dst, index, in, in.readerIndex(), count);
            }
        }

        /** The subscriber of the receive, the subscription downstream and the offloaded task. */
        static final class Into implements CoreSubscriber<ByteBuf>, Subscription, Runnable {
            private static final AtomicIntegerFieldUpdater<Into> DONE = AtomicIntegerFieldUpdater.newUpdater(Into.class, "done");

            private final CoreSubscriber<? super Void> actual;
            private final ReceiveInto parent;
            private Subscription s;
            private ByteBuf piece;          // handed to the offloaded task
            private boolean received;       // onNext came: the completion is the work's
            volatile int done;              // 1 once terminated or cancelled downstream

            Into(CoreSubscriber<? super Void> actual, ReceiveInto parent) {
                this.actual = actual;
                this.parent = parent;
            }

            @Override
            public Context currentContext() {
                return actual.currentContext();
            }

            @Override
            public void onSubscribe(Subscription s) {
                if (Operators.validate(this.s, s)) {
                    this.s = s;
                    actual.onSubscribe(this);
                    s.request(1);
                }
            }

            @Override
            public void onNext(ByteBuf b) {
                received = true;
                if (!parent.offloaded()) {
                    try {
                        parent.work(b);
                    } catch (RuntimeException e) {
                        b.release();
                        s.cancel();
                        error(e);
                        return;
                    }
                    b.release();
                    complete();
                    return;
                }
                piece = b;
                try {
                    Schedulers.parallel().schedule(this);
                } catch (RejectedExecutionException e) {
                    piece = null;
                    b.release();
                    error(e);
                }
            }

            /** The offloaded work: always releases the piece; skips the work when cancelled. */
            @Override
            public void run() {
                ByteBuf b = piece;
                piece = null;
                try {
                    if (done == 0) {
                        parent.work(b);
                    }
                } catch (RuntimeException e) {
                    b.release();
                    error(e);
                    return;
                }
                b.release();
                complete();
            }

            @Override
            public void onError(Throwable t) {
                if (received) {
                    return;
                }
                error(t);
            }

            @Override
            public void onComplete() {
                if (!received) {
                    complete();  // an empty receive: nothing to reduce
                }
            }

            private void complete() {
                if (DONE.compareAndSet(this, 0, 1)) {
                    actual.onComplete();
                }
            }

            private void error(Throwable t) {
                if (DONE.compareAndSet(this, 0, 1)) {
                    actual.onError(t);
                }
            }

            @Override
            public void request(long n) {
                // completes without a value: nothing to wait for
            }

            @Override
            public void cancel() {
                if (DONE.compareAndSet(this, 0, 1)) {
                    s.cancel();
                }
            }
        }
    }
}
