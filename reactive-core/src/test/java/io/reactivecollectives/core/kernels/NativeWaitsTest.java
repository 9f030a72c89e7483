package io.reactivecollectives.core.kernels;

import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Futex waits of the native library: a changed word returns at once, a timeout times out, a wake wakes. */
class NativeWaitsTest {

    private static final int EAGAIN = 11;
    private static final int ETIMEDOUT = 110;

    @Test
    void waitsWakesAndTimesOut() throws Exception {
        assumeTrue(NativeWaits.isAvailable(), "native library not in use: " + NativeWaits.unavailableReason());
        ByteBuffer word = ByteBuffer.allocateDirect(64).order(java.nio.ByteOrder.nativeOrder());
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
}
