package io.reactivecollectives.transport;

import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** all-reduce and broadcast between separate JVM processes, one per rank, meeting through the TCP store. */
class ProcessesTest {

    @Test
    void allReduceAndBroadcastAcrossThreeProcesses() throws Exception {
        int world = 3;
        TcpStoreServer server = TcpStoreServer.builder().start().block(Duration.ofSeconds(20));
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < world; r++) {
                Path log = Files.createTempFile("rc-rank" + r, ".log");
                logs.add(log);
                List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-cp", System.getProperty("java.class.path"), RankMain.class.getName(),
                        String.valueOf(server.port()), String.valueOf(r), String.valueOf(world));
                procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            for (int r = 0; r < world; r++) {
                Process p = procs.get(r);
                boolean exited = p.waitFor(120, TimeUnit.SECONDS);
                String out = read(logs.get(r));
                assertTrue(exited, "rank " + r + " did not finish:\n" + out);
                assertEquals(0, p.exitValue(), "rank " + r + " failed:\n" + out);
                assertTrue(out.contains("RANK " + r + " OK"), out);
            }
        } finally {
            procs.forEach(Process::destroyForcibly);
            server.close();
            for (Path l : logs) {
                Files.deleteIfExists(l);
            }
        }
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
