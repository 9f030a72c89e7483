package io.reactivecollectives.transport.shm;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Thread placement: the allowed processors are listed, a thread bound to one runs only there, a processor it may not use is refused. */
class NativeAffinityTest {

    @Test
    void aThreadBoundToAProcessorIsAllowedOnlyThatOne() throws Exception {
        assumeTrue(NativeAffinity.isAvailable(), "native library not in use: " + NativeAffinity.unavailableReason());
        int[] allowed = NativeAffinity.allowedCpus();
        assertTrue(allowed.length >= 1, "at least the processor this runs on");
        for (int i = 1; i < allowed.length; i++) {
            assertTrue(allowed[i] > allowed[i - 1], "in increasing order");
        }
        int last = allowed[allowed.length - 1];
        AtomicInteger bound = new AtomicInteger(-1);
        AtomicReference<int[]> after = new AtomicReference<>();
        Thread t = new Thread(() -> {
            bound.set(NativeAffinity.bindCurrentThread(last));
            after.set(NativeAffinity.allowedCpus());
        });
        t.start();
        t.join();
        assertEquals(0, bound.get());
        assertArrayEquals(new int[] {last}, after.get());
        assertArrayEquals(allowed, NativeAffinity.allowedCpus(), "other threads keep their set");
    }

    @Test
    void aProcessorOutsideTheSetIsRefused() throws Exception {
        assumeTrue(NativeAffinity.isAvailable(), "native library not in use: " + NativeAffinity.unavailableReason());
        AtomicInteger result = new AtomicInteger();
        Thread t = new Thread(() -> result.set(NativeAffinity.bindCurrentThread(1 << 20)));
        t.start();
        t.join();
        assertNotEquals(0, result.get());
    }
}
