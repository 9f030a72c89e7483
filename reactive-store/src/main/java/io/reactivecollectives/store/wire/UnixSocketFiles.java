package io.reactivecollectives.store.wire;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.reactivecollectives.core.BlockingScheduler;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The files of Unix domain sockets, which the store and the mesh both bind in the temporary
 * directory: where they go, whether a peer's file is there, a
 * stale file's removal before a bind ({@link #clearStale}), and their removal (best effort, never on
 * an event loop). The files this JVM bound are also removed at its exit ({@link OwnedSocketFile}).
 */
public final class UnixSocketFiles {

    private UnixSocketFiles() {
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
        runNowOrLater(() -> delete(p));
    }

    /** Runs {@code work} (file work) right here on a thread that may block, else on the {@link BlockingScheduler}. */
    static void runNowOrLater(Runnable work) {
        if (mayBlock()) {
            work.run();
        } else {
            Mono.fromRunnable(work).subscribeOn(BlockingScheduler.get()).subscribe(null, e -> { });
        }
    }

    /**
     * Makes {@code p} free to bind unless someone serves on it: true when there is no file, or when
     * there was one but connecting to it was refused (the process that bound it died without
     * removing it: a SIGKILL, a crash), which is then deleted; false when a process accepts
     * connections there (its file is left alone) or the path is a directory. Connects and touches
     * the file system: call on a thread that may block.
     */
    public static boolean clearStale(Path p) {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(p));
            return false;   // someone listens: a live server's file
        } catch (ConnectException e) {
            delete(p);      // refused: nobody listens there any more
            return !Files.exists(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return false;   // cannot tell: leave the file alone
        }
    }

    /** False on event loops (Netty's {@code FastThreadLocalThread}s) and Reactor's non-blocking threads. */
    private static boolean mayBlock() {
        return !(Thread.currentThread() instanceof FastThreadLocalThread) && !Schedulers.isInNonBlockingThread();
    }
}
