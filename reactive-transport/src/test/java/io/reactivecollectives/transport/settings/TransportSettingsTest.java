package io.reactivecollectives.transport.settings;

import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsRegistry;
import io.reactivecollectives.transport.DashboardOptions;
import io.reactivecollectives.transport.Diagnostics;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.launch.HostAddress;
import io.reactivecollectives.transport.rendezvous.StoreAuth;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The transport's settings keep the defaults and spellings the code had before the registry. */
class TransportSettingsTest {

    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

    @Test
    void defaultsAreTheOldHardCodedOnes() {
        assertEquals(1, TransportSettings.CONNECTIONS_PER_PEER.defaultValue());
        assertEquals(Math.max(4, PROCESSORS), TransportSettings.IO_THREADS.defaultValue());
        assertEquals(50L, TransportSettings.SPIN_MICROS.defaultValue());
        assertTrue(TransportSettings.SPIN_ADAPTIVE.defaultValue());
        assertEquals(PROCESSORS >= 4 ? 64L << 10 : 0L, TransportSettings.OFFLOAD_BYTES.defaultValue());
        assertTrue(TransportSettings.UNIX_SOCKETS.defaultValue());
        assertTrue(TransportSettings.SHARED_MEMORY.defaultValue());
        assertEquals(Path.of("/dev/shm"), TransportSettings.SHM_DIR.defaultValue());
        assertEquals(2 << 20, TransportSettings.SHM_RING_BYTES.defaultValue());
        assertEquals(8L << 20, TransportSettings.SHM_RESERVE_BYTES.defaultValue());
        assertEquals(-1L, TransportSettings.SHM_SPIN_MICROS.defaultValue());
        assertTrue(TransportSettings.SHM_SPIN_ADAPTIVE.defaultValue());
        assertEquals("auto", TransportSettings.SHM_BIND.defaultValue());
        assertEquals(16 << 10, TransportSettings.SHM_LEND_BYTES.defaultValue());
        assertEquals(4L << 20, TransportSettings.HIERARCHICAL_PART_BYTES.defaultValue());
        assertEquals(4, TransportSettings.HIERARCHICAL_INFLIGHT.defaultValue());
        assertEquals(Math.max(2, PROCESSORS / 2), TransportSettings.RESULT_THREADS.defaultValue());
        assertEquals(0L, TransportSettings.RESULT_SPIN_MICROS.defaultValue());
        assertNull(TransportSettings.DISTRIBUTED_DEBUG.defaultValue());
        assertNull(TransportSettings.DASHBOARD.defaultValue());
        assertEquals("0.0.0.0", EnvRendezvous.storeBind(Map.of()));
        assertNull(StoreAuth.secretFrom(Map.of()));
    }

    @Test
    void theOldNamesStillSetThem() {
        assertEquals(Diagnostics.DEBUG_PROPERTY, TransportSettings.DISTRIBUTED_DEBUG.property());
        assertEquals(Diagnostics.DEBUG_ENV, TransportSettings.DISTRIBUTED_DEBUG.environment());
        assertEquals(DashboardOptions.PROPERTY, TransportSettings.DASHBOARD.property());
        assertEquals(DashboardOptions.ENV, TransportSettings.DASHBOARD.environment());
        assertEquals(HostAddress.HOST_ENV, TransportSettings.HOST.environment());
        assertEquals(HostAddress.IFNAME_ENV, TransportSettings.SOCKET_IFNAME.environment());
        assertEquals(EnvRendezvous.BIND_ENV, TransportSettings.STORE_BIND.environment());
        assertEquals(EnvRendezvous.TLS_CERT_ENV, TransportSettings.STORE_TLS_CERT.environment());
        assertEquals(EnvRendezvous.TLS_KEY_ENV, TransportSettings.STORE_TLS_KEY.environment());
        assertEquals(EnvRendezvous.TLS_CA_ENV, TransportSettings.STORE_TLS_CA.environment());
        assertEquals("10.1.2.3", EnvRendezvous.storeBind(Map.of("RC_STORE_BIND", "10.1.2.3")));
        assertEquals(3, StoreAuth.secretFrom(Map.of("RC_STORE_SECRET", "abc")).length);
    }

