package io.reactivecollectives.store.settings;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsProvider;

import java.util.List;

/**
 * The settings of {@code reactive-store}: the TCP store's Unix domain socket and its shared secret.
 * Read through {@link Setting#get()} (or {@link Setting#get(java.util.Map)} with a launcher's
 * environment); listed by {@link io.reactivecollectives.core.settings.SettingsRegistry}. The
 * variables that only a launch's embedded store reads (where it binds, its TLS files) are the
 * transport's, which starts that store.
 */
public final class StoreSettings implements SettingsProvider {

    /** Whether the TCP store serves a Unix domain socket too. */
    public static final Setting<Boolean> STORE_UNIX_SOCKETS = Setting.bool("rc.store.unixSockets", true,
            "the TCP store serves (and same-host clients use) a Unix domain socket beside its port");

    /** The store's and the ranks' shared secret. */
    public static final Setting<String> STORE_SECRET = Setting.string("RC_STORE_SECRET", null,
            "shared secret: HMAC authentication of the store's and (through `ProcessGroups`) the ranks' connections "
                    + "(also read by the store command)");

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public StoreSettings() {
    }

    @Override
    public String module() {
        return "reactive-store";
    }

    @Override
    public int order() {
        return 5;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(STORE_UNIX_SOCKETS, STORE_SECRET);
    }
}
