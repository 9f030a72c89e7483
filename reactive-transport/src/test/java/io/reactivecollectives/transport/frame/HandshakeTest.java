package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Handshake version 2: the sender's address, a rejection's reason under the MAC, and version 1 refused. */
class HandshakeTest {

    @Test
    void aRejectionCarriesItsReasonAndItsMacCoversIt() {
        ByteBuf h = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO_ACK, "g", 0, 2, 1, "127.0.0.1:5",
                "world size mismatch: rank 0 has world size 2, rank 1 has world size 3", "s3cret");
        try {
            h.readInt();
            Handshake.Hello ack = Handshake.decode(h);
            assertTrue(ack.isRejection());
            assertEquals("127.0.0.1:5", ack.address());
            assertEquals("world size mismatch: rank 0 has world size 2, rank 1 has world size 3", ack.error());
            assertTrue(Handshake.verify(ack, "s3cret", 1));
            Handshake.Hello forged = new Handshake.Hello(ack.type(), ack.groupName(), ack.rank(), ack.worldSize(),
                    ack.address(), "something else", ack.mac());
            assertFalse(Handshake.verify(forged, "s3cret", 1), "the reason is under the MAC");
        } finally {
            h.release();
        }
    }

    @Test
    void aLongReasonIsCutToFitTheHandshakeLimit() {
        ByteBuf h = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO_ACK, "g", 0, 2, 1, "", "x".repeat(10_000),
                null);
        try {
            h.readInt();
            assertTrue(h.readableBytes() <= FrameCodec.HEADER + Handshake.MAX_PAYLOAD);
            assertEquals(2048, Handshake.decode(h).error().length());
        } finally {
            h.release();
        }
    }

    @Test
    void aVersionOneHelloIsRefusedWithAMessage() {
        // version 1 began with the rank: its high byte reads as version 0
        ByteBuf h = FrameCodec.encodeHeader(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g".hashCode(), 0, 0, 0, 0, 1, 17, 17);
        h.writeInt(1).writeInt(2).writeShort(1).writeByte('g').writeByte(0).writeZero(5);
        try {
            h.readInt();
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> Handshake.decode(h));
            assertEquals("handshake version 0, this rank speaks version 2", e.getMessage());
        } finally {
            h.release();
        }
    }

    @Test
    void theOnlyConnectionOfAPairWritesTheBytesOfBeforeStripes() {
        ByteBuf plain = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g", 3, 4, 1, "h:1", "", "s3cret");
        ByteBuf first = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g", 3, 4, 1, "h:1", "", "s3cret", 0, 1);
        try {
            assertEquals(plain, first);
            assertEquals(0, FrameCodec.tag(plain.slice(4, plain.readableBytes() - 4)), "no stripe count on the wire");
            assertEquals(0, FrameCodec.step(plain.slice(4, plain.readableBytes() - 4)), "no stripe index on the wire");
        } finally {
            plain.release();
            first.release();
        }
    }

    @Test
    void aStripeSaysWhichItIsUnderTheMac() {
        ByteBuf h = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g", 3, 4, 1, "h:1", "", "s3cret", 2, 3);
        try {
            h.readInt();
            Handshake.Hello hello = Handshake.decode(h);
            assertEquals(2, hello.stripe());
            assertEquals(3, hello.stripes());
            assertTrue(Handshake.verify(hello, "s3cret", 1));
            Handshake.Hello moved = new Handshake.Hello(hello.type(), hello.groupName(), hello.rank(), hello.worldSize(),
                    hello.address(), hello.error(), hello.mac(), 1, 3);
            assertFalse(Handshake.verify(moved, "s3cret", 1), "the stripe is under the MAC");
            Handshake.Hello counted = new Handshake.Hello(hello.type(), hello.groupName(), hello.rank(), hello.worldSize(),
                    hello.address(), hello.error(), hello.mac(), 2, 4);
            assertFalse(Handshake.verify(counted, "s3cret", 1), "the stripe count is under the MAC");
        } finally {
            h.release();
        }
    }

    @Test
    void aStripeOutOfRangeIsMalformed() {
        assertThrows(IllegalArgumentException.class, () -> Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO,
                "g", 3, 4, 1, "", "", null, 3, 3));
        ByteBuf h = FrameCodec.encodeHeader(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g".hashCode(), 0, 2, 5, 0, 1, 0, 0);
        try {
            h.readInt();
            MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> Handshake.decode(h));
            assertEquals("handshake names stripe 5 of 2", e.getMessage());
        } finally {
            h.release();
        }
    }
}
