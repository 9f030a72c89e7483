package io.reactivecollectives.store.raft;

import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.ExitUtils;

import java.io.IOException;

/**
 * Keeps Apache Ratis from ending the process that holds a replica. Ratis's answer to a gRPC server
 * that cannot start (its port taken, say) is {@code System.exit(1)}, and the first use of its exit
 * hook installs a default uncaught-exception handler that ends the process on any thread's uncaught
 * exception. A replica lives inside the user's launcher or job, so this class turns both off once
 * per process (the handler the process had before is put back) and makes a start that Ratis would
 * have ended the process for fail as an {@link IOException} of that replica instead.
 *
 * <p>Ratis throws only the first such exit and records it; later ones return silently. Starts are
 * therefore made one at a time here, each with the record cleared first and read after, so that
 * every failed start fails, not only the first.
 */
final class RatisExits {

    private static final Object STARTS = new Object();

    static {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        ExitUtils.disableSystemExit();
        ExitUtils.setTerminateOnUncaughtException(false);
        Thread.setDefaultUncaughtExceptionHandler(before);
    }

    private RatisExits() {
    }

    /**
     * Starts {@code server}; where Ratis would have ended the process, fails instead.
     *
     * @param server the replica's server, not started
     * @throws IOException the start failed, with Ratis's reason and its cause's (the caller names the replica)
     */
    static void start(RaftServer server) throws IOException {
        synchronized (STARTS) {
            ExitUtils.clear();   // a record left before (already logged by Ratis) would hide this start's exit
            ExitUtils.ExitException exit;
            try {
                server.start();
                exit = ExitUtils.getFirstExitException();
            } catch (ExitUtils.ExitException e) {
                exit = e;
            }
            if (exit != null) {
                ExitUtils.clear();
                Throwable cause = exit.getCause();
                throw new IOException(exit.getMessage()
                        + (cause == null ? "" : ": " + rootMessage(cause)), exit);
            }
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + root + ")";
    }
}
