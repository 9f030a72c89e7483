package io.reactivecollectives.store.wire;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Unix domain socket file that this JVM bound (a mesh rank's, a store server's). Every one that
 * is not yet {@linkplain #release() released} is deleted by a single JVM shutdown hook, which runs
 * on a normal exit and on SIGTERM or SIGINT (what launchers, Ctrl-C and Slurm send), so a process
 * ended that way leaves no file in the temporary directory. A SIGKILL runs no hook: the file it
 * leaves is stale (no one accepts on it) and the next server on that path removes it
 * ({@link UnixSocketFiles#clearStale}).
 *
 * <p>Each registration is its own object, so a file that a closing server releases late and a new
 * server of this JVM bound again at the same path keep apart in the registry.
 */
public final class OwnedSocketFile {

    private static final Set<OwnedSocketFile> OWNED = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();

    private final Path path;
    private final AtomicBoolean released = new AtomicBoolean();

    private OwnedSocketFile(Path path) {
        this.path = path;
    }

    /**
     * Records {@code path}, just bound by this JVM, for deletion at exit. Call only once the bind
     * succeeded: a file another process bound is never this JVM's to delete.
     */
    public static OwnedSocketFile own(Path path) {
        OwnedSocketFile f = new OwnedSocketFile(path);
        OWNED.add(f);
        if (HOOKED.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(OwnedSocketFile::deleteAll, "rc-socket-files"));
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: nothing to hook into; the caller's close deletes it
            }
        }
        return f;
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /**
     * The server closed: deletes the file (right here on a thread that may block, else on the
     * {@code BlockingScheduler}) and then forgets it; idempotent.
     */
    public void release() {
        if (released.compareAndSet(false, true)) {
            UnixSocketFiles.runNowOrLater(() -> {
                UnixSocketFiles.delete(path);
                OWNED.remove(this);
            });
        }
    }

    /** The socket files this JVM bound and has not released yet (for tests and diagnostics). */
    public static Set<Path> owned() {
        Set<Path> out = new java.util.HashSet<>();
        OWNED.forEach(f -> out.add(f.path));
        return out;
    }

    private static void deleteAll() {
        for (OwnedSocketFile f : OWNED) {
            UnixSocketFiles.delete(f.path);
        }
    }

    @Override
    public String toString() {
        return "OwnedSocketFile[" + path + (released.get() ? ", released" : "") + "]";
    }
}
