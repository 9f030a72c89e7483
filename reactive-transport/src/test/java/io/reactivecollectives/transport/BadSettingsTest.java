package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A setting whose value does not parse fails the group's start at once, naming the setting and
 * the value: before, the settings read by the event loops' static initializer failed on another
 * thread as an ExceptionInInitializerError, which never reached the caller, and the start hung.
 */
class BadSettingsTest {

    @Test
    void aBadValueFailsTheStartNamingTheSetting() {
        for (String[] bad : new String[][] {{"rc.transport.ioThreads", "0"}, {"rc.transport.native", "epoll-please"},
            {"rc.transport.homeLoop", "yes"}, {"rc.transport.spinMicros", "-1"}, {"rc.transport.offloadBytes", "12Q"},
            {"rc.kernels.blockBytes", "abc"}, {"rc.results.threads", "0"}}) {
            String saved = System.getProperty(bad[0]);
            System.setProperty(bad[0], bad[1]);
            try {
                long t0 = System.nanoTime();
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> LocalCluster.start(2).block(Duration.ofSeconds(30)), bad[0]);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(e.getMessage().contains(bad[0]) && e.getMessage().contains(bad[1]), e.getMessage());
                assertTrue(ms < 10_000, bad[0] + ": took " + ms + " ms");
            } finally {
                if (saved == null) {
                    System.clearProperty(bad[0]);
                } else {
                    System.setProperty(bad[0], saved);
                }
            }
        }
    }
    /**
     * The audit: values the type takes but the setting's rule does not. Before, a ring of 5000 bytes
     * failed the start as "shmRingBytes must be a power of two" (no setting named, an onErrorDropped
     * stack trace on an event loop), a quorum of 1e3 as "a quorum is ..." without the setting, and a
     * kernel block of 10 bytes or a hierarchical part of 1000 bytes started, quietly raised to 64
     * bytes and 64 KiB.
     */
    @Test
    void aValueThatBreaksTheSettingsRuleFailsTheStartNamingTheSetting() {
        for (String[] bad : new String[][] {{"rc.transport.shmRingBytes", "5000"}, {"rc.kernels.blockBytes", "10"},
            {"rc.kernels.blockBytes", "0"}, {"rc.group.minQuorum", "1e3"}, {"rc.hierarchical.partBytes", "1000"}}) {
            String saved = System.getProperty(bad[0]);
            System.setProperty(bad[0], bad[1]);
            try {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> LocalCluster.start(2).block(Duration.ofSeconds(30)).close(), bad[0] + "=" + bad[1]);
                assertTrue(e.getMessage().startsWith("setting " + bad[0] + " (system property): '" + bad[1] + "' is not"),
                        e.getMessage());
                assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            } finally {
                if (saved == null) {
                    System.clearProperty(bad[0]);
                } else {
                    System.setProperty(bad[0], saved);
                }
            }
        }
    }
}
