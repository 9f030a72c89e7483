package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The library's schedulers are real ones even when made while a test's virtual time is on. */
class LibrarySchedulersTest {

    @Test
    void schedulersMadeUnderVirtualTimeRunTasksOnTheirOwnThreads() throws Exception {
        VirtualTimeScheduler vts = VirtualTimeScheduler.getOrSet();
        Scheduler single = null;
        Scheduler elastic = null;
        try {
            assertSame(vts, Schedulers.newSingle("captured"));   // what a plain Reactor factory call gives now
            single = LibrarySchedulers.newSingle("lib-single");
            elastic = LibrarySchedulers.newBoundedElastic(2, 10, "lib-elastic", 60);
            CompletableFuture<Thread> a = new CompletableFuture<>();
            CompletableFuture<Thread> b = new CompletableFuture<>();
            single.schedule(() -> a.complete(Thread.currentThread()), 1, TimeUnit.MILLISECONDS);
            elastic.schedule(() -> b.complete(Thread.currentThread()));
            Thread ta = a.get(5, TimeUnit.SECONDS);   // ran without the virtual clock being advanced
            Thread tb = b.get(5, TimeUnit.SECONDS);
            assertTrue(ta.getName().startsWith("lib-single-") && ta.isDaemon() && ta instanceof NonBlocking, ta.toString());
            assertTrue(tb.getName().startsWith("lib-elastic-") && tb.isDaemon(), tb.toString());
            assertFalse(tb instanceof NonBlocking, tb.toString());
        } finally {
            VirtualTimeScheduler.reset();
            if (single != null) {
                single.dispose();
            }
            if (elastic != null) {
                elastic.dispose();
            }
        }
    }
}
