package io.reactivecollectives.core.settings;

import java.util.List;

/**
 * The settings one module declares, found by {@link SettingsRegistry} through
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.reactivecollectives.core.settings.SettingsProvider}).
 * Each module has one: {@code CoreSettings}, {@code TransportSettings}, ...
 */
public interface SettingsProvider {

    /**
     * The module's name as the reference page shows it ({@code reactive-core}, ...).
     *
     * @return the module
     */
    String module();

    /**
     * Where the module's settings come in the registry and on the page: core 0, then the modules in
     * the order of their dependencies (store 5, transport 10, cuda 20, tools 30, perf 40); ties by module name.
     *
     * @return the module's place
     */
    default int order() {
        return 100;
    }

    /**
     * Every setting the module reads, in the order of the reference page.
     *
     * @return the settings
     */
    List<Setting<?>> settings();
}
