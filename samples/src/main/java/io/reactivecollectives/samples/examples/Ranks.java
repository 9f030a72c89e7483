package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.ProcessGroups;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Joins the group a launcher describes in the environment ({@code bin/collectives-run}, torchrun,
 * Slurm, Open MPI, Kubernetes) with {@link ProcessGroups#run}, and turns a failure into an exit
 * status for the launcher.
 *
 * <p>For programs' {@code main} methods only: {@link #run} waits for the result on the calling
 * (main) thread.
 */
public final class Ranks {

    private Ranks() {
    }

    /**
     * Connects this rank, runs {@code body} on the group, meets the other ranks at a barrier, closes
     * the group and store, and returns {@code body}'s value. On failure prints the error and exits
     * the JVM with status 1 (so the launcher stops the other ranks).
     */
    public static <T> T run(Function<ProcessGroup, Mono<T>> body) {
        return run(UnaryOperator.identity(), body);
    }

    /** {@link #run(Function)} with the group's options adjusted by {@code options} (thresholds, timeouts). */
    public static <T> T run(UnaryOperator<GroupOptions> options, Function<ProcessGroup, Mono<T>> body) {
        try {
            // one library call: rendezvous, group, body, barrier, teardown (ProcessGroups.run)
            return ProcessGroups.run(options.apply(GroupOptions.defaults().withConnectTimeout(Duration.ofSeconds(120))),
                    body::apply).block();
        } catch (RuntimeException e) {
            System.err.println("failed: " + describe(e));
            if (!expected(e)) {
                e.printStackTrace();   // not a failure the library reports in words: a bug, shown in full
            }
            System.exit(1);
            throw e;
        }
    }

    /** The error and its causes, one line: {@code X: message; caused by Y: message}. */
    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e));
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.add(e);
        for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) {
            if (c.getMessage() != null && e.getMessage() != null && e.getMessage().contains(c.getMessage())) {
                continue;   // already said
            }
            b.append("; caused by ").append(c);
        }
        return b.toString();
    }

    /**
     * Whether {@code e} is a failure the library describes in its message (a collective's, the
     * store's, a time-out, a bad argument or state), so that its stack trace would only bury the message.
     */
    static boolean expected(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IllegalArgumentException
                    || c instanceof IllegalStateException
                    || c instanceof java.util.concurrent.TimeoutException || c instanceof java.io.IOException
                    || c.getClass().getName().startsWith("io.reactivecollectives.")) {
                return true;
            }
        }
        return false;
    }
}
