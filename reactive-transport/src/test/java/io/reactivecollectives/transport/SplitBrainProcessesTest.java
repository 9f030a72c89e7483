package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import io.reactivecollectives.transport.rendezvous.StoreServerMain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shrink with processes that stop (SIGSTOP). No split brain after a shrink ({@link SplitBrainMain},
 * one JVM per rank, a TCP store in the test JVM): rank 3 of 4 is stopped, ranks 0-2 find it by
 * missed heartbeats, shrink to 3 and all-reduce; then rank 3 resumes (SIGCONT), and its shrink fails
 * saying it was excluded by ranks 0-2, while the new group keeps all-reducing correctly. Before the
 * decision went through the store, rank 3 formed a group of one under the survivors' group id. And a
 * shrink while the store's process is stopped fails within the connect timeout naming the store,
 * instead of hanging.
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class SplitBrainProcessesTest {

    @Test
    void aStoppedRankThatResumesAfterTheShrinkIsExcludedAndFormsNoGroup() throws Exception {
        stoppedRankIsExcluded(List.of());
    }

    /** The same over a heartbeat ring of one rank on each side: rank 1 does not watch rank 3 and learns of it from 0 and 2. */
    @Test
    void overAHeartbeatRingTheShrinkExcludesTheStoppedRankToo() throws Exception {
        stoppedRankIsExcluded(List.of("-Drc.liveness.ringAbove=2", "-Drc.liveness.neighbours=1"));
    }

    private static void stoppedRankIsExcluded(List<String> options) throws Exception {
        int world = 4;
        int victim = 3;
        Path dir = Files.createTempDirectory("rc-split-brain");
        Path done = dir.resolve("done");
        TcpStoreServer server = TcpStoreServer.builder().start().block(Duration.ofSeconds(20));
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        boolean stopped = false;
        try {
            for (int r = 0; r < world; r++) {
                Path log = dir.resolve("rank" + r + ".log");
                logs.add(log);
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dio.netty.leakDetection.level=paranoid",
                        "-Drc.flight-recorder.dir=" + dir));
                cmd.addAll(options);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SplitBrainMain.class.getName(),
                        "127.0.0.1", String.valueOf(server.port()), String.valueOf(r), String.valueOf(world),
                        done.toString()));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            await(logs, "all ranks running", 30_000, r -> has(logs, r, "RUNNING"));

            signal(procs.get(victim), "STOP");
            stopped = true;
            await(logs, "ranks 0-2 failing their all-reduce", 8_000, r -> r == victim || has(logs, r, "FAILED_AT"));
            await(logs, "ranks 0-2 shrinking and all-reducing", 10_000,
                    r -> r == victim || has(logs, r, "SHRUNK " + r + " 3 split-brain@gen1 OK"));

            signal(procs.get(victim), "CONT");
            stopped = false;
            await(logs, "rank 3 told it was excluded", 8_000, r -> r != victim || has(logs, r, "EXCLUDED"));
            Files.createFile(done);
            for (int r = 0; r < world; r++) {
                Process p = procs.get(r);
                assertTrue(p.waitFor(8, TimeUnit.SECONDS), "rank " + r + " did not exit\n" + all(logs));
                assertEquals(0, p.exitValue(), "rank " + r + "\n" + all(logs));
            }

            String excluded = log(logs, victim);
            all(logs).lines().filter(l -> l.startsWith("--- ") || l.startsWith("FAILED_AT") || l.startsWith("SHRUNK")
                    || l.startsWith("EXCLUDED") || l.startsWith("SURVIVED")).forEach(System.out::println);
            assertTrue(excluded.contains("EXCLUDED shrink rank 3: rank 3 was excluded from generation 1 by ranks 0-2"),
                    excluded);
            assertTrue(excluded.contains("through store TcpStore[") && excluded.contains(":" + server.port()), excluded);
            assertFalse(excluded.contains("SHRUNK"), "rank 3 formed a group\n" + excluded);
            for (int r = 0; r < victim; r++) {
                assertTrue(has(logs, r, "SURVIVED "), all(logs));
                assertTrue(log(logs, r).contains("peer 3"), "the failure names rank 3\n" + log(logs, r));
            }
            assertFalse(all(logs).contains("LEAK:"), "a rank leaked a buffer\n" + all(logs));
        } finally {
            for (Process p : procs) {
                if (stopped) {
                    signal(p, "CONT");
                }
                p.destroyForcibly();
            }
            for (Process p : procs) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            server.close();
            try (var files = Files.walk(dir)) {   // the dumps are in a job directory inside it
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    @Test
    void shrinkWhileTheStoresHostIsStoppedFailsInTimeNamingTheStore() throws Exception {
        Path log = Files.createTempFile("rc-frozen-store", ".log");
        Process storeProc = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                StoreServerMain.class.getName(), "127.0.0.1", "0")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        TcpStore s0 = null;
        TcpStore s1 = null;
        MeshProcessGroup g0 = null;
        MeshProcessGroup g1 = null;
        try {
            long end = System.currentTimeMillis() + 30_000;
            Matcher m;
            while (!(m = LISTENING.matcher(Files.readString(log))).find()) {
                assertTrue(System.currentTimeMillis() < end && storeProc.isAlive(),
                        "store did not start: " + Files.readString(log));
                Thread.sleep(20);
            }
            int port = Integer.parseInt(m.group(1));
            TcpStoreOptions so = TcpStoreOptions.of("127.0.0.1", port).withTimeout(Duration.ofSeconds(10));
            s0 = TcpStore.connect(so).block(Duration.ofSeconds(10));
            s1 = TcpStore.connect(so).block(Duration.ofSeconds(10));
            GroupOptions opts = GroupOptions.defaults().withGroupId("frozen-store").withConnectTimeout(Duration.ofSeconds(2));
            var pair = Mono.zip(MeshProcessGroup.connect(s0, 0, 2, opts), MeshProcessGroup.connect(s1, 1, 2, opts))
                    .block(Duration.ofSeconds(20));
            g0 = pair.getT1();
            g1 = pair.getT2();
            g1.close();
            signal(storeProc, "STOP");
            // kill returns once the signal is sent; a store thread may still answer for a moment under load
            io.reactivecollectives.transport.rendezvous.StoppedProcesses.awaitStopped(storeProc.pid());
            long t0 = System.nanoTime();
            MeshProcessGroup g = g0;
            Throwable e = assertThrows(CollectiveTimeoutException.class, () -> g.shrink().block(Duration.ofSeconds(30)));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("shrink with the store stopped failed after " + ms + " ms: " + e.getMessage());
            assertTrue(e.getMessage().startsWith("shrink rank 0: store TcpStore[127.0.0.1:" + port), e.getMessage());
            assertTrue(e.getMessage().contains("did not answer check rc/frozen-store/shrink/gen1/members within 2000 ms"),
                    e.getMessage());
            assertTrue(ms >= 1900 && ms < 6000, "failed after " + ms + " ms");
        } finally {
            signal(storeProc, "CONT");
            storeProc.destroyForcibly();
            storeProc.waitFor(10, TimeUnit.SECONDS);
            for (AutoCloseable c : new AutoCloseable[] {g0, g1, s0, s1}) {
                if (c != null) {
                    c.close();
                }
            }
            Files.deleteIfExists(log);
        }
    }

    private static final Pattern LISTENING = Pattern.compile("TCP store listening on [^:]+:(\\d+)");

    private static void signal(Process p, String sig) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).start().waitFor(5, TimeUnit.SECONDS);
    }

    private static String log(List<Path> logs, int r) {
        try {
            return Files.readString(logs.get(r), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static boolean has(List<Path> logs, int r, String s) {
        return log(logs, r).contains(s);
    }

    private static String all(List<Path> logs) {
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < logs.size(); r++) {
            b.append("--- rank ").append(r).append(":\n").append(log(logs, r));
        }
        return b.toString();
    }

    /** Waits until {@code ok} holds for every rank, failing with every log after {@code timeoutMs}. */
    private static void await(List<Path> logs, String what, long timeoutMs, IntPredicate ok) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            boolean all = true;
            for (int r = 0; r < logs.size() && all; r++) {
                all = ok.test(r);
            }
            if (all) {
                return;
            }
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out waiting for " + what + "\n" + all(logs));
            }
            Thread.sleep(20);
        }
    }
}
