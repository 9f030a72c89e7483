package io.reactivecollectives.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactivecollectives.transport.rendezvous.StoreHandshakeCodec;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections of one attack of {@link StoreAttack}, driven from one thread with non-blocking
 * sockets: {@code idle} (2,000 connections that say nothing), {@code slowloris} (50 sending a byte a
 * second), {@code random} (1,577 sending up to 2 KiB of random bytes), {@code big-unauth} (16
 * announcing a 48 MiB frame before greeting and sending 47 MiB of it), {@code big-greeted} (the same
 * after the greeting) and {@code greeted-slowloris} (50 that greet, then send a byte a second).
 */
final class StoreAttackConnections implements AutoCloseable {
    final String kind;
    final int port;
    final List<SocketChannel> channels = new ArrayList<>();
    final List<long[]> progress = new ArrayList<>(); // per channel: bytes of the big frame sent
    final boolean[] closedBy;
    final SplittableRandom random = new SplittableRandom(17);
    final AtomicLong writes = new AtomicLong();
    int tried;

    StoreAttackConnections(String kind, int port) {
        this.kind = kind;
        this.port = port;
        this.closedBy = new boolean[count(kind)];
    }

    static int count(String kind) {
        return switch (kind) {
            case "idle" -> 2000;
            case "slowloris", "greeted-slowloris" -> 50;
            case "random" -> 1577;
            case "big-unauth", "big-greeted" -> 16;
            default -> throw new IllegalArgumentException("unknown attack " + kind);
        };
    }

    void run(int seconds) throws Exception {
        int count = count(kind);
        for (int i = 0; i < count; i++) {
            SocketChannel ch;
            try {
                ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
            } catch (IOException e) {
                tried++;
                closedBy[i] = true;
                channels.add(null);
                progress.add(new long[1]);
                continue;
            }
            tried++;
            ch.configureBlocking(false);
            channels.add(ch);
            progress.add(new long[1]);
            if (kind.startsWith("greeted") || kind.equals("big-greeted")) {
                write(i, greeting());
            }
            if (kind.equals("random")) {
                byte[] junk = new byte[1 + random.nextInt(2048)];
                random.nextBytes(junk);
                write(i, ByteBuffer.wrap(junk));
            }
            if (kind.startsWith("big")) {
                write(i, ByteBuffer.allocate(4).putInt(0, 48 * StoreAttack.MIB));
            }
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long nextSlow = 0;
        ByteBuffer zeros = ByteBuffer.allocateDirect(256 * 1024);
        ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
        while (System.nanoTime() < end) {
            boolean slowTick = System.nanoTime() >= nextSlow;
            if (slowTick) {
                nextSlow = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            }
            for (int i = 0; i < channels.size(); i++) {
                if (closedBy[i]) {
                    continue;
                }
                if (kind.endsWith("slowloris") && slowTick) {
                    write(i, ByteBuffer.wrap(new byte[] {(byte) random.nextInt(256)}));
                }
                if (kind.startsWith("big")) {
                    long left = 47L * StoreAttack.MIB - progress.get(i)[0]; // all but the last MiB, then stall
                    if (left > 0) {
                        zeros.clear().limit((int) Math.min(zeros.capacity(), left));
                        progress.get(i)[0] += write(i, zeros);
                    }
                }
                read(i, scratch);
            }
            Thread.sleep(kind.startsWith("big") ? 1 : 50);
        }
    }

    private static ByteBuffer greeting() {
        ByteBuf auth = StoreHandshakeCodec.auth(UnpooledByteBufAllocator.DEFAULT, new byte[0], new byte[0]);
        ByteBuffer b = ByteBuffer.allocate(auth.readableBytes());
        auth.readBytes(b);
        auth.release();
        return b.flip();
    }

    private int write(int i, ByteBuffer b) {
        try {
            return channels.get(i).write(b);
        } catch (IOException e) {
            closedBy[i] = true;
            return 0;
        }
    }

    private void read(int i, ByteBuffer scratch) {
        try {
            scratch.clear();
            if (channels.get(i).read(scratch) < 0) {
                closedBy[i] = true;
            }
        } catch (IOException e) {
            closedBy[i] = true;
        }
    }

    int stillOpen() {
        ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
        int open = 0;
        for (int i = 0; i < channels.size(); i++) {
            if (!closedBy[i]) {
                read(i, scratch);
            }
            if (!closedBy[i]) {
                open++;
            }
        }
        return open;
    }

    @Override
    public void close() {
        for (SocketChannel ch : channels) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
    }
}
