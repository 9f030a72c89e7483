package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.util.BitSet;

/**
 * The receipts (ACK frames) a collective waits for: a rank that only sends in a collective
 * completes once every rank it sent to confirmed that the frames agreed with its own collective.
 * State lives in the {@link CollectiveBox}, guarded by the box itself. Stateless.
 */
final class Receipts {

    private Receipts() {
    }

    static void received(CollectiveBox box, int source) {
        MonoSink<Void> done = null;
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
            done.success();
        }
    }

    static Mono<Void> await(CollectiveBox box, BitSet peers) {
        return Mono.create(sink -> {
            CollectiveException fail;
            boolean done = false;
            synchronized (box) {
                fail = box.receiptFailure;
                if (fail == null) {
                    box.acksAwaited = peers;
                    if (allIn(box)) {
                        done = true;
                    } else {
                        box.ackWaiter = sink;
                    }
                }
            }
            if (fail != null) {
                sink.error(fail);
            } else if (done) {
                sink.success();
            } else {
                sink.onCancel(() -> {
                    synchronized (box) {
                        if (box.ackWaiter == sink) {
                            box.ackWaiter = null;
                        }
                    }
                });
            }
        });
    }

    /** The collective failed: its wait for receipts fails with {@code e}. */
    static void fail(CollectiveBox box, CollectiveException e) {
        MonoSink<Void> waiter;
        synchronized (box) {
            if (box.receiptFailure == null) {
                box.receiptFailure = e;
            }
            waiter = box.ackWaiter;
            box.ackWaiter = null;
        }
        if (waiter != null) {
            waiter.error(e);
        }
    }

    private static boolean allIn(CollectiveBox box) {
        BitSet missing = (BitSet) box.acksAwaited.clone();
        if (box.acksReceived != null) {
            missing.andNot(box.acksReceived);
        }
        return missing.isEmpty();
    }
}
