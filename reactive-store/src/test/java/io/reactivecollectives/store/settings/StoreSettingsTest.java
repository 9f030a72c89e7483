package io.reactivecollectives.store.settings;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsRegistry;
import io.reactivecollectives.transport.rendezvous.StoreAuth;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's settings kept the names, defaults and spellings they had in the transport's
 * settings, and the registry finds them as reactive-store's, between core and the transport.
 */
class StoreSettingsTest {

    @Test
    void namesAndDefaultsAreTheOldOnes() {
        assertEquals("rc.store.unixSockets", StoreSettings.STORE_UNIX_SOCKETS.property());
        assertTrue(StoreSettings.STORE_UNIX_SOCKETS.defaultValue());
        assertEquals(StoreAuth.SECRET_ENV, StoreSettings.STORE_SECRET.environment());
        assertNull(StoreSettings.STORE_SECRET.defaultValue());
        assertNull(StoreAuth.secretFrom(Map.of()));
        assertNull(StoreAuth.secretFrom(Map.of("RC_STORE_SECRET", "")));
        assertEquals(3, StoreAuth.secretFrom(Map.of("RC_STORE_SECRET", "abc")).length);
    }

    @Test
    void theUnixSocketSwitchReadsItsProperty() {
        System.setProperty("rc.store.unixSockets", "false");
        try {
            assertFalse(StoreSettings.STORE_UNIX_SOCKETS.get());
        } finally {
            System.clearProperty("rc.store.unixSockets");
        }
        assertTrue(StoreSettings.STORE_UNIX_SOCKETS.get());
    }

    @Test
    void everyConstantIsRegisteredAfterCore() throws IllegalAccessException {
        List<Setting<?>> constants = new ArrayList<>();
        for (Field f : StoreSettings.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                constants.add((Setting<?>) f.get(null));
            }
        }
        assertEquals(constants, new StoreSettings().settings());
        assertEquals(new StoreSettings().settings(), SettingsRegistry.byModule().get("reactive-store"));
        assertEquals(List.of("reactive-core", "reactive-store"), new ArrayList<>(SettingsRegistry.byModule().keySet()));
    }
}
