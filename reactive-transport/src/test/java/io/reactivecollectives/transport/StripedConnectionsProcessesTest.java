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
 * Several connections per peer over plain TCP, between two JVM processes (a JVM's Unix domain
 * sockets are switched off with a system property read once, so the ranks need JVMs of their own
 * to meet over TCP without TLS): the stripes come up, an all-reduce and a broadcast are right, and
 * a rank that closes right after its broadcast loses nothing of the segments still on their way
 * over the other stripes when its GOODBYE arrives ({@link StripesMain}).
 */
class StripedConnectionsProcessesTest {

    @Test
    void anOrderlyCloseOverThreeStripesLosesNoSegment() throws Exception {
        Path dir = Files.createTempDirectory("rc-stripes");
        Path storeFile = dir.resolve("store");
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                Path log = Files.createTempFile("rc-stripes-rank" + r, ".log");
                logs.add(log);
                List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Drc.transport.unixSockets=false",
                        "-cp", System.getProperty("java.class.path"), StripesMain.class.getName(),
                        storeFile.toString(), String.valueOf(r), "3", "8");
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            boolean[] exited = new boolean[2];
            for (int r = 0; r < 2; r++) {
                exited[r] = procs.get(r).waitFor(25, TimeUnit.SECONDS);
            }
            String all = "--- rank 0:\n" + read(logs.get(0)) + "--- rank 1:\n" + read(logs.get(1));
            for (int r = 0; r < 2; r++) {
                assertTrue(exited[r], "rank " + r + " did not finish:\n" + all);
                assertEquals(0, procs.get(r).exitValue(), "rank " + r + " failed:\n" + all);
                assertTrue(read(logs.get(r)).contains("RANK " + r + " OK via tcp x3"), all);
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
