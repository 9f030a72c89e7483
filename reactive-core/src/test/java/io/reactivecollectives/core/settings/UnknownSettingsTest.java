package io.reactivecollectives.core.settings;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warning about {@code rc.*} system properties no setting reads. */
class UnknownSettingsTest {

    private static final List<Setting<?>> KNOWN = List.of(
            Setting.longValue("rc.transport.shmSpinNanos", "ns", -1, -1, "spin"),
            Setting.bool("rc.transport.sharedMemory", true, "shm"),
            Setting.string("RC_HOST", null, "host"));

    @Test
    void aTypoIsNamedWithTheNearestSetting() {
        assertEquals(List.of("unknown setting rc.transport.shmSpinNano (did you mean rc.transport.shmSpinNanos?)"),
                UnknownSettings.messages(Set.of("rc.transport.shmSpinNano"), KNOWN));
        assertEquals(List.of("unknown setting rc.transport.sharedmemory (did you mean rc.transport.sharedMemory?)"),
                UnknownSettings.messages(Set.of("rc.transport.sharedmemory"), KNOWN));
    }

    @Test
    void aNameFarFromEverySettingGetsNoGuess() {
        assertEquals(List.of("unknown setting rc.zzz (no setting of the modules on the class path)"),
                UnknownSettings.messages(Set.of("rc.zzz"), KNOWN));
    }

    @Test
    void settingsOtherPropertiesAndTheProjectsNonSettingsAreLeftAlone() {
        assertEquals(List.of(), UnknownSettings.messages(Set.of("rc.transport.shmSpinNanos", "java.io.tmpdir",
                "io.netty.leakDetection.level", "rc.build.dir", "rc.library.classpath", "rc.test.chromium",
                "rc.test.anything.else", "RC_HOST"), KNOWN));
        assertTrue(SettingsRegistry.isNonSetting("rc.native.skip"));
        assertFalse(SettingsRegistry.isNonSetting("rc.transport.shmSpinNanos"));
    }

    @Test
    void theWarningIsGivenOnce() {
        AtomicBoolean done = new AtomicBoolean();
        List<String> lines = new ArrayList<>();
        assertTrue(UnknownSettings.warnOnce(done, Set.of("rc.transport.shmSpinNano", "rc.zzz"), KNOWN, lines::add));
        assertFalse(UnknownSettings.warnOnce(done, Set.of("rc.transport.shmSpinNano"), KNOWN, lines::add));
        assertEquals(2, lines.size(), lines.toString());
    }

    @Test
    void theJvmsOwnPropertiesAreCheckedAgainstTheRegistry() {
        System.setProperty("rc.kernels.blockByte", "4096");
        try {
            List<String> lines = UnknownSettings.messages(System.getProperties().stringPropertyNames(),
                    SettingsRegistry.all());
            assertTrue(lines.contains("unknown setting rc.kernels.blockByte (did you mean rc.kernels.blockBytes?)"),
                    lines.toString());
        } finally {
            System.clearProperty("rc.kernels.blockByte");
        }
        UnknownSettings.warnOnce();
        assertTrue(UnknownSettings.done());
    }
}
