package io.reactivecollectives.core;

import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The library's own long-lived schedulers, made by Reactor's implementations whatever factory is
 * installed with {@link Schedulers#setFactory}. {@code StepVerifier.withVirtualTime} installs one
 * that returns its {@code VirtualTimeScheduler} for every new scheduler: a scheduler the library
 * made for the rest of the JVM's life while a test's virtual time was on would otherwise be that
 * virtual scheduler, run nothing until the test advanced its clock, and refuse every task once the
 * test had reset it.
 */
public final class LibrarySchedulers {

    /** Reactor's own implementations (the interface's defaults), not the installed factory. */
    private static final Schedulers.Factory REACTOR = new Schedulers.Factory() {
    };

    private LibrarySchedulers() {
    }

    /**
     * One daemon thread named {@code name-N}, marked {@link NonBlocking} (as Reactor's single
     * scheduler's threads are), so BlockHound reports a blocking call on it.
     *
     * @param name the threads' name prefix
     * @return a new scheduler, which the caller disposes
     */
    public static Scheduler newSingle(String name) {
        Scheduler s = REACTOR.newSingle(threads(name, true));
        s.init();
        return s;
    }

    /**
     * A bounded elastic scheduler (for work that may block) of at most {@code threadCap} daemon
     * threads named {@code name-N}, {@code queuedTaskCap} queued tasks, idle threads ending after
     * {@code ttlSeconds}.
     *
     * @param threadCap     the most threads
     * @param queuedTaskCap the most queued tasks
     * @param name          the threads' name prefix
     * @param ttlSeconds    seconds an idle thread lives
     * @return a new scheduler, which the caller disposes
     */
    public static Scheduler newBoundedElastic(int threadCap, int queuedTaskCap, String name, int ttlSeconds) {
        Scheduler s = REACTOR.newBoundedElastic(threadCap, queuedTaskCap, threads(name, false), ttlSeconds);
        s.init();
        return s;
    }

    private static ThreadFactory threads(String name, boolean nonBlocking) {
        AtomicLong n = new AtomicLong();
        return r -> {
            String id = name + "-" + n.incrementAndGet();
            Thread t = nonBlocking ? new NonBlockingThread(r, id) : new Thread(r, id);
            t.setDaemon(true);
            return t;
        };
    }

    private static final class NonBlockingThread extends Thread implements NonBlocking {
        NonBlockingThread(Runnable r, String name) {
            super(r, name);
        }
    }
}
