package io.reactivecollectives.perf;

import io.reactivecollectives.cuda.CudaSettings;
import io.reactivecollectives.tools.ToolsSettings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The settings of cuda, tools and perf keep the defaults the code had before the registry. */
class ModuleSettingsTest {

    @Test
    void defaultsAreTheOldHardCodedOnes() {
        assertFalse(CudaSettings.DISABLED.defaultValue());
        assertEquals(8, CudaSettings.THREADS.defaultValue());
        assertFalse(CudaSettings.BLOCKING_SYNC.defaultValue());
        assertNull(ToolsSettings.CLASS_DATA_DIR.get(Map.of()));
        assertEquals(Path.of("/cds"), ToolsSettings.CLASS_DATA_DIR.get(Map.of("RC_CLASS_DATA_DIR", "/cds")));
        assertNull(ToolsSettings.TTY.get(Map.of()));
        assertEquals("1", ToolsSettings.TTY.get(Map.of("RC_TTY", "1")));
        assertFalse(PerfSettings.BENCH_VERBOSE.defaultValue());
        assertNull(PerfSettings.RANK_JAVA_OPTS.get(Map.of()));
    }
}
