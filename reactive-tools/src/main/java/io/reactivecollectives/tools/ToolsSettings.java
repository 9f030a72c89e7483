package io.reactivecollectives.tools;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsProvider;

import java.nio.file.Path;
import java.util.List;

/**
 * The settings of {@code reactive-tools}: the launcher's class-data cache and what it tells its
 * ranks. Read through {@link Setting#get()}; listed by
 * {@link io.reactivecollectives.core.settings.SettingsRegistry}.
 */
public final class ToolsSettings implements SettingsProvider {

    /** Where {@code collectives-run} keeps its class-data archives. */
    public static final Setting<Path> CLASS_DATA_DIR = Setting.path("RC_CLASS_DATA_DIR", null,
                    "where `collectives-run`'s class-data archives go")
            .defaultText("`$XDG_CACHE_HOME/reactive-collectives/class-data`");

    /** Set by {@code collectives-run} for its ranks: whether its output is a terminal. */
    public static final Setting<String> TTY = Setting.string("RC_TTY", null,
            "set by `collectives-run` to `1` when its output is a terminal (the trainer's progress bar)");

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public ToolsSettings() {
    }

    @Override
    public String module() {
        return "reactive-tools";
    }

    @Override
    public int order() {
        return 30;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(CLASS_DATA_DIR, TTY);
    }
}
