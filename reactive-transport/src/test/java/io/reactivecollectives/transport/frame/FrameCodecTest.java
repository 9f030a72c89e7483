package io.reactivecollectives.transport.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frame layout, the handshake codec and the decoder's splitting, limits and errors. */
class FrameCodecTest {

    /** Collects decoded frames and the first error. */
    static final class Sink extends ChannelInboundHandlerAdapter {
        final List<ByteBuf> frames = new ArrayList<>();
        Throwable error;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add((ByteBuf) msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (error == null) {
                error = cause;
            }
        }

        void release() {
            frames.forEach(ByteBuf::release);
        }
    }

    static ByteBuf frame(long seq, int payloadBytes) {
        ByteBuf h = FrameCodec.encodeHeader(ByteBufAllocator.DEFAULT, FrameType.DATA, 77, seq, 5, 2, 9, 3,
                payloadBytes, payloadBytes);
        for (int i = 0; i < payloadBytes; i++) {
            h.writeByte(i);
        }
        return h;
    }

    /** The header encoded into an array (reused by a ring's writer, and under every heap header) is, byte for byte, the buffer's; every field reads back. */
    @Test
    void aHeaderEncodedIntoAnArrayEqualsTheBuffersHeader() {
        byte[] array = new byte[FrameCodec.PREFIXED_HEADER];
        java.util.Arrays.fill(array, (byte) 0x5a);   // what the previous header left
        FrameCodec.encodeHeaderInto(array, FrameType.DATA, -7, 1L << 40 | 3, 11, -2, 1 << 20, 65_000,
                0x0123_4567_89ab_cdefL, -5L, 4096);
        ByteBuf expected = FrameCodec.encodeHeader(ByteBufAllocator.DEFAULT, FrameType.DATA, -7, 1L << 40 | 3, 11, -2,
                1 << 20, 65_000, 0x0123_4567_89ab_cdefL, -5L, 4096, 0);
        try {
            byte[] bytes = new byte[expected.readableBytes()];
            expected.getBytes(expected.readerIndex(), bytes);
            assertEquals(java.util.HexFormat.of().formatHex(bytes), java.util.HexFormat.of().formatHex(array));
            ByteBuf onHeap = FrameCodec.encodeHeaderOnHeap(FrameType.DATA, -7, 1L << 40 | 3, 11, -2, 1 << 20, 65_000,
                    0x0123_4567_89ab_cdefL, -5L, 4096);
            assertEquals(0, onHeap.readerIndex());
            assertEquals(FrameCodec.PREFIXED_HEADER, onHeap.readableBytes());
            assertEquals(expected, onHeap, "the heap header, as the pooled one");
            ByteBuf frame = Unpooled.wrappedBuffer(array, FrameCodec.LENGTH_FIELD, FrameCodec.HEADER);
            assertEquals(FrameType.DATA, FrameCodec.validate(frame));
            assertEquals(-7, FrameCodec.group(frame));
            assertEquals(1L << 40 | 3, FrameCodec.sequence(frame));
            assertEquals(11, FrameCodec.tag(frame));
            assertEquals(-2, FrameCodec.step(frame));
            assertEquals(1 << 20, FrameCodec.chunk(frame));
            assertEquals(65_000, FrameCodec.source(frame));
            assertEquals(0x0123_4567_89ab_cdefL, FrameCodec.agreementWord(frame));
            assertEquals(-5L, FrameCodec.agreementCount(frame));
            assertEquals(FrameCodec.HEADER + 4096, Unpooled.wrappedBuffer(array).getInt(0), "the length prefix");
        } finally {
            expected.release();
        }
    }

    @Test
    void headerFieldsRoundTrip() {
        ByteBuf f = frame(41, 10);
        try {
            assertEquals(FrameCodec.PREFIXED_HEADER + 10, f.readableBytes());
            assertEquals(FrameCodec.HEADER + 10, f.readInt());
            assertEquals(FrameType.DATA, FrameCodec.validate(f));
            assertEquals(77, FrameCodec.group(f));
            assertEquals(41, FrameCodec.sequence(f));
            assertEquals(5, FrameCodec.tag(f));
            assertEquals(2, FrameCodec.step(f));
            assertEquals(9, FrameCodec.chunk(f));
            assertEquals(3, FrameCodec.source(f));
            assertEquals(10, FrameCodec.payloadLength(f));
            ByteBuf p = FrameCodec.retainedPayload(f);
            assertEquals(9, p.getByte(9));
            p.release();
        } finally {
            f.release();
        }
    }

