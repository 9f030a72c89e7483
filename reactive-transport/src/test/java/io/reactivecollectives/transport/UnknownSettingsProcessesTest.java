package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM started with a misspelt {@code rc.*} property hears about it once, at the first group start,
 * with the setting it probably meant; the project's own non-settings ({@code rc.build.dir}) and
 * other properties pass silently.
 */
class UnknownSettingsProcessesTest {

    @TempDir
    Path dir;

    @Test
    void aMisspeltPropertyIsWarnedAboutOnceAtTheFirstGroupStart() throws Exception {
        Path out = dir.resolve("out.log");
        Path err = dir.resolve("err.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Drc.transport.shmSpinMicro=5", "-Drc.build.dir=target", "-Dmy.own=1",
                "-cp", System.getProperty("java.class.path"), UnknownSettingsMain.class.getName())
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
        }
        assertTrue(stdout.contains("DONE"), stdout);
        String line = "unknown setting rc.transport.shmSpinMicro (did you mean rc.transport.shmSpinMicros?)";
        assertEquals(1, stderr.lines().filter(l -> l.contains(line)).count(), stderr);
        assertEquals(1, stderr.lines().filter(l -> l.contains("unknown setting")).count(), stderr);
        assertFalse(stderr.contains("rc.build.dir"), stderr);
    }
}
