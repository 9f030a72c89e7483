package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

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
        ChildJvm.Output o = ChildJvm.run(dir, List.of("-Drc.transport.shmSpinMicro=5", "-Drc.build.dir=target",
                "-Dmy.own=1"), System.getProperty("java.class.path"), UnknownSettingsMain.class.getName());
        String stdout = o.stdout();
        String stderr = o.stderr();
        assertTrue(stdout.contains("DONE"), stdout);
        String line = "unknown setting rc.transport.shmSpinMicro (did you mean rc.transport.shmSpinMicros?)";
        assertEquals(1, stderr.lines().filter(l -> l.contains(line)).count(), stderr);
        assertEquals(1, stderr.lines().filter(l -> l.contains("unknown setting")).count(), stderr);
        assertFalse(stderr.contains("rc.build.dir"), stderr);
    }
}
