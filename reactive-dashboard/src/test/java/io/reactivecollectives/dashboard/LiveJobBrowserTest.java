package io.reactivecollectives.dashboard;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The job page of a real 4-rank job ({@code LocalCluster}, a dashboard on every rank) in headless
 * Chromium: traffic first, then rank 3 held back while the others wait in an all-reduce; the banner
 * must name rank 3 and the collective within {@link #BANNER_WITHIN}, long before the collective's
 * timeout, and go once rank 3 catches up. Leaves {@code target/dashboard-live.png} (and, with
 * {@code -Drc.dashboard.screenshot=PATH}, a copy there: README's picture).
 */
class LiveJobBrowserTest {

    static final Duration BANNER_WITHIN = Duration.ofMillis(2500);
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void thePageOfARealJobNamesTheRankHeldBack() throws Exception {
        Optional<String> missing = HeadlessChromium.unavailable();
        assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        try (DashboardCluster job = DashboardCluster.start(4); HeadlessChromium chromium = HeadlessChromium.start()) {
            // some traffic first, for the timeline and the bandwidth
            long w0 = System.nanoTime();
            Flux.range(0, 16).concatMap(i -> job.allReduce(i % 4 == 0 ? 1 << 18 : 1024, List.of(0, 1, 2, 3))
                    .delayElement(Duration.ofMillis(25))).then().block(WAIT);
            System.out.println("LiveJobBrowserTest: 16 all-reduces before the page in " + (System.nanoTime() - w0) / 1_000_000 + " ms");
            chromium.viewport(1280, 900);
            chromium.open(job.base(0) + "/");
            chromium.waitFor("document.body.dataset.ready === '1'", WAIT);
            assertEquals("true", chromium.evaluate("document.getElementById('straggler-banner').hidden"));
            assertEquals("4", chromium.evaluate("document.querySelectorAll('#ranks tbody tr').length"));
            long t0 = System.nanoTime();
            Flux.range(0, 10).concatMap(i -> job.allReduce(1 << 14, List.of(0, 1, 2, 3))
                    .delayElement(Duration.ofMillis(100))).then().block(WAIT);
            System.out.println("LiveJobBrowserTest: 10 all-reduces with the page open in " + (System.nanoTime() - t0) / 1_000_000 + " ms");

            long seq = job.cluster.group(0).nextSequence();
            CompletableFuture<?> done = Mono.zip(job.allReduce(4, List.of(0, 1, 2)),
                    Mono.delay(Duration.ofSeconds(6)).then(job.allReduce(4, List.of(3)))).toFuture();
            long held = System.nanoTime();
            chromium.waitFor("!document.getElementById('straggler-banner').hidden", WAIT);
            long seenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - held);
            String banner = chromium.evaluate("document.getElementById('straggler-banner').textContent");
            assertTrue(banner.matches("rank 3 has not started allReduce seq " + String.format(java.util.Locale.ROOT, "%,d", seq)
                    + "; the others waited [0-9.]+ s"), banner);
            assertTrue(seenMs <= BANNER_WITHIN.toMillis(), "the banner came " + seenMs + " ms after rank 3 was held back");
            assertEquals("true", chromium.evaluate("document.querySelector('#ranks tr[data-rank=\"3\"]').classList.contains('straggler')"));
            String waiting = chromium.evaluate("document.querySelector('#ranks tr[data-rank=\"0\"]').textContent");
            assertTrue(waiting.contains("allReduce"), waiting);
            System.out.println("LiveJobBrowserTest: banner '" + banner + "' " + seenMs + " ms after rank 3 was held back");

            byte[] png = chromium.screenshot();
            Path shot = Path.of(System.getProperty("rc.build.dir", "target"), "dashboard-live.png");
            Files.createDirectories(shot.getParent());
            Files.write(shot, png);
            String copy = System.getProperty("rc.dashboard.screenshot");
            if (copy != null && !copy.isBlank()) {
                Files.write(Path.of(copy), png);
            }

            done.get(30, TimeUnit.SECONDS);
            chromium.waitFor("document.getElementById('straggler-banner').hidden", WAIT);
            assertEquals(List.of(), chromium.errors());
        }
    }
}
