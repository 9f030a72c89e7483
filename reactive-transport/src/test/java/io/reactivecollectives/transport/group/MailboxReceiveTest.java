package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.CollectiveException;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mailbox's hand-written receive operator: a payload goes downstream once requested whether it
 * came before or after the subscription, and a payload nobody takes (cancelled before it arrived,
 * or while it waited for a request) is released, and its slot freed, exactly once.
 */
class MailboxReceiveTest {

    private final Mailbox mailbox = new Mailbox(1 << 20, () -> { }, () -> { });
    private final CollectiveBox box = mailbox.open("test");

    private static ByteBuf payload() {
        return Unpooled.directBuffer(8).writeLong(42);
    }

    private void deliver(int step, ByteBuf b) {
        mailbox.deliver(box.sequence(), 0, step, 0, 1, 0L, 0L, b, (peer, seq) -> { });
    }

    @Test
    void aPayloadThatCameFirstWaitsForTheRequest() {
        ByteBuf b = payload();
        deliver(0, b);
        assertEquals(64, mailbox.unclaimedBytes());
        StepVerifier.create(mailbox.receive(box, 0, 0, 0, 1, ReceiveHooks.NONE), 0)
                .expectSubscription()
                .then(() -> assertEquals(0, mailbox.unclaimedBytes()))
                .thenRequest(1)
                .assertNext(got -> {
                    assertTrue(got == b);
                    got.release();
                })
                .verifyComplete();
    }

    @Test
    void aWaitingReceiveGetsThePayloadWhenItArrives() {
        ByteBuf b = payload();
        StepVerifier.create(mailbox.receive(box, 0, 3, 0, 1, ReceiveHooks.NONE))
                .then(() -> deliver(3, b))
                .assertNext(got -> {
                    assertEquals(42, got.getLong(got.readerIndex()));
                    got.release();
                })
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }

    /**
     * CI failure of 2026-11-29: a DATA frame the shared-memory poller delivered after the group
     * closed (after {@link Mailbox#clear()}) was kept in a new box nobody would ever clear, a leak.
     */
    @Test
    void aFrameArrivingAfterTheMailboxWasClearedIsReleased() {
        mailbox.clear();
        ByteBuf late = payload();
        mailbox.deliver(box.sequence() + 1, 0, 0, 0, 1, 0L, 0L, late, (peer, seq) -> { });
        assertEquals(0, late.refCnt());
        assertEquals(0, mailbox.unclaimedBytes());
        assertEquals(0, mailbox.openBoxes());
    }

    /**
     * A collective that passed the group's checks just before {@code abort()} and opens its box after
     * the abort failed every open one fails the same way, at once (it used to wait and fail later on
     * the closed connections, naming a peer: seen once in CI's {@code AbortShrinkTest}).
     */
    @Test
    void aBoxOpenedAfterFailAllFailsAtOnceWithItsError() {
        mailbox.failAll(b -> new io.reactivecollectives.core.GroupAbortedException(b.opName(), 1, b.sequence(),
                CollectiveException.NO_PEER, "the group was aborted"));
        CollectiveBox late = mailbox.open("allReduce");
        ByteBuf early = payload();
        StepVerifier.create(mailbox.receive(late, 0, 0, 0, 2, ReceiveHooks.NONE))
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof io.reactivecollectives.core.GroupAbortedException, e.toString());
                    assertTrue(e.getMessage().startsWith("allReduce[seq=" + late.sequence() + "] rank 1: the group was aborted"),
                            e.getMessage());
                })
                .verify(Duration.ofSeconds(5));
        mailbox.deliver(late.sequence(), 0, 1, 0, 2, 0L, 0L, early, (peer, seq) -> { });
        assertEquals(0, early.refCnt(), "a frame for a failed box is released");
        mailbox.close(late);
    }

    @Test
    void aPayloadForACancelledReceiveIsReleasedAndItsSlotFreed() {
        Disposable d = mailbox.receive(box, 0, 1, 0, 1, ReceiveHooks.NONE).subscribe(got -> got.release());
        d.dispose();
        ByteBuf late = payload();
        deliver(1, late);
        // the cancelled receive left its slot: the frame waits there for a new receive
        assertEquals(1, late.refCnt());
        assertEquals(64, mailbox.unclaimedBytes());
        StepVerifier.create(mailbox.receive(box, 0, 1, 0, 1, ReceiveHooks.NONE))
                .assertNext(got -> {
                    assertTrue(got == late);
                    got.release();
                })
                .verifyComplete();
    }

    @Test
    void aPayloadHeldForARequestIsReleasedOnCancel() {
        ByteBuf b = payload();
        deliver(2, b);
        BaseSubscriber<ByteBuf> idle = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                // requests nothing: the payload waits in the subscription
            }
        };
        mailbox.receive(box, 0, 2, 0, 1, ReceiveHooks.NONE).subscribe(idle);
        assertEquals(1, b.refCnt());
        idle.dispose();
        assertEquals(0, b.refCnt());
        assertEquals(0, mailbox.unclaimedBytes());
    }

    @Test
    void aFailedBoxFailsWaitingAndLaterReceivesAndReleasesWhatArrived() {
        CollectiveException e = new CollectiveException("test", 0, box.sequence(), 1, "failed here", null);
        ByteBuf early = payload();
        deliver(5, early);
        StepVerifier.create(mailbox.receive(box, 0, 4, 0, 1, ReceiveHooks.NONE))
                .then(() -> mailbox.fail(box, e))
                .expectErrorMatches(t -> t == e)
                .verify(Duration.ofSeconds(5));
        assertEquals(0, early.refCnt());
        StepVerifier.create(mailbox.receive(box, 0, 6, 0, 1, ReceiveHooks.NONE)).expectErrorMatches(t -> t == e).verify(Duration.ofSeconds(5));
    }

    @Test
    void hooksHearTheWaitAndTheBytes() {
        int[] waited = {-1};
        int[] bytes = {-1};
        ReceiveHooks hooks = new ReceiveHooks() {
            @Override
            public void waiting(int source) {
                waited[0] = source;
            }

            @Override
            public void received(int source, ByteBuf p) {
                bytes[0] = p.readableBytes();
            }
        };
        StepVerifier.create(mailbox.receive(box, 0, 7, 0, 1, hooks))
                .then(() -> {
                    assertEquals(1, waited[0]);
                    deliver(7, payload());
                })
                .assertNext(ByteBuf::release)
                .verifyComplete();
        assertEquals(8, bytes[0]);
    }
}
