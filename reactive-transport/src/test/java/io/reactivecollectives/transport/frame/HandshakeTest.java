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
}
