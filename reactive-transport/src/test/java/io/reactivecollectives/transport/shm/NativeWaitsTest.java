package io.reactivecollectives.transport.shm;

import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Futex waits of the shared memory's native library: a changed word returns at once, a timeout times
 * out, a wake wakes; and, on a file mapped by two processes, a wake through one mapping wakes a
 * waiter of the other (the futexes are not private to a process).
 */
class NativeWaitsTest {

    private static final String READY = "waiting";

    @TempDir
    Path dir;

    private static final int EAGAIN = 11;
    private static final int ETIMEDOUT = 110;

    @Test
    void waitsWakesAndTimesOut() throws Exception {
        assumeTrue(NativeWaits.isAvailable(), "native library not in use: " + NativeWaits.unavailableReason());
        ByteBuffer word = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        long address = PlatformDependent.directBufferAddress(word);
        word.putInt(0, 1);
        assertEquals(EAGAIN, NativeWaits.await(address, 0, TimeUnit.SECONDS.toNanos(5)), "the word is not 0: no wait");
        long t0 = System.nanoTime();
        assertEquals(ETIMEDOUT, NativeWaits.await(address, 1, TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(40), "waited for the timeout");
        AtomicInteger result = new AtomicInteger(-1);
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            result.set(NativeWaits.await(address, 1, TimeUnit.SECONDS.toNanos(20)));
        });
        waiter.start();
        waiting.await();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int woken = 0;
        while (woken == 0 && System.nanoTime() < end) {  // the waiter may not be in the kernel yet
            Thread.sleep(10);
            woken = NativeWaits.wake(address, 1);
        }
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertEquals(1, woken, "one waiter woken");
        assertEquals(NativeWaits.WOKEN, result.get());
        word.putInt(0, 0);
    }

    @Test
    void aWakeThroughOneProcesssMappingWakesAWaiterInAnother() throws Exception {
        assumeTrue(NativeWaits.isAvailable(), "native library not in use: " + NativeWaits.unavailableReason());
        Path file = dir.resolve("word");
        Files.write(file, new byte[4096]);
        MappedByteBuffer map = map(file);
        long address = PlatformDependent.directBufferAddress(map);
        map.putInt(0, 1);  // the child sleeps while the word is 1
        Path out = dir.resolve("child.out");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                Waiter.class.getName(), file.toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(out, StandardCharsets.UTF_8).contains(READY) && System.nanoTime() < end) {
                assertTrue(child.isAlive(), () -> "the child ended early: " + read(out));
                Thread.sleep(10);
            }
            int woken = 0;
            while (woken == 0 && System.nanoTime() < end) {  // it may not be in the kernel yet
                Thread.sleep(10);
                woken = NativeWaits.wake(address, 1);
            }
            assertEquals(1, woken, () -> "woke the other process's waiter: " + read(out));
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child ended once woken");
            assertEquals(0, child.exitValue(), () -> read(out));
            assertEquals(List.of(READY, "woken " + NativeWaits.WOKEN), Files.readAllLines(out), () -> read(out));
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static MappedByteBuffer map(Path file) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
            map.order(ByteOrder.nativeOrder());
            return map;
        }
    }

    private static String read(Path out) {
        try {
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** The other process: maps the file, says it waits, sleeps on its first word (up to 30 s) and prints how that ended. */
    static final class Waiter {

        private Waiter() {
        }

        public static void main(String[] args) throws Exception {
            if (!NativeWaits.isAvailable()) {
                System.out.println("unavailable: " + NativeWaits.unavailableReason());
                System.exit(2);
            }
            MappedByteBuffer map = map(Path.of(args[0]));
            System.out.println(READY);
            System.out.flush();
            int r = NativeWaits.await(PlatformDependent.directBufferAddress(map), 1, TimeUnit.SECONDS.toNanos(30));
            System.out.println("woken " + r);
        }
    }
}
