package io.reactivecollectives.perf;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsProvider;

import java.util.List;

/**
 * The settings of {@code perf} ({@code collectives-perf}). Read through {@link Setting#get()};
 * listed by {@link io.reactivecollectives.core.settings.SettingsRegistry}.
 */
public final class PerfSettings implements SettingsProvider {

    /** Whether the store benchmark prints each client's time per operation. */
    public static final Setting<Boolean> BENCH_VERBOSE = Setting.bool("rc.bench.verbose", false,
            "`collectives-perf`'s store benchmark prints each client's time per operation");

    /** JVM options added to every rank JVM. */
    public static final Setting<String> RANK_JAVA_OPTS = Setting.string("RC_RANK_JAVA_OPTS", null,
            "options added to every rank JVM of `collectives-perf` (`{rank}` replaced)");

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public PerfSettings() {
    }

    @Override
    public String module() {
        return "perf";
    }

    @Override
    public int order() {
        return 40;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(BENCH_VERBOSE, RANK_JAVA_OPTS);
    }
}
