package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One DATA frame of a {@link CollectiveChannel}: written on subscription, completes when the frame
 * was handed to the socket. A hand-written operator (one object per subscription, the
 * {@link Writer}, which also listens to the write's future) instead of {@code Mono.defer},
 * {@code Mono.create} and {@code onErrorMap}: a send runs for every pipelined segment.
 *
 * <p>The payload is either a byte range of a buffer, sliced (retained) on each subscription, or a
 * payload given up front whose one reference the first subscription takes (or that is released
 * when that subscription is cancelled before the write).
 */
final class DataSend extends Mono<Void> {

    private final CollectiveChannel channel;
    private final int peer;
    private final int step;
    private final int chunk;
    private final ByteBuf buf;
    private final int index;
    private final int length;
    private final boolean sliced;

    /** Sends bytes {@code [index, index + length)} of {@code buf} as a retained slice made on subscription. */
    static DataSend range(CollectiveChannel channel, int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return new DataSend(channel, peer, step, chunk, buf, index, length, true);
    }

    /** Sends {@code payload} (ownership taken). */
    static DataSend payload(CollectiveChannel channel, int peer, int step, int chunk, ByteBuf payload) {
        return new DataSend(channel, peer, step, chunk, payload, 0, 0, false);
    }

    private DataSend(CollectiveChannel channel, int peer, int step, int chunk, ByteBuf buf, int index, int length,
                     boolean sliced) {
        this.channel = channel;
        this.peer = peer;
        this.step = step;
        this.chunk = chunk;
        this.buf = buf;
        this.index = index;
        this.length = length;
        this.sliced = sliced;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Writer w = new Writer(actual, this);
        actual.onSubscribe(w);
        if (w.done != 0) {
            if (!sliced) {
                ReferenceCountUtil.safeRelease(buf);
            }
            return;
        }
        ByteBuf payload;
        try {
            payload = sliced ? buf.retainedSlice(index, length) : buf;
        } catch (RuntimeException e) {
            w.fail(e);
            return;
        }
        Future<Void> f;
        try {
            f = channel.writeData(peer, step, chunk, payload);
        } catch (RuntimeException e) {
            w.fail(channel.sendFailure(peer, e));
            return;
        }
        if (f.isDone()) {
            w.operationComplete(f);   // written already (shared memory): no listener to register and notify
        } else {
            f.addListener(w);
        }
    }

    /** The subscription and the write's listener. */
    static final class Writer implements org.reactivestreams.Subscription, GenericFutureListener<Future<? super Void>> {
        private static final AtomicIntegerFieldUpdater<Writer> DONE = AtomicIntegerFieldUpdater.newUpdater(Writer.class, "done");

        private final CoreSubscriber<? super Void> actual;
        private final DataSend send;
        volatile int done;

        Writer(CoreSubscriber<? super Void> actual, DataSend send) {
            this.actual = actual;
            this.send = send;
        }

        @Override
        public void operationComplete(Future<? super Void> f) {
            if (f.isSuccess()) {
                if (DONE.compareAndSet(this, 0, 1)) {
                    actual.onComplete();
                }
            } else {
                fail(send.channel.sendFailure(send.peer, send.channel.writeFailure(send.peer, f.cause())));
            }
        }

        void fail(Throwable e) {
            if (DONE.compareAndSet(this, 0, 1)) {
                actual.onError(e);
            }
        }

        @Override
        public void request(long n) {
            // completes without a value: nothing to wait for
        }

        @Override
        public void cancel() {
            DONE.set(this, 1);
        }
    }
}
