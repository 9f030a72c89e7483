package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without an SLF4J binding (the child's class path lacks slf4j-simple: SLF4J falls back to its
 * no-operation logger) the essential lines still reach the user, on {@code System.err} with the
 * prefix {@code [reactive-collectives] }: the rendezvous and collective wait reports and where the
 * dump went; and nothing else of the library's logging is printed.
 */
class NoLoggingBindingProcessesTest {

    @TempDir
    Path dir;

    @Test
    void theEssentialsReachStandardErrorWithoutABinding() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("slf4j-simple"))
                .collect(Collectors.joining(File.pathSeparator));
        Path out = dir.resolveSibling(dir.getFileName() + "-out.log");
        Path err = dir.resolveSibling(dir.getFileName() + "-err.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath,
                SilentWaitsMain.class.getName(), dir.toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        String stdout;
        String stderr;
        try {
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            stdout = Files.readString(out, StandardCharsets.UTF_8);
            stderr = Files.readString(err, StandardCharsets.UTF_8);
            assertTrue(ended, "the child did not exit\n" + stdout + stderr);
            assertEquals(0, p.exitValue(), stdout + stderr);
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
        assertTrue(stdout.contains("TIMEOUT allReduce[seq=0] rank 0: timed out after 2500 ms waiting for rank 1"), stdout);
        assertTrue(stdout.contains("DONE"), stdout);
        String p0 = "[reactive-collectives] group 'no-binding' rank 0: ";
        assertTrue(stderr.contains(p0 + "rendezvous: waiting for rank 1 to join ("), stderr);
        assertTrue(stderr.contains(p0 + "allReduce seq 0 (64 B): waiting for rank 1 for "), stderr);
        assertTrue(stderr.contains(p0 + "flight recorder dump written to " + dir.resolve("flight-recorder-")), stderr);
        // the library's other lines (slf4j-simple would name the logger) stay silent
        List<String> library = stderr.lines().filter(l -> l.contains("io.reactivecollectives")).toList();
        assertEquals(List.of(), library, stderr);
    }
}
