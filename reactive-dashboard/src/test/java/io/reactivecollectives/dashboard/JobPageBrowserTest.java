package io.reactivecollectives.dashboard;

import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The job page in a real browser (headless Chromium; skipped where there is none): the page's files
 * from the class path and a {@link FakeJob} behind {@code /api/job}, served by a small Reactor Netty
 * server of the test's own. Also leaves a screenshot in {@code target/dashboard.png}.
 */
class JobPageBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Counts the canvas's coloured pixels: grid and labels are grey, bars and lines are not. */
    private static String colouredPixels(String canvasId) {
        return "(() => { const c = document.getElementById('" + canvasId + "');"
                + " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;"
                + " for (let i = 0; i < d.length; i += 4) {"
                + "   if (d[i + 3] > 0 && (Math.abs(d[i] - d[i + 1]) > 24 || Math.abs(d[i + 1] - d[i + 2]) > 24)) n++; }"
                + " return n; })()";
    }

    private static String row(int rank) {
        return "document.querySelector('#ranks tr[data-rank=\"" + rank + "\"]')";
    }

    @Test
    void showsTheJobAndNamesTheRankThatIsBehind() throws IOException {
        Optional<String> missing = HeadlessChromium.unavailable();
        assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        FakeJob job = new FakeJob();
        DisposableServer server = serve(job);
        try (HeadlessChromium chromium = HeadlessChromium.start()) {
            chromium.viewport(1280, 900);
            chromium.open("http://127.0.0.1:" + server.port() + "/");
            chromium.waitFor("document.body.dataset.ready === '1'", WAIT);

            // all well: no banner, one row per rank, what each runs and whom it talks to
            assertEquals("true", chromium.evaluate("document.getElementById('straggler-banner').hidden"));
            assertEquals("4", chromium.evaluate("document.querySelectorAll('#ranks tbody tr').length"));
            assertEquals("default", chromium.evaluate("document.getElementById('group').textContent"));
            assertEquals("20261129-0130-ab12", chromium.evaluate("document.getElementById('job').textContent"));
            assertEquals("/api/job/trace", chromium.evaluate("document.getElementById('trace').getAttribute('href')"));
            String rank0 = chromium.evaluate(row(0) + ".textContent");
            assertTrue(rank0.contains("shm×2 tcp×1") && rank0.contains("idle") && rank0.contains("MB/s"), rank0);
            assertEquals("✖ rank 3 dead: connection reset by peer", chromium.evaluate(row(1) + ".querySelector('.dead').textContent"));
            String rank3 = chromium.evaluate(row(3) + ".textContent");
            assertTrue(rank3.contains("unreachable: connection refused"), rank3);
            assertEquals("false", chromium.evaluate(row(3) + ".classList.contains('straggler')"));
            assertTrue(chromium.evaluate("document.getElementById('status').textContent").startsWith("live · updated "));

            // rank 3 falls behind: the banner says so in the server's words, its row stands out
            job.stall();
            chromium.waitFor("!document.getElementById('straggler-banner').hidden", WAIT);
            assertEquals(FakeJob.BANNER, chromium.evaluate("document.getElementById('straggler-banner').textContent"));
            assertEquals("true", chromium.evaluate(row(3) + ".classList.contains('straggler')"));
            assertEquals("1", chromium.evaluate("document.querySelectorAll('#ranks tr.straggler').length"));
            String running = chromium.evaluate(row(0) + ".cells[2].textContent");
            assertTrue(running.startsWith("allReduce #12 (4 B, ring) · ") && running.endsWith("waiting for rank 3"), running);

            // the timeline's bars and the bandwidth's lines (two points at least) are drawn
            chromium.waitFor(colouredPixels("timeline") + " > 500", WAIT);
            chromium.waitFor(colouredPixels("bandwidth") + " > 200", WAIT);
            assertTrue(chromium.evaluate("document.getElementById('timeline-legend').textContent").contains("broadcast"));

            Path shot = Path.of(System.getProperty("rc.build.dir", "target"), "dashboard.png");
            Files.createDirectories(shot.getParent());
            Files.write(shot, chromium.screenshot());
            assertEquals(List.of(), chromium.errors());

            // the server goes away: the page says so, and keeps polling without an error
            server.disposeNow(WAIT);
            chromium.waitFor("document.getElementById('status').classList.contains('lost')", WAIT);
            String status = chromium.evaluate("document.getElementById('status').textContent");
            assertTrue(status.startsWith("connection lost · last update "), status);
            assertEquals(List.of(), chromium.errors());
        } finally {
            server.disposeNow(WAIT);
        }
    }

    /** Serves the page's files (as the dashboard does: {@link StaticPage}, read here on the test thread) and the fake job. */
    private static DisposableServer serve(FakeJob job) {
        Map<String, StaticPage.File> files = StaticPage.files();
        // in a group, so that disposeNow also closes the browser's kept-alive connections
        return HttpServer.create().host("127.0.0.1").port(0)
                .channelGroup(new DefaultChannelGroup(GlobalEventExecutor.INSTANCE))
                .handle((request, response) -> {
                    if (request.path().equals("api/job")) {
                        return response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                                .header(HttpHeaderNames.CACHE_CONTROL, "no-store")
                                .sendString(Mono.fromSupplier(job::next));
                    }
                    StaticPage.File f = files.get("/" + request.path());
                    return f == null ? response.status(HttpResponseStatus.NOT_FOUND).send()
                            : response.header(HttpHeaderNames.CONTENT_TYPE, f.contentType()).sendByteArray(Mono.just(f.bytes()));
                })
                .bindNow(WAIT);
    }
}
