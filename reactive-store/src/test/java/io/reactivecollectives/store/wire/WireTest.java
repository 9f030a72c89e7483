package io.reactivecollectives.store.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared wire pieces on their own: the HMAC, the Unix socket files and the decoder's errors and stall timeout. */
class WireTest {

    private static final LengthPrefixedDecoder.Errors ERRORS = (length, min, max) ->
            new IllegalArgumentException("length " + length + " not in " + min + ".." + max);

    @Test
    void hmacMatchesRfc4231AndChecksInConstantTime() {
        byte[] key = "Jefe".getBytes(StandardCharsets.US_ASCII);
        byte[] data = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
        byte[] want = HexFormat.of().parseHex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        assertArrayEquals(want, HandshakeMac.mac(key, data));
        assertTrue(HandshakeMac.verify(key, data, want));
        want[0] ^= 1;
        assertFalse(HandshakeMac.verify(key, data, want));
        assertEquals(32, HandshakeMac.nonce(32).length);
        assertFalse(java.util.Arrays.equals(HandshakeMac.nonce(32), HandshakeMac.nonce(32)));
    }

    @Test
    void socketFilesLiveInTheTempDirAndAreDeletedBestEffort() throws Exception {
        Path p = UnixSocketFiles.inTempDir("rc-wire-test-" + ProcessHandle.current().pid() + ".sock");
        assertEquals(Path.of(System.getProperty("java.io.tmpdir")), p.getParent());
        Files.writeString(p, "x");
        assertTrue(UnixSocketFiles.exists(p));
        UnixSocketFiles.deleteNowOrLater(p); // a test thread may block: at once
        assertFalse(UnixSocketFiles.exists(p));
        UnixSocketFiles.delete(p); // already gone: no error
        assertTrue(io.reactivecollectives.store.settings.StoreSettings.STORE_UNIX_SOCKETS.get());
        System.setProperty("rc.store.unixSockets", "FALSE");
        try {
            assertFalse(io.reactivecollectives.store.settings.StoreSettings.STORE_UNIX_SOCKETS.get());
        } finally {
            System.clearProperty("rc.store.unixSockets");
        }
    }

    @Test
    void aBadLengthFailsWithTheProtocolsErrorAndDropsTheRest() {
        Sink sink = new Sink();
        EmbeddedChannel ch = new EmbeddedChannel(new LengthPrefixedDecoder(2, 100, 0, ERRORS), sink);
        try {
            ch.writeInbound(Unpooled.buffer().writeInt(1).writeShort(7).writeInt(101));
            assertEquals("length 1 not in 2..100", sink.error.getMessage());
            ch.writeInbound(Unpooled.buffer().writeInt(2).writeShort(7));
            assertTrue(sink.frames.isEmpty());
        } finally {
            sink.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aFrameThatStallsFailsOnceTheTimeoutHasPassed() throws Exception {
        Sink sink = new Sink();
        EmbeddedChannel ch = new EmbeddedChannel(new LengthPrefixedDecoder(2, 100, 20_000_000L, ERRORS), sink);
        try {
            ch.writeInbound(Unpooled.buffer().writeInt(2).writeShort(5).writeInt(10).writeByte(1));
            assertEquals(1, sink.frames.size());
            assertEquals(5, sink.frames.get(0).getShort(0));
            Thread.sleep(60);
            ch.runPendingTasks();
            ch.runScheduledPendingTasks();
            assertNotNull(sink.error, "5 bytes of a 14-byte frame and nothing more");
            assertTrue(sink.error.getMessage().startsWith("incomplete frame: 5 bytes of a frame"), sink.error.getMessage());
        } finally {
            sink.release();
            ch.finishAndReleaseAll();
        }
    }

    private static final class Sink extends ChannelInboundHandlerAdapter {
        final List<ByteBuf> frames = new ArrayList<>();
        Throwable error;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add((ByteBuf) msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            error = cause;
        }

        void release() {
            frames.forEach(ByteBuf::release);
        }
    }
}
