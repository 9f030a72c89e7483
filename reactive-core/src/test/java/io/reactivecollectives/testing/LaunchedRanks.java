package io.reactivecollectives.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * For tests that run a job under the launcher in this JVM and kill its rank JVMs (they are this
 * JVM's descendants, each with its {@code RANK} in its environment): the launcher's output as it
 * grows, and a SIGKILL to a rank once the job reported a step.
 */
public final class LaunchedRanks {

    private LaunchedRanks() {
    }

    /** The launcher's output so far, shared between its thread and the test's. */
    public static final class Output extends ByteArrayOutputStream {
        /** {@return everything written so far} */
        public synchronized String text() {
            return toString(StandardCharsets.UTF_8);
        }

        /**
         * The highest step reported so far.
         *
         * @param step a pattern whose first group is a step number
         * @return the last match's step, 0 before any
         */
        public synchronized int lastStep(Pattern step) {
            Matcher m = step.matcher(toString(StandardCharsets.UTF_8));
            int last = 0;
            while (m.find()) {
                last = Integer.parseInt(m.group(1));
            }
            return last;
        }
    }

    /**
     * Waits until {@code out} reported {@code step}, then SIGKILLs the newest JVM of {@code rank}.
     *
     * @param rank    the rank whose process dies
     * @param step    the step to wait for
     * @param pattern how a step is reported (first group: the step)
     * @param out     the launcher's output
     * @param job     the launcher's run (when it ends first, nothing is killed)
     * @return the killed pid, or -1 when the job ended first or no JVM of that rank was found
     * @throws Exception when waiting is interrupted or kill cannot run
     */
    public static long killAt(int rank, int step, Pattern pattern, Output out, Future<?> job) throws Exception {
        while (out.lastStep(pattern) < step) {
            if (job.isDone()) {
                return -1;
            }
            Thread.sleep(20);
        }
        Optional<ProcessHandle> p = ProcessHandle.current().descendants()
                .filter(h -> h.info().command().orElse("").endsWith("java") && hasRank(h.pid(), rank))
                .reduce((a, b) -> b);
        if (p.isEmpty()) {
            return -1;
        }
        new ProcessBuilder("kill", "-KILL", Long.toString(p.get().pid())).start().waitFor();
        return p.get().pid();
    }

    private static boolean hasRank(long pid, int rank) {
        try {
            String env = Files.readString(Path.of("/proc", Long.toString(pid), "environ"), StandardCharsets.ISO_8859_1);
            return ("\0" + env).contains("\0RANK=" + rank + "\0");
        } catch (IOException e) {
            return false;
        }
    }
}
