package io.reactivecollectives.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * all-reduce and broadcast between separate JVM processes, one per rank, meeting through a file
 * store (the processes share this machine's file system).
 */
class ProcessesTest {

    /** Once through Unix domain sockets (ranks on one host, the default), once through TCP. */
    @ParameterizedTest(name = "unixSockets={0}")
    @ValueSource(booleans = {true, false})
    void allReduceAndBroadcastAcrossThreeProcesses(boolean unixSockets) throws Exception {
        String local = io.reactivecollectives.transport.shm.ShmSettings.fromSystemProperties().unavailableReason(3) == null
                ? "shm" : "unix";
        run(r -> "-Drc.transport.unixSockets=" + unixSockets, unixSockets ? local : "tcp");
    }

    /** Ranks that disagree on using shared memory all keep their Unix sockets (no hang, no half-shared group). */
    @org.junit.jupiter.api.Test
    void oneRankWithoutSharedMemoryKeepsEveryRankOnUnixSockets() throws Exception {
        run(r -> "-Drc.transport.sharedMemory=" + (r != 1), "unix");
    }

    private void run(java.util.function.IntFunction<String> option, String via) throws Exception {
        int world = 3;
        Path dir = Files.createTempDirectory("rc-processes");
        Path storeFile = dir.resolve("store");
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                Path log = Files.createTempFile("rc-rank" + r, ".log");
                logs.add(log);
                List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", option.apply(r),
                        "-cp", System.getProperty("java.class.path"), RankMain.class.getName(),
                        storeFile.toString(), String.valueOf(r), String.valueOf(world));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            boolean[] exited = new boolean[world];
            for (int r = 0; r < world; r++) {
                exited[r] = procs.get(r).waitFor(120, TimeUnit.SECONDS);
            }
            StringBuilder all = new StringBuilder();
            for (int r = 0; r < world; r++) {
                all.append("--- rank ").append(r).append(":\n").append(read(logs.get(r)));
            }
            for (int r = 0; r < world; r++) {
                assertTrue(exited[r], "rank " + r + " did not finish:\n" + all);
                assertEquals(0, procs.get(r).exitValue(), "rank " + r + " failed:\n" + all);
                assertTrue(read(logs.get(r)).contains("RANK " + r + " OK via " + via), all.toString());
            }
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
