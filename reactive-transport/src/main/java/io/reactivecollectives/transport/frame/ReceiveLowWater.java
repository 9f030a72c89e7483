package io.reactivecollectives.transport.frame;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.channel.unix.IntegerUnixChannelOption;

/**
 * A connection's receive low-water mark ({@code SO_RCVLOWAT}) kept at the bytes still missing of the
 * large frame being received, up to a cap, so that its event loop is woken once that much has
 * arrived rather than on every arrival. Over a paced link (1 Gbit/s) a 256 KiB frame otherwise
 * arrives in several wake-ups, each paying the loop's and the pipeline's per-read work and a
 * context switch, while the frame is of no use to anyone until it is whole.
 *
 * <p>The mark is never above the frame's missing bytes, so the frame's own bytes always wake the
 * loop (its peer may send nothing after it), and it is 1 (the default) between frames and for
 * frames under {@link #MIN_BYTES}. Lowering the mark below what is already queued wakes the reader
 * at once on Linux 4.18 and later, which is therefore required. Native epoll TCP channels only:
 * anything else (NIO, Unix sockets), an older kernel or a refused option leaves the socket alone.
 * Only where the decoder sees the socket's bytes as they arrive: under TLS the socket carries
 * records, part of which the TLS handler may hold, and a mark at the frame's missing plaintext could
 * then wait for bytes that never come, so a channel with a TLS handler is left alone too.
 * One instance per connection, used on its event loop only.
 */
final class ReceiveLowWater {

    /** Frames missing fewer bytes than this wake the loop on any arrival. */
    static final int MIN_BYTES = 64 * 1024;

    /** Linux's {@code SOL_SOCKET} / {@code SO_RCVLOWAT} (the same on x86-64 and arm64). */
    private static final IntegerUnixChannelOption SO_RCVLOWAT = new IntegerUnixChannelOption("SO_RCVLOWAT", 1, 18);

    private static final boolean KERNEL_WAKES_ON_LOWER = kernelAtLeast(System.getProperty("os.name", ""),
            System.getProperty("os.version", ""), 4, 18);

    private final int maxBytes;
    private int mark = 1;
    private boolean off;

    /**
     * @param maxBytes the highest mark; under {@link #MIN_BYTES} the mark is never set
     */
    ReceiveLowWater(int maxBytes) {
        this.maxBytes = maxBytes;
        this.off = maxBytes < MIN_BYTES || !KERNEL_WAKES_ON_LOWER;
    }

    /**
     * Sets the mark for a frame missing {@code missingBytes} (0: none partly here), when it changes.
     *
     * @param channel      the connection
     * @param missingBytes bytes of the frame now arriving still to come, or 0
     */
    void await(Channel channel, int missingBytes) {
        if (off) {
            return;
        }
        int want = missingBytes >= MIN_BYTES ? Math.min(missingBytes, maxBytes) : 1;
        if (want == mark) {
            return;
        }
        if (!(channel instanceof EpollSocketChannel) || channel.pipeline().get(SslHandler.class) != null) {
            off = true;   // decided at the first frame that would set a mark, before any is set
            return;
        }
        try {
            if (channel.config().setOption(SO_RCVLOWAT, want)) {
                mark = want;
            } else {
                off = true;
            }
        } catch (ChannelException closedOrRefused) {
            off = true; // a closed socket wakes its reader anyway
        }
    }

    /** Whether this is Linux {@code major.minor} or later. */
    static boolean kernelAtLeast(String osName, String osVersion, int major, int minor) {
        if (!osName.startsWith("Linux")) {
            return false;
        }
        String[] parts = osVersion.split("[.\\-]");
        try {
            int ma = Integer.parseInt(parts[0]);
            int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return ma > major || (ma == major && mi >= minor);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
