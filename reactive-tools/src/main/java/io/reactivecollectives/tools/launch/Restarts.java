package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.launch.EnvRendezvous;

import java.util.Map;
import java.util.TreeMap;

/**
 * The launcher's restart bookkeeping ({@code --max-restarts N}): a rank whose process fails (exits
 * non-zero, or is killed by a signal) is started again, alone, with the same {@code RANK},
 * {@code LOCAL_RANK} and {@code WORLD_SIZE} and {@code RC_RESTART_COUNT=k}, k being how many times
 * that rank has been restarted (1 for the first restart); the other ranks keep running. The limit is
 * per rank: a rank that fails after its N restarts ends the job. Every rank gets
 * {@code RC_MAX_RESTARTS=N}. Only the main thread of the launcher uses an instance.
 */
final class Restarts {

    /** The ranks' quorum setting (its variable: {@value #QUORUM_ENV}). */
    static final String QUORUM_SETTING = "rc.group.minQuorum";
    static final String QUORUM_ENV = "RC_GROUP_MIN_QUORUM";

    private final int max;
    /** Restarts so far, by rank (only ranks restarted at least once). */
    private final Map<Integer, Integer> counts = new TreeMap<>();
    /** The ranks whose process finished the job (exited 0). */
    private final java.util.Set<Integer> finished = new java.util.TreeSet<>();
    /** The ranks whose first process has exited. */
    private final java.util.Set<Integer> firstExited = new java.util.TreeSet<>();
    /** Restarted ranks whose current process was admitted (written by the output pumps' threads). */
    private final java.util.Set<Integer> admitted = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Bookkeeping for {@code --max-restarts max}.
     *
     * @param max how many times each rank may be restarted ({@code --max-restarts}, >= 0)
     */
    Restarts(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("--max-restarts must be >= 0, got " + max);
        }
        this.max = max;
    }

    /** {@return how many times each rank may be restarted} */
    int max() {
        return max;
    }

    /** {@return how many times {@code rank} has been restarted so far} */
    int count(int rank) {
        return counts.getOrDefault(rank, 0);
    }

    /** {@return whether {@code rank}, which just failed, may be restarted once more} */
    boolean mayRestart(int rank) {
        return count(rank) < max;
    }

    /**
     * Counts a restart of {@code rank}.
     *
     * @return which restart it is (1 for the first)
     */
    int restart(int rank) {
        if (!mayRestart(rank)) {
            throw new IllegalStateException("rank " + rank + " has had its " + max + " restarts");
        }
        admitted.remove(rank);
        return counts.merge(rank, 1, Integer::sum);
    }

    /**
     * What a restarted rank's output is watched with: the library's line of its admission
     * ({@code ElasticGroup.join}'s INFO line {@value #ADMITTED}, which bin/collectives-run's
     * slf4j-simple prints) marks it a member again. A rank whose logging hides that line is taken
     * for one still asking to join, as before.
     *
     * @param rank the restarted rank
     * @return the watch for its current process's lines
     */
    java.util.function.Consumer<String> admissionWatch(int rank) {
        return line -> {
            if (line.contains(ADMITTED)) {
                admitted.add(rank);
            }
        };
    }

    /** Part of {@code ElasticGroup.join}'s log line once the members admitted the process. */
    static final String ADMITTED = "': admitted as identity ";

    boolean admitted(int rank) {
        return admitted.contains(rank);
    }

    /**
     * Every rank that stayed in the group has finished: stops the restarted ranks still asking to
     * join now, and gives those admitted (members again, finishing too) the grace period to exit on
     * their own before they are stopped.
     */
    void stopJoiners(int ranks, RankProcesses children, long graceMillis, java.io.PrintStream err) {
        java.util.List<Integer> asking = new java.util.ArrayList<>();
        java.util.List<Integer> members = new java.util.ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            if (!finished.contains(r)) {
                (admitted(r) ? members : asking).add(r);
            }
        }
        if (!asking.isEmpty()) {
            err.println(doneLine());
            children.terminate(asking, 0);
        }
        if (!members.isEmpty()) {
            err.println("collectives-run: every other rank has finished the job; " + names(members)
                    + (members.size() == 1 ? ", restarted and admitted, has " : ", restarted and admitted, have ")
                    + graceMillis + " ms (--grace-ms) to finish before " + (members.size() == 1 ? "it is" : "they are")
                    + " stopped");
            children.terminate(members, graceMillis);
        }
    }

    private static String names(java.util.List<Integer> ranks) {
        return ranks.stream().map(r -> "rank " + r).collect(java.util.stream.Collectors.joining(", "));
    }

    /**
     * The variables a process of {@code rank} gets besides the launch's own: {@code RC_MAX_RESTARTS}
     * always, {@code RC_RESTART_COUNT} from its first restart on.
     */
    Map<String, String> environment(int rank) {
        Map<String, String> env = new TreeMap<>();
        env.put(EnvRendezvous.MAX_RESTARTS_ENV, Integer.toString(max));
        int k = count(rank);
        if (k > 0) {
            env.put(EnvRendezvous.RESTART_COUNT_ENV, Integer.toString(k));
        }
        return env;
    }

    /** {@code rank}'s process of restart {@code restart} (0: its first) exited. */
    void exited(int rank, int restart) {
        if (restart == 0) {
            firstExited.add(rank);
        }
    }

    /**
     * Whether no process of the {@code ranks} ranks (all on this node; 0: not, and then never) is a
     * member of the group any more now that {@code rank} failed: the first process of every rank
     * has exited, none finished the job and no restarted one was admitted. A restart could only ask
     * to join a group that has no member left to admit it.
     */
    boolean noMemberLeft(int rank, int ranks) {
        if (max == 0 || ranks == 0 || !finished.isEmpty() || firstExited.size() < ranks) {
            return false;
        }
        for (int r = 0; r < ranks; r++) {
            if (r != rank && admitted(r)) {
                return false;
            }
        }
        return true;
    }

    /** The launcher's line when {@code rank} failed with {@code code} and {@link #noMemberLeft} holds. */
    String noMemberLine(int rank, int code) {
        return "collectives-run: rank " + rank + " " + exit(code) + " and no member of the group is left (the first "
                + "process of every rank has exited, none finished the job and no restarted rank was admitted): a "
                + "restart would ask to join a group that no longer exists; not restarting, stopping the other ranks";
    }

    /** {@code rank}'s process exited 0: it finished the job. */
    void finished(int rank) {
        finished.add(rank);
    }

    /**
     * Whether the job of {@code ranks} ranks (all on this node) is done without the ranks not yet
     * finished: restarts are on, and every rank that has not finished is a restarted process, asking
     * to join a group whose members have all finished (so nobody will admit it). A rank that fails
     * once every other has finished is not restarted either ({@link #othersFinished}).
     *
     * @param ranks the job's world size, when this launcher runs all of it; 0 when other nodes have ranks
     * @return whether the unfinished ranks are joiners left with nothing to join
     */
    boolean onlyJoinersLeft(int ranks) {
        if (max == 0 || ranks == 0 || finished.isEmpty()) {
            return false;
        }
        for (int r = 0; r < ranks; r++) {
            if (!finished.contains(r) && count(r) == 0) {
                return false;
            }
        }
        return finished.size() < ranks;
    }

    /**
     * The settings registry's one-line error when the ranks' quorum setting ({@value #QUORUM_ENV}, or
     * the property, as the ranks read it) does not parse; null when it parses or is unset. The
     * launcher reports it as a usage error before any rank starts: every rank would fail on it, and
     * restarting them could not help.
     */
    static String quorumProblem(Map<String, String> env) {
        try {
            io.reactivecollectives.core.settings.SettingsRegistry.find(QUORUM_SETTING).ifPresent(s -> s.get(env));
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** {@return whether every rank of {@code ranks} (all on this node; 0: not) but {@code rank} has finished} */
    boolean othersFinished(int rank, int ranks) {
        return max > 0 && ranks > 0 && finished.size() == ranks - 1 && !finished.contains(rank);
    }

    /**
     * The launcher's warning when restarts are on but no rank of the {@code world} ranks can be lost
     * and replaced in place: the survivors of one loss would keep fewer ranks than the quorum
     * ({@code RC_GROUP_MIN_QUORUM} in {@code env}, else a majority) needs, so they leave the job too
     * and a restarted rank finds no group to join. Null when a loss is survivable, restarts are off,
     * or the quorum's spelling is not one (the ranks then say so themselves).
     *
     * @param world the job's world size
     * @param env   the launcher's environment (the ranks inherit it)
     * @return the warning line, or null
     */
    String quorumWarning(int world, Map<String, String> env) {
        if (max == 0) {
            return null;
        }
        io.reactivecollectives.core.Quorum quorum;
        try {   // the transport's setting, as the ranks read it (the launcher passes its environment on)
            Object spelled = io.reactivecollectives.core.settings.SettingsRegistry.find(QUORUM_SETTING)
                    .<Object>map(s -> s.get(env)).orElse("majority");
            quorum = io.reactivecollectives.core.Quorum.parse(String.valueOf(spelled));
        } catch (IllegalArgumentException e) {
            return null;
        }
        int needed = quorum.required(world);
        if (needed <= world - 1) {
            return null;
        }
        return "collectives-run: warning: --max-restarts " + max + " with " + world + " rank" + (world == 1 ? "" : "s")
                + ": a lost rank leaves " + (world - 1) + " of " + world + ", and the quorum (" + quorum + ") needs "
                + needed + ", so the survivors leave the job too and a restarted rank finds no group to join; run "
                + Math.max(3, world + 1) + " or more ranks, or lower the quorum (" + QUORUM_ENV + "=1: safe only where"
                + " the ranks cannot be cut apart)";
    }

    /** The launcher's line when the job is done and the ranks still joining are stopped. */
    String doneLine() {
        return "collectives-run: every rank that stayed in the group has finished the job; stopping the restarted "
                + "ranks still asking to join (" + names(counts.keySet().stream()
                .filter(r -> !finished.contains(r) && !admitted(r)).collect(java.util.stream.Collectors.toList())) + ")";
    }

    /** The launcher's line when {@code rank} failed with {@code code} after every other rank finished the job. */
    String lateLine(int rank, int code) {
        return "collectives-run: rank " + rank + " " + exit(code) + " after every other rank finished the job; not "
                + "restarting it (the group it would join has ended)";
    }

    /** The launcher's line when {@code rank} failed with {@code code} and is restarted (after {@link #restart}). */
    String restartLine(int rank, int code) {
        return "collectives-run: rank " + rank + " " + exit(code) + "; restarting it (restart " + count(rank) + " of "
                + max + "); it will ask to join the running group";
    }

    /** The launcher's line when {@code rank} failed with {@code code} and has no restart left. */
    String limitLine(int rank, int code) {
        return "collectives-run: rank " + rank + " " + exit(code) + (max == 0 ? "" : " after its " + max + " restart"
                + (max == 1 ? "" : "s") + " (the --max-restarts limit was reached)") + "; stopping the other ranks";
    }

    /** The summary line of the restarts, or null when no rank was restarted. */
    String summary() {
        if (counts.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder("collectives-run: restarts: ");
        String sep = "";
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            b.append(sep).append("rank ").append(e.getKey()).append(' ').append(e.getValue()).append(" of ").append(max);
            sep = ", ";
        }
        return b.toString();
    }

    /**
     * "exited with code C", with the signal's name when C is 128 + a signal's number, the shell's (and
     * the JDK's) code for a process killed by that signal: "exited with code 137 (SIGKILL)".
     */
    static String exit(int code) {
        String signal = code > 128 && code < 160 ? signalName(code - 128) : null;
        return "exited with code " + code + (signal == null ? "" : " (" + signal + ")");
    }

    /** The Linux name of signal {@code n}, or "signal n". */
    static String signalName(int n) {
        String[] names = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
            "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};
        return n > 0 && n < names.length ? names[n] : "signal " + n;
    }
}
