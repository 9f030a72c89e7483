package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.transport.wire.LentBuffer;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Payloads lent by the transport ({@link LentBuffer}) reach only a receive that borrows (one that
 * requested and finishes with the payload inside {@code onNext}); whatever outlives the delivery (a
 * payload that waits in its slot, one for a plain receive or for a receive that has not requested
 * yet) is a copy, and the lent buffer is released before the delivery returns.
 */
class LentPayloadTest {

    private final Mailbox mailbox = new Mailbox(1 << 20, () -> { }, () -> { });
    private final CollectiveBox box = mailbox.open("test");

    private static ByteBuf lent(long value) {
        ByteBuffer memory = ByteBuffer.allocateDirect(8);
        memory.putLong(0, value);
        return new LentBuffer(PooledByteBufAllocator.DEFAULT, memory);
    }

    private void deliver(int step, ByteBuf b) {
        mailbox.deliver(box.sequence(), 0, step, 0, 1, 0L, 0L, b, (peer, seq) -> { });
    }

    /** A subscriber that records what it was given, whether it was lent, and releases it inside onNext. */
    private static final class Borrower extends BaseSubscriber<ByteBuf> {
        final AtomicReference<ByteBuf> seen = new AtomicReference<>();
        boolean wasLent;
        long value;
        private final boolean request;

        Borrower(boolean request) {
            this.request = request;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            if (request) {
                s.request(1);
            }
        }

        @Override
        protected void hookOnNext(ByteBuf b) {
            seen.set(b);
            wasLent = LentBuffer.isLent(b);
            value = b.getLong(b.readerIndex());
            b.release();
        }
    }

    @Test
    void aBorrowingReceiveThatWaitsGetsTheLentBufferItself() {
        Borrower r = new Borrower(true);
        mailbox.receiveLent(box, 0, 0, 0, 1, ReceiveHooks.NONE).subscribe(r);
        ByteBuf b = lent(7);
        deliver(0, b);
        assertSame(b, r.seen.get());
        assertTrue(r.wasLent);
        assertEquals(7, r.value);
        assertEquals(0, b.refCnt(), "released inside onNext");
    }

    @Test
    void aPayloadThatWaitsInItsSlotIsACopy() {
        ByteBuf b = lent(8);
        deliver(1, b);
        assertEquals(0, b.refCnt(), "released when stored, before any receive");
        Borrower r = new Borrower(true);
        mailbox.receiveLent(box, 0, 1, 0, 1, ReceiveHooks.NONE).subscribe(r);
        assertGotACopy(r, b, 8);
    }

    @Test
    void aPlainReceiveGetsACopy() {
        Borrower r = new Borrower(true);
        mailbox.receive(box, 0, 2, 0, 1, ReceiveHooks.NONE).subscribe(r);
        ByteBuf b = lent(9);
        deliver(2, b);
        assertGotACopy(r, b, 9);
    }

    @Test
    void aBorrowingReceiveThatHasNotRequestedGetsACopyLater() {
        Borrower r = new Borrower(false);
        mailbox.receiveLent(box, 0, 3, 0, 1, ReceiveHooks.NONE).subscribe(r);
        ByteBuf b = lent(10);
        deliver(3, b);
        assertEquals(0, b.refCnt(), "not held for the request: copied");
        r.request(1);
        assertGotACopy(r, b, 10);
    }

    /** {@code r} got a copy of {@code value}, and the lent buffer was released before the delivery returned. */
    private static void assertGotACopy(Borrower r, ByteBuf lentBuffer, long value) {
        assertEquals(0, lentBuffer.refCnt(), "the lent buffer is released before the delivery returns");
        assertNotNull(r.seen.get(), "delivered");
        assertFalse(r.wasLent, "a copy, not the lent buffer");
        assertEquals(value, r.value);
    }

    @Test
    void keepIsTheIdentityForOtherBuffers() {
        ByteBuf plain = PooledByteBufAllocator.DEFAULT.directBuffer(8).writeLong(1);
        assertSame(plain, LentBuffer.keep(plain));
        assertTrue(plain.release());
    }
}
