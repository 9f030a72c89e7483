package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

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
}