    @Test
    void malformedHeadersAreRejected() {
        ByteBuf f = frame(1, 0);
        try {
            f.readInt();
            f.setShort(f.readerIndex(), 0x1234);
            assertThrows(MalformedFrameException.class, () -> FrameCodec.validate(f));
            f.setShort(f.readerIndex(), FrameCodec.MAGIC);
            f.setByte(f.readerIndex() + 3, 99);
            assertThrows(MalformedFrameException.class, () -> FrameCodec.validate(f));
            assertThrows(MalformedFrameException.class, () -> FrameCodec.validate(Unpooled.wrappedBuffer(new byte[5])));
        } finally {
            f.release();
        }
    }

    @Test
    void handshakeRoundTripAndMac() {
        ByteBuf h = Handshake.encode(ByteBufAllocator.DEFAULT, FrameType.HELLO, "g1", 2, 4, 0, "s3cret");
        try {
            h.readInt();
            Handshake.Hello hello = Handshake.decode(h);
            assertEquals("g1", hello.groupName());
            assertEquals(2, hello.rank());
            assertEquals(4, hello.worldSize());
            assertTrue(Handshake.verify(hello, "s3cret", 0));
            assertFalse(Handshake.verify(hello, "other", 0));
            assertFalse(Handshake.verify(hello, "s3cret", 1), "a MAC for rank 0 does not pass at rank 1");
        } finally {
            h.release();
        }
    }

    @Test
    void decoderSplitsWholeAndPartialFrames() {
        Sink sink = new Sink();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20), sink);
        try {
            // two whole frames in one buffer, then one frame cut into three reads (cut inside the length too)
            ByteBuf both = Unpooled.directBuffer();
            ByteBuf a = frame(1, 3);
            ByteBuf b = frame(2, 0);
            both.writeBytes(a).writeBytes(b);
            a.release();
            b.release();
            ch.writeInbound(both);
            ByteBuf c = frame(3, 5000);
            ch.writeInbound(c.readRetainedSlice(2));
            ch.writeInbound(c.readRetainedSlice(1000));
            ch.writeInbound(c.readRetainedSlice(c.readableBytes()));
            c.release();
            assertEquals(3, sink.frames.size());
            assertEquals(1, FrameCodec.sequence(sink.frames.get(0)));
            assertEquals(3, FrameCodec.payloadLength(sink.frames.get(0)));
            assertEquals(2, FrameCodec.sequence(sink.frames.get(1)));
            assertEquals(3, FrameCodec.sequence(sink.frames.get(2)));
            assertEquals(5000, FrameCodec.payloadLength(sink.frames.get(2)));
            ByteBuf p = sink.frames.get(2);
            assertEquals((byte) 4999, p.getByte(p.readerIndex() + FrameCodec.HEADER + 4999));
        } finally {
            sink.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aLargeFrameThatSpansReadsIsAssembledWithoutCopying() {
        Sink sink = new Sink();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20), sink);
        try {
            int payload = FrameDecoder.SCATTER_MIN_BYTES * 3 + 5;
            ByteBuf c = frame(9, payload);
            ByteBuf[] reads = {c.readRetainedSlice(3), c.readRetainedSlice(40_000), c.readRetainedSlice(1),
                c.readRetainedSlice(c.readableBytes())};
            c.release();
            for (ByteBuf r : reads) {
                ch.writeInbound(r);
            }
            assertEquals(1, sink.frames.size());
            ByteBuf f = sink.frames.get(0);
            assertTrue(f instanceof io.netty.buffer.CompositeByteBuf, "assembled from the reads themselves: " + f);
            assertEquals(9, FrameCodec.sequence(f));
            assertEquals(payload, FrameCodec.payloadLength(f));
            for (int i = 0; i < payload; i += 997) {
                assertEquals((byte) i, f.getByte(f.readerIndex() + FrameCodec.HEADER + i), "payload byte " + i);
            }
        } finally {
            sink.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void oversizedOrUndersizedLengthFailsWithoutAllocating() {
        for (int len : new int[] {Integer.MAX_VALUE, (1 << 20) + FrameCodec.HEADER + 1, 3, -1}) {
            Sink sink = new Sink();
            EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20), sink);
            try {
                ByteBuf bad = Unpooled.buffer().writeInt(len).writeBytes(new byte[64]);
                ch.writeInbound(bad);
                assertTrue(sink.error instanceof MalformedFrameException, "length " + len + ": " + sink.error);
                assertTrue(sink.frames.isEmpty());
                // the rest of the stream is dropped
                ch.writeInbound(frame(1, 1));
                assertTrue(sink.frames.isEmpty());
            } finally {
                sink.release();
                ch.finishAndReleaseAll();
            }
        }
    }
}
