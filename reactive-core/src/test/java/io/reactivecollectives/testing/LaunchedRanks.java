package io.reactivecollectives.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
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
     * A launcher run on another thread: its output, its errors, its exit code to come.
     *
     * @param out  what it prints
     * @param err  what it prints on its error stream
     * @param exit its exit code
     */
    public record Run(Output out, Output err, CompletableFuture<Integer> exit) {

        /**
         * Starts {@code launcher} (given its output and error streams, returning its exit code).
         *
         * @param launcher the launcher's run, e.g. {@code (o, e) -> Launcher.run(args, o, e)}
         * @return the run
         */
        public static Run start(BiFunction<PrintStream, PrintStream, Integer> launcher) {
            Output out = new Output();
            Output err = new Output();
            return new Run(out, err, CompletableFuture.supplyAsync(
                    () -> launcher.apply(new PrintStream(out, true), new PrintStream(err, true))));
        }

        /**
         * Kills rank 1 at 30% of {@code steps} and rank 0 at 60%, waits for the end and checks
         * what a job of {@code ranks} ranks that survived both must print: exit 0, each killed
         * rank restarted once and joined at its old rank, every step applied once, identical
         * parameters. Prints the output.
         *
         * @param ranks   the group's size
         * @param steps   the job's steps (reported as {@code step N/steps})
         * @param seconds how long the job may take
         * @throws Exception when waiting fails
         */
        public void killRanks1Then0AndExpectRecovery(int ranks, int steps, int seconds) throws Exception {
            Pattern step = Pattern.compile("step +(\\d+)/" + steps);
            long killed1 = killAt(1, steps * 30 / 100, step, out, exit);
            long killed0 = killAt(0, steps * 60 / 100, step, out, exit);
            int code = exit.get(seconds, TimeUnit.SECONDS);
            String o = out.text();
            String e = err.text();
            System.out.println(o);
            org.junit.jupiter.api.Assertions.assertEquals(0, code, o + e);
            check(killed1 > 0 && killed0 > 0, "both kills happened: " + killed1 + ", " + killed0 + "\n" + o);
            for (int r : new int[] {1, 0}) {
                check(e.contains("rank " + r + " exited with code 137 (SIGKILL); restarting it (restart 1 of "), e);
                check(o.contains("[rank " + r + "] joined the running job as rank " + r + " of " + ranks), o);
            }
            check(o.contains("steps: " + steps + " of " + steps + ", each applied once"), o);
            check(o.contains("parameters identical on all " + ranks + " ranks: yes"), o);
        }

        private static void check(boolean condition, String text) {
            org.junit.jupiter.api.Assertions.assertTrue(condition, text);
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
