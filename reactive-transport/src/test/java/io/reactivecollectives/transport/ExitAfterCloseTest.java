package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that closes its group and exits at once ({@code close(); System.exit(0);}) still leaves
 * in order: its peers hear its GOODBYE, so collectives it had finished are not failed by its
 * leaving, even when the event loop that writes the GOODBYE is busy as the process exits (once
 * seen in {@link ProcessesTest} on JDK 25: {@code barrier[seq=6] rank 1: peer 0 closed the
 * connection} after rank 0 had printed OK). Separate JVM processes: process exit is the point.
 */
class ExitAfterCloseTest {

    @Test
    void peersHearTheGoodbyeOfARankThatExitsRightAfterClose() throws Exception {
        Path dir = Files.createTempDirectory("rc-exit-after-close");
        Path storeFile = dir.resolve("store");
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                Path log = Files.createTempFile("rc-exit-rank" + r, ".log");
                logs.add(log);
                List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-cp", System.getProperty("java.class.path"), ExitAfterCloseMain.class.getName(),
                        storeFile.toString(), String.valueOf(r));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            boolean[] exited = new boolean[2];
            for (int r = 0; r < 2; r++) {
                exited[r] = procs.get(r).waitFor(60, TimeUnit.SECONDS);
            }
            String all = "--- rank 0:\n" + read(logs.get(0)) + "--- rank 1:\n" + read(logs.get(1));
            for (int r = 0; r < 2; r++) {
                assertTrue(exited[r], "rank " + r + " did not finish:\n" + all);
                assertEquals(0, procs.get(r).exitValue(), "rank " + r + " failed:\n" + all);
            }
            // in flight when the GOODBYE came ("barrier[seq=N]"), or refused at once when it came first
            // (shared memory delivers it within microseconds: "barrier rank 1: peer 0 left ...")
            assertTrue(read(logs.get(1)).contains("RANK 1 SAW barrier"), all);
            assertTrue(read(logs.get(1)).contains("rank 1: peer 0 left the group (it closed it after finishing"),
                    "rank 1 should have heard rank 0's GOODBYE, not just the end of the connection:\n" + all);
        } finally {
            procs.forEach(Process::destroyForcibly);
            Files.deleteIfExists(storeFile);
            Files.deleteIfExists(dir);
            for (Path l : logs) {
                Files.deleteIfExists(l);
            }
        }
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
