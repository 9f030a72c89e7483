package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dashboard's settings, and a group asked for one where no provider is on the class path. */
class DashboardOptionsTest {

    @Test
    void theSpellingsOfTheSetting() {
        assertNull(DashboardOptions.parse(null));
        assertNull(DashboardOptions.parse(" off "));
        assertNull(DashboardOptions.parse(""));
        assertEquals(DashboardOptions.loopback(0), DashboardOptions.parse("on"));
        assertEquals(DashboardOptions.loopback(8470), DashboardOptions.parse("8470"));
        assertEquals(new DashboardOptions("0.0.0.0", 9000), DashboardOptions.parse("0.0.0.0:9000"));
        assertEquals(new DashboardOptions("::1", 9000), DashboardOptions.parse("[::1]:9000"));
        assertEquals("[::1]:9000", DashboardOptions.parse("[::1]:9000").spec());
        assertEquals(DashboardOptions.parse("127.0.0.1:5"), DashboardOptions.parse(DashboardOptions.parse("5").spec()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DashboardOptions.parse("nope"));
        assertTrue(e.getMessage().contains("'nope' is not off, on, PORT or HOST:PORT"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DashboardOptions.parse("70000"));
        assertThrows(IllegalArgumentException.class, () -> new DashboardOptions(" ", 1));
    }

    /** The audit: the property's bad value was refused in words of its own, naming both spellings. */
    @Test
    void aBadSettingIsTheRegistrysOneLineError() {
        String saved = System.getProperty("rc.dashboard");
        System.setProperty("rc.dashboard", "nope");
        try {
            assertEquals("setting rc.dashboard (system property): 'nope' is not one of off, on, PORT or HOST:PORT",
                    assertThrows(IllegalArgumentException.class, GroupOptions::defaults).getMessage());
        } finally {
            if (saved == null) {
                System.clearProperty("rc.dashboard");
            } else {
                System.setProperty("rc.dashboard", saved);
            }
        }
    }

    @Test
    void rankZeroBindsThePortTheOthersAnyAndOnlyLoopbackIsOpen() {
        DashboardOptions o = DashboardOptions.loopback(8470);
        assertEquals(8470, o.portOf(0));
        assertEquals(0, o.portOf(3));
        assertTrue(o.loopbackOnly());
        assertTrue(new DashboardOptions("localhost", 1).loopbackOnly());
        assertFalse(new DashboardOptions("0.0.0.0", 1).loopbackOnly());
    }

    @Test
    void theEnvironmentTurnsItOnAndGroupOptionsCarryIt() {
        assertEquals(DashboardOptions.loopback(7000), DashboardOptions.fromEnvironment(Map.of(DashboardOptions.ENV, "7000")));
        assertNull(DashboardOptions.fromEnvironment(Map.of()));
        GroupOptions g = GroupOptions.defaults().withDashboard(DashboardOptions.loopback(1));
        assertEquals(DashboardOptions.loopback(1), g.diagnostics().dashboard());
        assertNull(g.withDashboard(null).diagnostics().dashboard());
        assertEquals(DashboardOptions.loopback(1), g.withWaitReportInterval(Duration.ofSeconds(1)).diagnostics().dashboard(),
                "the other with-methods keep it");
    }

    @Test
    void aGroupAskedForADashboardWithoutAProviderDoesNotStartAndSaysWhatToAdd() {
        // reactive-transport's own tests have no reactive-dashboard on the class path
        GroupOptions o = GroupOptions.defaults().withGroupId("no-dashboard").withDashboard(DashboardOptions.loopback(0));
        Exception e = assertThrows(Exception.class, () -> LocalCluster.start(2, o).block(Duration.ofSeconds(60)));
        assertTrue(String.valueOf(e.getMessage()).contains("no DashboardProvider is on the class path: add "
                + "io.reactivecollectives:reactive-dashboard"), String.valueOf(e));
    }
}
