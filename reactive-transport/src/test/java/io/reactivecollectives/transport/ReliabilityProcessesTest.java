package io.reactivecollectives.transport;

import io.reactivecollectives.transport.shm.ShmSettings;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures of real rank processes ({@link ReliabilityMain}, one JVM per rank, meeting through a
 * file store): {@code kill -9} during a 64 MiB all-reduce, a rank that stops (SIGSTOP: only the
 * heartbeats notice), TEAR_DOWN exiting the process, and (with {@code -Drc.soak=true}) a soak of
 * 10,000 all-reduces of 1 MiB. Rank processes run Netty's leak detector at PARANOID; a "LEAK:" line
 * in any log fails the test.
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class ReliabilityProcessesTest {

    private static final Pattern FAILED_AT = Pattern.compile("FAILED_AT (\\d+) (.*)");

    /** The rank processes of one test and their logs. */
    private static final class Ranks implements AutoCloseable {
        final Path dir;
        final List<Process> procs = new ArrayList<>();
        final List<Path> logs = new ArrayList<>();

        Ranks(String mode, int world, String... jvmArgs) throws IOException {
            dir = Files.createTempDirectory("rc-reliability");
            Path storeFile = dir.resolve("store");
            for (int r = 0; r < world; r++) {
                Path log = dir.resolve("rank" + r + ".log");
                logs.add(log);
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:MaxDirectMemorySize=1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dio.netty.leakDetection.level=paranoid"));
                cmd.addAll(List.of(jvmArgs));
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ReliabilityMain.class.getName(),
                        mode, storeFile.toString(), String.valueOf(r), String.valueOf(world)));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
        }

        String log(int r) {
            try {
                return Files.readString(logs.get(r), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        }

        String all() {
            StringBuilder b = new StringBuilder();
            for (int r = 0; r < logs.size(); r++) {
                b.append("--- rank ").append(r).append(":\n").append(log(r));
            }
            return b.toString();
        }

        void await(String what, long timeoutMs, Predicate<Ranks> condition) throws InterruptedException {
            long end = System.currentTimeMillis() + timeoutMs;
            while (!condition.test(this)) {
                if (System.currentTimeMillis() > end) {
                    throw new AssertionError("timed out waiting for " + what + "\n" + all());
                }
                Thread.sleep(20);
            }
        }

        boolean logContains(int r, String s) {
            return log(r).contains(s);
        }

        void signal(int r, String sig) throws IOException, InterruptedException {
            new ProcessBuilder("kill", "-" + sig, String.valueOf(procs.get(r).pid())).start().waitFor(5, TimeUnit.SECONDS);
        }

        int exit(int r, long seconds) throws InterruptedException {
            assertTrue(procs.get(r).waitFor(seconds, TimeUnit.SECONDS), "rank " + r + " did not exit\n" + all());
            return procs.get(r).exitValue();
        }

        void assertNoLeaks() {
            String all = all();
            assertFalse(all.contains("LEAK:"), "a rank leaked a buffer\n" + all);
        }

        @Override
        public void close() throws IOException {
            procs.forEach(Process::destroyForcibly);
            for (Process p : procs) {
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** Shared-memory files of the process {@code pid} in /dev/shm (none once its group has started). */
    static List<String> leftovers(long pid) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return List.of();
        }
        try (var files = Files.list(shm)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("rc-shm-" + pid + "-")).toList();
        }
    }

    /** Milliseconds from {@code since} to the rank's FAILED_AT line, and its message. */
    private static String[] failure(Ranks ranks, int r, long since) {
        Matcher m = FAILED_AT.matcher(ranks.log(r));
        assertTrue(m.find(), "rank " + r + " reported no failure\n" + ranks.all());
        return new String[] {String.valueOf(Long.parseLong(m.group(1)) - since), m.group(2)};
    }

    @ParameterizedTest(name = "shared memory {0}")
    @ValueSource(booleans = {true, false})
    void killDashNineDuringA64MiBAllReduceFailsSurvivorsWithin2sThenTheyShrinkAndAllReduce(boolean sharedMemory)
            throws Exception {
        int world = 4;
        int victim = 3;
        try (Ranks ranks = new Ranks("kill", world, "-Drc.transport.sharedMemory=" + sharedMemory)) {
            // every rank is inside its second 64 MiB all-reduce (the first completed on all)
            ranks.await("the second all-reduce on every rank", 120_000, rs -> {
                for (int r = 0; r < world; r++) {
                    if (!rs.logContains(r, "STARTED 2")) {
                        return false;
                    }
                }
                return true;
            });
            String via = sharedMemory && ShmSettings.fromSystemProperties().unavailableReason(world) == null ? "shm" : "unix";
            for (int r = 0; r < world; r++) {
                assertTrue(ranks.logContains(r, "READY via " + via), "rank " + r + " talks through " + via + "\n" + ranks.all());
            }
            long killedAt = System.currentTimeMillis();
            ranks.signal(victim, "KILL");
            ranks.await("an error on every survivor", 10_000, rs -> {
                for (int r = 0; r < victim; r++) {
                    if (!rs.logContains(r, "FAILED_AT")) {
                        return false;
                    }
                }
                return true;
            });
            StringBuilder figures = new StringBuilder();
            for (int r = 0; r < victim; r++) {
                String[] f = failure(ranks, r, killedAt);
                long ms = Long.parseLong(f[0]);
                figures.append("rank ").append(r).append(": ").append(ms).append(" ms: ").append(f[1]).append('\n');
                assertTrue(ms < 2000, "rank " + r + " got its error " + ms + " ms after kill -9\n" + ranks.all());
                assertTrue(f[1].matches("allReduce\\[seq=\\d+] rank " + r + ": peer 3 closed the connection.*"),
                        "a peer failure naming the dead peer: " + f[1]);
            }
            System.out.println("kill -9 to error (" + via + "):\n" + figures);
            for (Process p : ranks.procs) {
                assertEquals(List.of(), leftovers(p.pid()), "the segment file is gone once mapped, whoever dies");
            }
            for (int r = 0; r < victim; r++) {
                assertEquals(0, ranks.exit(r, 90), "rank " + r + " failed\n" + ranks.all());
                assertTrue(ranks.logContains(r, "SHRUNK " + r + " 3 OK"), ranks.all());
            }
            ranks.assertNoLeaks();
        }
    }

    @Test
    void aStoppedRankIsFoundByMissedHeartbeatsAndTheOthersShrink() throws Exception {
        int world = 3;
        try (Ranks ranks = new Ranks("silent", world)) {
            ranks.await("all ranks past 50 all-reduces", 60_000, rs -> {
                for (int r = 0; r < world; r++) {
                    if (!rs.logContains(r, "STARTED 50\n")) {
                        return false;
                    }
                }
                return true;
            });
            long stoppedAt = System.currentTimeMillis();
            ranks.signal(2, "STOP");
            try {
                ranks.await("an error on ranks 0 and 1", 15_000,
                        rs -> rs.logContains(0, "FAILED_AT") && rs.logContains(1, "FAILED_AT"));
                boolean heartbeatNamed = false;
                for (int r = 0; r < 2; r++) {
                    String[] f = failure(ranks, r, stoppedAt);
                    long ms = Long.parseLong(f[0]);
                    System.out.println("SIGSTOP to error, rank " + r + ": " + ms + " ms: " + f[1]);
                    // 5 missed 200 ms heartbeats: 1 s of silence, the last frame up to one interval before
                    // the stop, checked every 200 ms, plus scheduling slack
                    assertTrue(ms >= 700 && ms < 4000, "rank " + r + " got its error " + ms + " ms after SIGSTOP\n" + ranks.all());
                    heartbeatNamed |= f[1].contains("peer 2 missed 5 heartbeats");
                }
                assertTrue(heartbeatNamed, "the error names the missed heartbeats\n" + ranks.all());
                for (int r = 0; r < 2; r++) {
                    assertEquals(0, ranks.exit(r, 60), "rank " + r + " failed\n" + ranks.all());
                    assertTrue(ranks.logContains(r, "SHRUNK " + r + " 2 OK"), ranks.all());
                }
                ranks.assertNoLeaks();
            } finally {
                ranks.signal(2, "KILL");
            }
        }
    }

    @Test
    void tearDownModeExitsTheProcessWithItsStatusWhenAPeerDies() throws Exception {
        try (Ranks ranks = new Ranks("teardown", 2)) {
            ranks.await("all-reduces running", 60_000, rs -> rs.logContains(0, "STARTED 20\n") && rs.logContains(1, "STARTED 20\n"));
            ranks.signal(1, "KILL");
            assertEquals(ErrorHandling.EXIT_STATUS, ranks.exit(0, 20), ranks.all());
            assertTrue(ranks.logContains(0, "tearing the process down"), ranks.all());
            assertFalse(ranks.logContains(0, "NOT TORN DOWN"), ranks.all());
        }
    }

    private static final Pattern MEM = Pattern.compile("MEM (\\w+) heap=(\\d+) direct=(\\d+) pooledDirect=(\\d+)");

    @Test
    @EnabledIfSystemProperty(named = "rc.soak", matches = "true", disabledReason = "soak runs with -Drc.soak=true")
    void soakTenThousandAllReducesOf1MiBKeepsDirectMemoryFlat() throws Exception {
        try (Ranks ranks = new Ranks("soak", 2, "-Dio.netty.leakDetection.level=simple")) {
            for (int r = 0; r < 2; r++) {
                assertEquals(0, ranks.exit(r, 600), "rank " + r + " failed\n" + ranks.all());
                assertTrue(ranks.logContains(r, "SOAK OK"), ranks.all());
            }
            System.out.println(ranks.all());
            for (int r = 0; r < 2; r++) {
                Matcher m = MEM.matcher(ranks.log(r));
                assertTrue(m.find());
                long startDirect = Long.parseLong(m.group(3));
                long startPooled = Long.parseLong(m.group(4));
                assertTrue(m.find());
                long endDirect = Long.parseLong(m.group(3));
                long endPooled = Long.parseLong(m.group(4));
                long margin = 16L << 20;
                assertTrue(endDirect - startDirect <= margin && endPooled - startPooled <= margin,
                        "rank " + r + " direct memory grew: " + startDirect + " -> " + endDirect + ", pooled "
                                + startPooled + " -> " + endPooled);
            }
            ranks.assertNoLeaks();
        }
    }
}
