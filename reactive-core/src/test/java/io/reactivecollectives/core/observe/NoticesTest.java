package io.reactivecollectives.core.observe;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When notices go to {@code System.err} (SLF4J without a provider, not slf4j-nop chosen on purpose),
 * and the words of the wait reports. The whole path without a binding runs in a child JVM in the
 * transport's {@code NoLoggingBindingProcessesTest}.
 */
class NoticesTest {

    @Test
    void onlySlf4jsFallbackSendsNoticesToStandardError() {
        assertTrue(Notices.noProvider(new NOPLoggerFactory(), false));
        assertFalse(Notices.noProvider(new NOPLoggerFactory(), true), "slf4j-nop chosen on purpose is respected");
        assertFalse(Notices.noProvider(LoggerFactory.getILoggerFactory(), false), "the tests' slf4j-simple");
        assertFalse(Notices.toStandardError());
    }

    @Test
    void intervalsAreReadInSecondsOrWithAUnitAndZeroOrOffTurnsThemOff() {
        assertEquals(Duration.ofSeconds(5), WaitReports.parse("5"));
        assertEquals(Duration.ofMillis(500), WaitReports.parse("0.5"));
        assertEquals(Duration.ofMillis(1500), WaitReports.parse("1500ms"));
        assertEquals(Duration.ofSeconds(2), WaitReports.parse(" 2s "));
        assertEquals(Duration.ZERO, WaitReports.parse("off"));
        assertEquals(Duration.ZERO, WaitReports.parse("0"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WaitReports.parse("soon"));
        assertTrue(e.getMessage().startsWith("setting rc.wait-reports.interval: 'soon' is not a valid duration"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> WaitReports.parse("-1"));
    }

    @Test
    void theDefaultIntervalIsTheProperty() {
        String saved = System.getProperty(WaitReports.PROPERTY);
        try {
            System.clearProperty(WaitReports.PROPERTY);
            if (System.getenv(WaitReports.ENV) == null) {
                assertEquals(Duration.ofSeconds(5), WaitReports.defaultInterval());
            }
            System.setProperty(WaitReports.PROPERTY, "250ms");
            assertEquals(Duration.ofMillis(250), WaitReports.defaultInterval());
        } finally {
            if (saved == null) {
                System.clearProperty(WaitReports.PROPERTY);
            } else {
                System.setProperty(WaitReports.PROPERTY, saved);
            }
        }
    }

    @Test
    void reportsNameRanksSizesAndDurationsShortly() {
        assertEquals("rank 3", WaitReports.ranks(List.of(3)));
        assertEquals("ranks 2, 3", WaitReports.ranks(List.of(2, 3)));
        assertEquals("ranks 0, 4-9, 11", WaitReports.ranks(List.of(0, 4, 5, 6, 7, 8, 9, 11)));
        assertEquals("4 MiB", WaitReports.bytes(4L << 20));
        assertEquals("1.5 KiB", WaitReports.bytes(1536));
        assertEquals("64 B", WaitReports.bytes(64));
        assertEquals("850 ms", WaitReports.duration(850_000_000L));
        assertEquals("15 s", WaitReports.duration(15_200_000_000L));
        assertEquals("4 min 45 s", WaitReports.duration(285_000_000_000L));
    }

    @Test
    void aReportRunsEveryIntervalUntilDisposedAndAFailingOneDoesNotStopIt() throws Exception {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        reactor.core.Disposable d = WaitReports.every(Duration.ofMillis(50), () -> {
            runs.incrementAndGet();
            throw new IllegalStateException("a report that fails");
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (runs.get() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        d.dispose();
        int after = runs.get();
        assertTrue(after >= 3, "ran " + after);
        Thread.sleep(200);
        assertTrue(runs.get() <= after + 1, "stopped once disposed");
        assertTrue(WaitReports.every(Duration.ZERO, runs::incrementAndGet).isDisposed(), "zero: no reports");
    }
}
