package io.reactivecollectives.core.settings;

import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.WaitReports;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Core's settings keep the defaults the code had before the registry, and the registry lists them. */
class CoreSettingsTest {

    @Test
    void defaultsAreTheOldHardCodedOnes() {
        Map<String, String> none = Map.of();
        assertEquals(Path.of(System.getProperty("java.io.tmpdir")), CoreSettings.FLIGHT_RECORDER_DIR.defaultValue());
        assertEquals(Duration.ofSeconds(5), CoreSettings.WAIT_REPORTS_INTERVAL.defaultValue());
        assertEquals(WaitReports.DEFAULT_INTERVAL, CoreSettings.WAIT_REPORTS_INTERVAL.defaultValue());
        assertTrue(CoreSettings.KERNELS_NATIVE.defaultValue());
        assertNull(CoreSettings.KERNELS_NATIVE_LIBRARY.defaultValue());
        assertEquals(8192, CoreSettings.KERNELS_BLOCK_BYTES.defaultValue());
        assertFalse(CoreSettings.KERNELS_PORTABLE.defaultValue());
        assertEquals("rc.flight-recorder.dir", FlightRecorder.DIRECTORY_PROPERTY);
        assertEquals(FlightRecorder.DIRECTORY_PROPERTY, CoreSettings.FLIGHT_RECORDER_DIR.property());
        assertEquals(FlightRecorder.DIRECTORY_ENV, CoreSettings.FLIGHT_RECORDER_DIR.environment());
        assertEquals(WaitReports.PROPERTY, CoreSettings.WAIT_REPORTS_INTERVAL.property());
        assertEquals(WaitReports.ENV, CoreSettings.WAIT_REPORTS_INTERVAL.environment());
        assertEquals(Path.of("/dumps"), CoreSettings.FLIGHT_RECORDER_DIR.get(Map.of("RC_FLIGHT_RECORDER_DIR", "/dumps")));
        assertEquals(Duration.ofSeconds(5), CoreSettings.WAIT_REPORTS_INTERVAL.get(none));
    }

    @Test
    void theRegistryListsCoreFirstAndFindsByEitherName() {
        Map<String, List<Setting<?>>> byModule = SettingsRegistry.byModule();
        assertEquals("reactive-core", byModule.keySet().iterator().next());
        assertEquals(new CoreSettings().settings(), byModule.get("reactive-core"));
        assertEquals(CoreSettings.KERNELS_BLOCK_BYTES, SettingsRegistry.find("rc.kernels.blockBytes").orElseThrow());
        assertEquals(CoreSettings.FLIGHT_RECORDER_DIR, SettingsRegistry.find("RC_FLIGHT_RECORDER_DIR").orElseThrow());
        assertTrue(SettingsRegistry.find("rc.kernels.nothing").isEmpty());
        assertTrue(SettingsRegistry.all().containsAll(new CoreSettings().settings()));
    }

    @Test
    void everyNameIsDeclaredOnce() {
        List<String> names = SettingsRegistry.all().stream().map(Setting::name).toList();
        assertEquals(names.size(), names.stream().distinct().count(), names.toString());
    }
}