    @Test
    void theDefaultsOfTheOptionsReadThem() {
        System.setProperty("rc.transport.connectionsPerPeer", "3");
        System.setProperty("rc.distributed.debug", "detail");
        try {
            GroupOptions o = GroupOptions.defaults();
            assertEquals(3, o.connectionsPerPeer());
            assertTrue(o.diagnostics().checkCollectives());
            System.setProperty("rc.transport.connectionsPerPeer", "65");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, GroupOptions::defaults);
            assertTrue(e.getMessage().startsWith("setting rc.transport.connectionsPerPeer (system property): "
                    + "'65' is not a valid int, 1-64"), e.getMessage());
        } finally {
            System.clearProperty("rc.transport.connectionsPerPeer");
            System.clearProperty("rc.distributed.debug");
        }
        if (!TransportSettings.DISTRIBUTED_DEBUG.isSet(System.getenv())) {
            assertFalse(GroupOptions.defaults().diagnostics().checkCollectives());
        }
    }

    private static String refused(Setting<?> setting, Map<String, String> env) {
        return assertThrows(IllegalArgumentException.class, () -> setting.get(env)).getMessage();
    }

    @Test
    void aFlagsErrorSaysTheSettingAndItsValuesOnce() {
        assertEquals("setting RC_AGENT_STORE (environment variable): 'maybe' is not one of 1, true, 0 or false",
                refused(TransportSettings.AGENT_STORE, Map.of("RC_AGENT_STORE", "maybe")));
        assertTrue(TransportSettings.AGENT_STORE.get(Map.of("RC_AGENT_STORE", "TRUE")));
    }

    @Test
    void distributedDebugTakesOffInfoOrDetailInAnyCaseAndRefusesTheRest() {
        for (String level : List.of("off", "INFO", "Detail", "DETAIL")) {
            assertEquals(level.toLowerCase(java.util.Locale.ROOT),
                    TransportSettings.DISTRIBUTED_DEBUG.get(Map.of("RC_DISTRIBUTED_DEBUG", level)));
        }
        for (String bad : List.of("bogus", "DETAILS", "on")) {
            assertEquals("setting rc.distributed.debug (environment variable RC_DISTRIBUTED_DEBUG): '" + bad
                    + "' is not one of OFF / INFO / DETAIL", refused(TransportSettings.DISTRIBUTED_DEBUG,
                    Map.of("RC_DISTRIBUTED_DEBUG", bad)));
        }
        System.setProperty("rc.distributed.debug", "DETAILS");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Diagnostics::defaults);
            assertTrue(e.getMessage().startsWith("setting rc.distributed.debug (system property): 'DETAILS' is not one"
                    + " of OFF / INFO / DETAIL"), e.getMessage());
            System.setProperty("rc.distributed.debug", "detail");
            assertTrue(Diagnostics.defaults().checkCollectives());
            System.setProperty("rc.distributed.debug", "INFO");
            assertFalse(Diagnostics.defaults().checkCollectives());
        } finally {
            System.clearProperty("rc.distributed.debug");
        }
    }

    @Test
    void hostAndStoreBindAreCheckedAsHostsAtStartUp() {
        assertEquals("setting RC_HOST (environment variable): 'bad host' is not a valid host name or IP address: "
                        + "a host name has only letters, digits, '-', '_' and dots (no spaces)",
                refused(TransportSettings.HOST, Map.of("RC_HOST", "bad host")));
        assertEquals("setting RC_STORE_BIND (environment variable): '999.1.1.1' is not a valid host name or IP "
                        + "address: not an IPv4 address (four numbers 0-255 with dots)",
                refused(TransportSettings.STORE_BIND, Map.of("RC_STORE_BIND", "999.1.1.1")));
        assertTrue(refused(TransportSettings.STORE_BIND, Map.of("RC_STORE_BIND", "10.0.0")).contains("not an IPv4"));
        assertTrue(refused(TransportSettings.HOST, Map.of("RC_HOST", "fe80::zz")).contains("not an IPv6 address"));
        assertTrue(refused(TransportSettings.HOST, Map.of("RC_HOST", "-node")).contains("a host name has only"));
        for (String ok : List.of("10.1.2.3", "node-1.cluster.local", "localhost", "::1", "[fe80::1]", "0.0.0.0",
                "worker_0", "h1.")) {
            assertEquals(ok, TransportSettings.HOST.get(Map.of("RC_HOST", ok)));
            assertEquals(ok, TransportSettings.STORE_BIND.get(Map.of("RC_STORE_BIND", ok)));
        }
    }

    @Test
    void everyConstantIsRegistered() throws IllegalAccessException {
        List<Setting<?>> constants = new ArrayList<>();
        for (Field f : TransportSettings.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Setting.class) {
                constants.add((Setting<?>) f.get(null));
            }
        }
        assertEquals(constants.size(), new TransportSettings().settings().size());
        assertTrue(new TransportSettings().settings().containsAll(constants));
        assertEquals(new TransportSettings().settings(), SettingsRegistry.byModule().get("reactive-transport"));
    }
}
