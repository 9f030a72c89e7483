package io.reactivecollectives.core.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The settings of {@code reactive-core}: the flight recorder's dumps, the wait reports and the
 * reduction kernels. Read through {@link Setting#get()}; listed by {@link SettingsRegistry}.
 */
public final class CoreSettings implements SettingsProvider {

    /** Where flight-recorder dumps go. */
    public static final Setting<Path> FLIGHT_RECORDER_DIR = Setting.path("rc.flight-recorder.dir", null,
                    "where flight-recorder dumps go (each job in a directory `flight-recorder-<start>-<random>` of its own)")
            .env("RC_FLIGHT_RECORDER_DIR")
            .defaultsTo(() -> Path.of(System.getProperty("java.io.tmpdir")), "`java.io.tmpdir`");

    /** How often a waiting rank says whom it waits for. */
    public static final Setting<Duration> WAIT_REPORTS_INTERVAL = Setting.duration("rc.wait-reports.interval",
                    Duration.ofSeconds(5),
                    "how often a waiting rank says who it waits for (rendezvous, collectives, shrink)")
            .env("RC_WAIT_REPORTS_INTERVAL").defaultText("5 s");

    /** Whether the native reduction kernels are used. */
    public static final Setting<Boolean> KERNELS_NATIVE = Setting.bool("rc.kernels.native", true,
            "`false`: the Java reduction kernels instead of the native ones");

    /** A native kernels library to load instead of the jar's. */
    public static final Setting<Path> KERNELS_NATIVE_LIBRARY = Setting.path("rc.kernels.native.library", null,
            "load the native kernels from this file instead of the jar");

    /** Block size of the Java kernels. */
    public static final Setting<Integer> KERNELS_BLOCK_BYTES = Setting.intBytes("rc.kernels.blockBytes", 8192, 64,
                    "block size of the Java kernels")
            .requiring(v -> v % 8 == 0, "a multiple of 8").typeText("int bytes (K/M/G), >= 64, a multiple of 8");

    /** Whether the Java kernels copy with plain buffers only. */
    public static final Setting<Boolean> KERNELS_PORTABLE = Setting.bool("io.reactivecollectives.kernels.portable",
            false, "`true`: the Java kernels use neither `sun.misc.Unsafe` nor `java.lang.foreign` to copy "
                    + "(plain buffers only)");

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public CoreSettings() {
    }

    @Override
    public String module() {
        return "reactive-core";
    }

    @Override
    public int order() {
        return 0;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(FLIGHT_RECORDER_DIR, WAIT_REPORTS_INTERVAL, KERNELS_NATIVE, KERNELS_NATIVE_LIBRARY,
                KERNELS_BLOCK_BYTES, KERNELS_PORTABLE);
    }
}
