package io.reactivecollectives.transport.wire;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.reactivecollectives.core.BlockingScheduler;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of Unix domain sockets, which the store and the mesh both bind in the temporary
 * directory: where they go, whether a switch turns them off, whether a peer's file is there, and
 * their removal (best effort, never on an event loop).
 */
public final class UnixSocketFiles {

    private UnixSocketFiles() {
    }

    /** Whether Unix sockets are on: unless the system property {@code property} is {@code false}. */
    public static boolean enabled(String property) {
        return !"false".equalsIgnoreCase(System.getProperty(property, "true"));
    }

    /** The socket file {@code name} in the temporary directory ({@code java.io.tmpdir}). */
    public static Path inTempDir(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), name);
    }

    /** Whether the socket file {@code p} is visible here (touches the file system: may block). */
    public static boolean exists(Path p) {
        return Files.exists(p);
    }

    /** Deletes {@code p} if it is there, ignoring failures (touches the file system: may block). */
    public static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // best effort: the file is in the temporary directory
        }
    }

    /** {@link #delete} on the {@link BlockingScheduler}, when subscribed. */
    public static Mono<Void> deleteLater(Path p) {
        return Mono.<Void>fromRunnable(() -> delete(p)).subscribeOn(BlockingScheduler.get());
    }

    /**
     * Deletes {@code p} right here on a thread that may block, else (an event loop, a Reactor
     * non-blocking thread) on the {@link BlockingScheduler}; failures are ignored either way.
     */
    public static void deleteNowOrLater(Path p) {
        if (mayBlock()) {
            delete(p);
        } else {
            deleteLater(p).subscribe(null, e -> { });
        }
    }

    /** False on event loops (Netty's {@code FastThreadLocalThread}s) and Reactor's non-blocking threads. */
    private static boolean mayBlock() {
        return !(Thread.currentThread() instanceof FastThreadLocalThread) && !Schedulers.isInNonBlockingThread();
    }
}
