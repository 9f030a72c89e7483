package io.reactivecollectives.transport;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A small JVM of a test's own (serial GC, C1 only, 256 MiB), run to its end; its output, read from files. */
final class ChildJvm {

    /**
     * What the child wrote.
     *
     * @param stdout its standard output
     * @param stderr its standard error
     */
    record Output(String stdout, String stderr) {
    }

    private ChildJvm() {
    }

    /**
     * Runs {@code main} with {@code options} on {@code classPath}, output to files under {@code dir}
     * (deleted afterwards), and asserts it exits 0 within 60 s.
     */
    static Output run(Path dir, List<String> options, String classPath, String main, String... args) throws Exception {
        Path out = Files.createTempFile(dir, "child", ".out");
        Path err = Files.createTempFile(dir, "child", ".err");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", classPath, main));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            String stdout = Files.readString(out, StandardCharsets.UTF_8);
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            assertTrue(ended, "the child did not exit\n" + stdout + stderr);
            assertEquals(0, p.exitValue(), stdout + stderr);
            return new Output(stdout, stderr);
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
