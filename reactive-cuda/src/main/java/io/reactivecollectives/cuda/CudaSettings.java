package io.reactivecollectives.cuda;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsProvider;

import java.util.List;

/**
 * The settings of {@code reactive-cuda}. Read through {@link Setting#get()}; listed by
 * {@link io.reactivecollectives.core.settings.SettingsRegistry}.
 */
public final class CudaSettings implements SettingsProvider {

    /** Whether CUDA is treated as absent. */
    public static final Setting<Boolean> DISABLED = Setting.bool("rc.cuda.disabled", false,
            "`true`: `Cuda.isAvailable()` is false whatever the machine has");

    /** Threads that wait for CUDA copies. */
    public static final Setting<Integer> THREADS = Setting.integer("rc.cuda.threads", 8, 1, Integer.MAX_VALUE,
            "threads (`rc-cuda-N`) that wait for CUDA copies");

    /** Whether CUDA events wait by blocking sync. */
    public static final Setting<Boolean> BLOCKING_SYNC = Setting.bool("rc.cuda.blockingSync", false,
            "CUDA events wait by blocking sync instead of spinning");

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public CudaSettings() {
    }

    @Override
    public String module() {
        return "reactive-cuda";
    }

    @Override
    public int order() {
        return 20;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(DISABLED, THREADS, BLOCKING_SYNC);
    }
}
