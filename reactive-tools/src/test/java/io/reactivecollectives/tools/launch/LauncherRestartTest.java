package io.reactivecollectives.tools.launch;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.ProcessGroups;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactivecollectives.tools.launch.LaunchResult.launch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code collectives-run --max-restarts} and {@code --agent-store}: real rank JVMs; a failed rank is
 * started again alone with {@code RC_RESTART_COUNT}, a flapping one ends the job at its limit, and the
 * store lives in the launcher, so that it outlives rank 0.
 */
class LauncherRestartTest {

    /** Says it started, with its restart variables; rank 1 exits 3 in its first process, 0 after; the others run 3 s. */
    public static final class FailsOnceChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            String restart = System.getenv("RC_RESTART_COUNT");
            System.out.println("started rank=" + rank + " local=" + System.getenv("LOCAL_RANK") + " world="
                    + System.getenv("WORLD_SIZE") + " restart=" + restart + " max=" + System.getenv("RC_MAX_RESTARTS")
                    + " agent=" + System.getenv("RC_AGENT_STORE"));
            System.out.flush();
            if (rank == 1) {
                Thread.sleep(300);
                System.exit(restart == null ? 3 : 0);
            }
            Thread.sleep(3_000);
            System.out.println("done rank=" + rank);
        }
    }

    /** Rank 1 always exits 5 after a moment; the others would run for a minute. */
    public static final class FlappingChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            System.out.println("started rank=" + rank + " restart=" + System.getenv("RC_RESTART_COUNT"));
            System.out.flush();
            if (rank == 1) {
                Thread.sleep(200);
                System.exit(5);
            }
            Thread.sleep(60_000);
            System.out.println("should have been stopped " + rank);
        }
    }

    /** Joins through {@link ProcessGroups#fromEnvironment()}, all-reduces its rank and prints the sum. */
    public static final class SumChild {
        public static void main(String[] args) {
            double sum = Mono.usingWhen(ProcessGroups.fromEnvironment(),
                    g -> Mono.usingWhen(Mono.fromSupplier(() -> Tensor.zeros(DType.FLOAT64, 1).fill(g.rank())),
                            t -> g.allReduce(t, ReduceOp.SUM).map(r -> r.getDouble(0)),
                            t -> Mono.fromRunnable(t::release)).flatMap(s -> g.barrier().thenReturn(s)),
                    g -> Mono.fromRunnable(g::close)).block(Duration.ofSeconds(60));
            System.out.println("sum " + (long) sum);
        }
    }

    /**
     * Two ranks all-reduce once through the launcher's store; then rank 0 kills itself (SIGKILL). Its
     * restart only sets a key in the store; rank 1 waits for that key and uses the store after it,
     * which only works when the store did not live in rank 0.
     */
    public static final class KillsRankZeroChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            Duration t = Duration.ofSeconds(60);
            TcpStoreOptions options = TcpStoreOptions.of(System.getenv("MASTER_ADDR"),
                    Integer.parseInt(System.getenv("MASTER_PORT"))).withTimeout(t);
            if (System.getenv("RC_RESTART_COUNT") != null) {
                try (TcpStore store = TcpStore.connect(options).block(t)) {
                    store.set("rank0-back", ("restart " + System.getenv("RC_RESTART_COUNT"))
                            .getBytes(StandardCharsets.UTF_8)).block(t);
                }
                System.out.println("restarted, told the store");
                return;
            }
            SumChild.main(args);
            System.out.flush();
            if (rank == 0) {
                new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                Thread.sleep(60_000);
            }
            try (TcpStore store = TcpStore.connect(options).block(t)) {
                String back = new String(store.get("rank0-back", t).block(t), StandardCharsets.UTF_8);
                store.set("rank1-after", "still here".getBytes(StandardCharsets.UTF_8)).block(t);
                System.out.println("store after rank 0 died: " + back + ", "
                        + new String(store.get("rank1-after").block(t), StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * Rank 1 fails at once; its restart waits (a joiner nobody admits) for a minute. Ranks 0 and 2
     * finish after 2 s. With {@code late}, rank 1 instead fails only after the others finished.
     */
    public static final class JoinerLeftBehindChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            boolean late = args.length > 0 && args[0].equals("late");
            if (rank == 1) {
                if (late) {
                    Thread.sleep(4_000);
                    System.exit(4);
                }
                if (System.getenv("RC_RESTART_COUNT") == null) {
                    System.exit(3);
                }
                System.out.println("joining");
                Thread.sleep(60_000);
                System.out.println("should have been stopped");
                return;
            }
            Thread.sleep(2_000);
            System.out.println("finished rank=" + rank);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRestartedRankStillJoiningWhenEveryOtherRankFinishedIsStoppedAndTheJobSucceeds() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--max-restarts", "2", "--grace-ms", "500",
                "--", JoinerLeftBehindChild.class.getName());
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("collectives-run: every rank that stayed in the group has finished the job; stopping"
                + " the restarted ranks still asking to join (rank 1)"), r.err());
        assertFalse(r.out().contains("should have been stopped"), r.out());
        assertEquals(1, count(r.out(), "[rank 1] joining"), r.out());
    }

    /**
     * Rank 1 fails at once; its restart is admitted (it logs ElasticGroup.join's admission line, as
     * the library does through slf4j-simple) and, a full member again, finishes a moment after the
     * others (ranks 0 and 2 finish after 2 s).
     */
    public static final class AdmittedJoinerFinishesLastChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            if (rank == 1) {
                if (System.getenv("RC_RESTART_COUNT") == null) {
                    System.exit(3);
                }
                System.err.println("[main] INFO io.reactivecollectives.transport.ElasticGroup - group 'default': "
                        + "admitted as identity 1, rank 1 of 3 in generation 1");
                System.err.flush();
                Thread.sleep(3_500);
                System.out.println("finished rank=1");
                return;
            }
            Thread.sleep(2_000);
            System.out.println("finished rank=" + rank);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAdmittedRestartedRankIsGivenTheGracePeriodToFinishNotStopped() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--max-restarts", "2", "--grace-ms", "20000",
                "--", AdmittedJoinerFinishesLastChild.class.getName());
        assertEquals(0, r.code(), r.err() + r.out());
        assertFalse(r.err().contains("still asking to join"), r.err());
        assertTrue(r.err().contains("collectives-run: every other rank has finished the job; rank 1, restarted and"
                + " admitted, has 20000 ms (--grace-ms) to finish before it is stopped"), r.err());
        assertTrue(r.out().contains("[rank 1] finished rank=1"), r.out());
        assertEquals(1, count(r.out(), "[rank 0] finished rank=0"), r.out());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRankFailingAfterEveryOtherFinishedIsNotRestarted() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--max-restarts", "2", "--",
                JoinerLeftBehindChild.class.getName(), "late");
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("collectives-run: rank 1 exited with code 4 after every other rank finished the job;"
                + " not restarting it (the group it would join has ended)"), r.err());
        assertFalse(r.err().contains("restarting it (restart"), r.err());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutRestartsARankFailingLastStillFailsTheJob() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--",
                JoinerLeftBehindChild.class.getName(), "late");
        assertEquals(4, r.code(), r.err() + r.out());
    }

    private static long count(String text, String line) {
        return text.lines().filter(l -> l.startsWith(line)).count();
    }

    /** Every first process fails (rank r after 0.3 s * (r + 1)); a restarted one, a joiner nobody admits, fails after 5 s. */
    public static final class NoMemberLeftChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            System.out.println("started rank=" + rank + " restart=" + System.getenv("RC_RESTART_COUNT"));
            System.out.flush();
            Thread.sleep(System.getenv("RC_RESTART_COUNT") == null ? 300L * (rank + 1) : 5_000L);
            System.exit(3);
        }
    }

    /**
     * The audit: the group lost its quorum and every member left; the launcher restarted every rank as
     * a joiner of a group with no member, for minutes. It stops once no first process is running and
     * no restarted one was admitted.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void whenNoMemberOfTheGroupIsLeftTheLauncherStopsRestarting() {
        long t0 = System.nanoTime();
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--max-restarts", "3", "--grace-ms", "500",
                "--", NoMemberLeftChild.class.getName());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().contains("collectives-run: rank 2 exited with code 3 and no member of the group is left"),
                r.err());
        assertFalse(r.err().contains("restarting it (restart 2 of 3)"), r.err());
        assertTrue(ms < 4_000, "stopped after " + ms + " ms: " + r.err());
    }

    /** The audit: RC_GROUP_MIN_QUORUM=abc gave a stack trace per rank, and the launcher restarted them. */
    @Test
    void aQuorumSettingThatDoesNotParseIsAUsageErrorBeforeAnyRankStarts() {
        String saved = System.getProperty("rc.group.minQuorum");
        System.setProperty("rc.group.minQuorum", "abc");
        LaunchResult r;
        try {
            r = launch("--nproc-per-node", "2", "--class-data", "off", "--max-restarts", "2", "--",
                    FailsOnceChild.class.getName());
        } finally {
            if (saved == null) {
                System.clearProperty("rc.group.minQuorum");
            } else {
                System.setProperty("rc.group.minQuorum", saved);
            }
        }
        assertEquals(2, r.code(), r.err());
        assertFalse(r.out().contains("started rank="), "no rank started: " + r.out());
        assertTrue(r.err().startsWith("collectives-run: setting rc.group.minQuorum (system property): 'abc' is not"),
                r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFailedRankIsRestartedAloneAndTheJobSucceeds() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--max-restarts", "2", "--",
                FailsOnceChild.class.getName());
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("collectives-run: rank 1 exited with code 3; restarting it (restart 1 of 2);"
                + " it will ask to join the running group"), r.err());
        assertTrue(r.err().contains("collectives-run: restarts: rank 1 1 of 2"), r.err());
        assertEquals(1, count(r.out(), "[rank 0] started rank=0 local=0 world=3 restart=null max=2 agent=1"), r.out());
        assertEquals(1, count(r.out(), "[rank 2] started rank=2 local=2 world=3 restart=null max=2 agent=1"), r.out());
        assertEquals(1, count(r.out(), "[rank 1] started rank=1 local=1 world=3 restart=null max=2 agent=1"), r.out());
        assertEquals(1, count(r.out(), "[rank 1] started rank=1 local=1 world=3 restart=1 max=2 agent=1"), r.out());
        assertEquals(2, count(r.out(), "[rank 1] started"), r.out());
        assertEquals(4, r.out().lines().filter(l -> l.matches("\\[rank \\d] started.*")).count(), "no other rank started again: " + r.out());
        assertTrue(r.out().contains("[rank 0] done rank=0") && r.out().contains("[rank 2] done rank=2"), r.out());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFlappingRankEndsTheJobAtItsLimitWithItsCode() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--grace-ms", "500",
                "--max_restarts", "2", "--", FlappingChild.class.getName());
        assertEquals(5, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("rank 1 exited with code 5; restarting it (restart 1 of 2)"), r.err());
        assertTrue(r.err().contains("rank 1 exited with code 5; restarting it (restart 2 of 2)"), r.err());
        assertTrue(r.err().contains("collectives-run: rank 1 exited with code 5 after its 2 restarts (the --max-restarts"
                + " limit was reached); stopping the other ranks"), r.err());
        assertTrue(r.err().contains("collectives-run: restarts: rank 1 2 of 2"), r.err());
        assertEquals(3, count(r.out(), "[rank 1] started"), r.out());
        assertEquals(1, count(r.out(), "[rank 0] started"), r.out());
        assertEquals(1, count(r.out(), "[rank 2] started"), r.out());
        assertFalse(r.out().contains("should have been stopped"), r.out());
        assertEquals(0, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count(), "no child left running");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ranksMeetThroughTheLaunchersStore() {
        LaunchResult r = launch("--nproc-per-node", "3", "--class-data", "off", "--agent-store", "--",
                SumChild.class.getName());
        assertEquals(0, r.code(), r.err() + r.out());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.out().contains("[rank " + rank + "] sum 3"), r.out());
        }
        assertFalse(r.err().contains("restart"), r.err());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theStoreOutlivesRankZero() {
        LaunchResult r = launch("--nproc-per-node", "2", "--class-data", "off", "--max-restarts", "1", "--",
                KillsRankZeroChild.class.getName());
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("collectives-run: rank 0 exited with code 137 (SIGKILL); restarting it (restart 1 of 1)"),
                r.err());
        assertEquals(List.of("[rank 0] sum 1", "[rank 0] restarted, told the store"),
                r.out().lines().filter(l -> l.startsWith("[rank 0]")).toList(), r.out());
        assertTrue(r.out().contains("[rank 1] sum 1"), r.out());
        assertTrue(r.out().contains("[rank 1] store after rank 0 died: restart 1, still here"), r.out());
    }

    @Test
    void exitCodesOfSignalsAreNamed() {
        assertEquals("exited with code 137 (SIGKILL)", Restarts.exit(137));
        assertEquals("exited with code 143 (SIGTERM)", Restarts.exit(143));
        assertEquals("exited with code 3", Restarts.exit(3));
        assertEquals("exited with code 128", Restarts.exit(128));
        Restarts none = new Restarts(0);
        assertFalse(none.mayRestart(0));
        assertEquals("collectives-run: rank 4 exited with code 42; stopping the other ranks", none.limitLine(4, 42));
        assertEquals(null, none.summary());
    }

    @Test
    void restartsThatNoLossCanUseAreWarnedAboutAtTheStart() {
        Restarts one = new Restarts(1);
        String two = one.quorumWarning(2, java.util.Map.of());
        assertTrue(two != null && two.contains("--max-restarts 1 with 2 ranks: a lost rank leaves 1 of 2, and the quorum"
                + " (majority) needs 2") && two.contains("run 3 or more ranks"), String.valueOf(two));
        assertEquals(null, one.quorumWarning(3, java.util.Map.of()), "3 ranks: a majority survives one loss");
        assertEquals(null, one.quorumWarning(2, java.util.Map.of("RC_GROUP_MIN_QUORUM", "1")), "a quorum of 1 lets the survivor go on");
        assertTrue(one.quorumWarning(4, java.util.Map.of("RC_GROUP_MIN_QUORUM", "100%")) != null, "all of 4: no loss survivable");
        assertEquals(null, new Restarts(0).quorumWarning(2, java.util.Map.of()), "no restarts, nothing to warn about");
    }
}
