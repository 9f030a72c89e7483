package io.reactivecollectives.transport.mesh;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank stopped with SIGSTOP in the middle of 4 MiB all-reduces (four rank processes, 100 ms x 5
 * heartbeats): the survivors' writes to it back up, and the connection is closed by the survivor
 * that finds it silent. Every survivor's error must name the silence ({@code peer 3 unresponsive:
 * ...}), not a closed connection: the first, precise cause must win over the failed writes and the
 * channel's later close. The same over a heartbeat ring ({@link MeshPeers}: six ranks, one
 * neighbour on each side): only ranks 2 and 4 watch rank 3, and the others learn of the silence from
 * their abort notices, which name it too.
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class SilentPeerProcessesTest {

    private static final Pattern FAILED_AT = Pattern.compile("FAILED_AT (\\d+) (.*)");

    @Test
    void everySurvivorNamesTheSilentPeerAsUnresponsive() throws Exception {
        survivorsNameTheSilentPeer(4, List.of());
    }

    @Test
    void overAHeartbeatRingTheSurvivorsWhoDoNotWatchItNameTheSilentPeerToo() throws Exception {
        survivorsNameTheSilentPeer(6, List.of("-Drc.liveness.ringAbove=2", "-Drc.liveness.neighbours=1"));
    }

    /** Rank 3 of {@code world} stopped; every other rank's error names it unresponsive within 5 s. */
    private static void survivorsNameTheSilentPeer(int world, List<String> options) throws Exception {
        int victim = 3;
        Path dir = Files.createTempDirectory("rc-silent");
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                Path log = dir.resolve("rank" + r + ".log");
                logs.add(log);
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:MaxDirectMemorySize=512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
                cmd.addAll(options);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SilentPeerMain.class.getName(),
                        dir.resolve("store").toString(), String.valueOf(r), String.valueOf(world), String.valueOf(1 << 20)));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            await(logs, "STARTED 3\n", world, 90_000);
            long stoppedAt = System.currentTimeMillis();
            new ProcessBuilder("kill", "-STOP", String.valueOf(procs.get(victim).pid())).start().waitFor(5, TimeUnit.SECONDS);
            List<Integer> survivors = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                if (r != victim) {
                    survivors.add(r);
                }
            }
            await(logs, "FAILED_AT", survivors, 15_000);
            StringBuilder figures = new StringBuilder();
            for (int r : survivors) {
                Matcher m = FAILED_AT.matcher(read(logs.get(r)));
                assertTrue(m.find(), "rank " + r + " reported no failure\n" + all(logs));
                long ms = Long.parseLong(m.group(1)) - stoppedAt;
                figures.append("rank ").append(r).append(": ").append(ms).append(" ms: ").append(m.group(2)).append('\n');
            }
            System.out.println("SIGSTOP to error:\n" + figures);
            for (int r : survivors) {
                Matcher m = FAILED_AT.matcher(read(logs.get(r)));
                assertTrue(m.find());
                String msg = m.group(2);
                assertTrue(msg.contains("peer 3 unresponsive: nothing heard for"), "rank " + r + ": " + msg + "\n" + figures
                        + all(logs));
                assertFalse(msg.contains("closed the connection") || msg.contains("null"), "rank " + r + ": " + msg);
                long ms = Long.parseLong(m.group(1)) - stoppedAt;
                assertTrue(ms >= 350 && ms < 5000, "rank " + r + " got its error " + ms + " ms after SIGSTOP\n" + figures);
            }
        } finally {
            for (Process p : procs) {
                p.destroyForcibly();
            }
            for (Process p : procs) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void await(List<Path> logs, String text, int ranks, long timeoutMs) throws Exception {
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            all.add(r);
        }
        await(logs, text, all, timeoutMs);
    }

    private static void await(List<Path> logs, String text, List<Integer> ranks, long timeoutMs) throws Exception {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            boolean all = true;
            for (int r : ranks) {
                all &= read(logs.get(r)).contains(text);
            }
            if (all) {
                return;
            }
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out waiting for '" + text.trim() + "' on ranks " + ranks
                        + "\n" + all(logs));
            }
            Thread.sleep(20);
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static String all(List<Path> logs) {
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < logs.size(); r++) {
            b.append("--- rank ").append(r).append(":\n").append(read(logs.get(r)));
        }
        return b.toString();
    }
}
