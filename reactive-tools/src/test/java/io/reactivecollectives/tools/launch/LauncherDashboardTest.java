package io.reactivecollectives.tools.launch;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.ProcessGroups;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code collectives-run --dashboard}: real rank JVMs, the job's page on the port asked for, naming a rank held back. */
class LauncherDashboardTest {

    /** Four all-reduces; rank 1 holds back 5 s before the third. */
    public static final class HeldBackChild {
        public static void main(String[] args) {
            String out = ProcessGroups.run(g -> Flux.range(0, 4)
                    .concatMap(i -> (g.rank() == 1 && i == 2 ? Mono.delay(Duration.ofSeconds(5)) : Mono.just(0L))
                            .then(Mono.usingWhen(Mono.fromSupplier(() -> Tensor.zeros(DType.FLOAT32, 4).fill(1)),
                                    t -> g.allReduce(t, ReduceOp.SUM).map(r -> r.getDouble(0)),
                                    t -> Mono.fromRunnable(t::release))))
                    .collectList().map(String::valueOf)).block();
            System.out.println("sums " + out);
        }
    }

    /**
     * Says its pid, then all-reduces every 50 ms until the file {@code args[1]} exists (at most
     * {@code args[0]} times). Each all-reduce carries whether this rank saw the file, so that every
     * rank stops after the same one.
     */
    public static final class LoopChild {
        public static void main(String[] args) {
            System.out.println("pid " + ProcessHandle.current().pid());
            System.out.flush();
            int n = Integer.parseInt(args[0]);
            Path stop = Path.of(args[1]);
            // heartbeats that wait 10 s: the test stops rank 1 for a few seconds without the others declaring it dead
            String out = ProcessGroups.run(io.reactivecollectives.transport.GroupOptions.defaults()
                    .withHeartbeat(Duration.ofMillis(500), 20), g -> Flux.range(0, n)
                    .concatMap(i -> Mono.delay(Duration.ofMillis(50))
                            .then(Mono.fromCallable(() -> Files.exists(stop)).subscribeOn(Schedulers.boundedElastic()))
                            .flatMap(seen -> Mono.usingWhen(Mono.fromSupplier(() -> {
                                        Tensor t = Tensor.zeros(DType.FLOAT32, 2).fill(1);
                                        t.setDouble(1, seen ? 1 : 0);
                                        return t;
                                    }),
                                    t -> g.allReduce(t, ReduceOp.SUM).map(r -> r.getDouble(1)),
                                    t -> Mono.fromRunnable(t::release))))
                    .takeUntil(stopped -> stopped > 0)
                    .count().map(c -> c + " all-reduces")).block();
            System.out.println(out);
        }
    }

    /** The job page's banner, "" when there is none. */
    private static String banner(HttpClient http, int port) throws Exception {
        String job = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/job"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(job).path("banner").asText("");
    }

    @Test
    void aStoppedRankIsNamedWhileTheOthersWaitAndTheBannerGoesWhenItResumes() throws Exception {
        int port = FreePorts.one();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path stop = Files.createTempDirectory("rc-dashboard-test").resolve("stop");
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> Launcher.run(new String[] {
                "--nproc-per-node", "3", "--dashboard=" + port, "--", LoopChild.class.getName(), "3000", stop.toString()},
                new PrintStream(out, true), new PrintStream(err, true)));
        try {
            stoppedRankIsNamed(http(), port, out, code);
        } finally {
            Files.writeString(stop, "stop");   // the ranks end together at the next all-reduce
        }
        assertEquals(0, code.get().intValue(), err.toString(StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[rank 0\\] (\\d+) all-reduces").matcher(o);
        assertTrue(m.find(), o);
        for (int r = 1; r < 3; r++) {
            assertTrue(o.contains("[rank " + r + "] " + m.group(1) + " all-reduces"), o);
        }
    }

    private static HttpClient http() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** Stops rank 1 once collectives ran, checks the banner names it within 5 s and goes once it resumes. */
    private static void stoppedRankIsNamed(HttpClient http, int port, ByteArrayOutputStream out,
                                           CompletableFuture<Integer> code) throws Exception {
        // a bound for the whole test on a loaded CI machine (3 rank JVMs start and warm up first); the
        // time that matters, from SIGSTOP to the banner naming the rank, is asserted on its own (5 s)
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        long pid = -1;
        while (pid < 0 && System.nanoTime() < deadline && !code.isDone()) {
            pid = out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("[rank 1] pid "))
                    .mapToLong(l -> Long.parseLong(l.substring("[rank 1] pid ".length()).trim())).findFirst().orElse(-1);
            Thread.sleep(100);
        }
        assertTrue(pid > 0, out.toString(StandardCharsets.UTF_8));
        String seen = "";
        while (System.nanoTime() < deadline && !seen.contains("[0-9]")) {   // until the job's page answers with collectives done
            try {
                seen = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/rank"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
                if (seen.contains("\"finished\":[{")) {
                    break;
                }
            } catch (java.io.IOException e) {
                // not up yet
            }
            Thread.sleep(100);
        }
        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
        long stopped = System.nanoTime();
        String banner = "";
        try {
            while (System.nanoTime() < deadline && !banner.contains("the others wait in")) {
                banner = banner(http, port);
                Thread.sleep(100);
            }
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(pid)).start().waitFor();
        }
        long namedMs = (System.nanoTime() - stopped) / 1_000_000;
        assertTrue(banner.matches("rank 1 (does not answer the dashboard|is gone) \\(.*\\); the others wait in allReduce seq [0-9,]+ for [0-9.]+ s"),
                "banner: " + banner);
        assertTrue(namedMs < 5_000, "named " + namedMs + " ms after SIGSTOP");
        String after = banner;
        while (System.nanoTime() < deadline && !after.isEmpty()) {
            after = banner(http, port);
            Thread.sleep(100);
        }
        assertEquals("", after, "the banner goes once rank 1 resumes");
        System.out.println("LauncherDashboardTest: '" + banner + "' " + namedMs + " ms after SIGSTOP of rank 1");
    }


    @Test
    void rankZeroServesTheJobsPageWhichNamesTheRankHeldBack() throws Exception {
        int port = FreePorts.one();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> Launcher.run(new String[] {
                "--nproc-per-node", "2", "--dashboard=" + port, "--", HeldBackChild.class.getName()},
                new PrintStream(out, true), new PrintStream(err, true)));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String banner = null;
        String page = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && !code.isDone() && (banner == null || !banner.contains("has not started"))) {
            try {
                if (page == null) {
                    HttpResponse<String> p = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    page = p.statusCode() == 200 ? p.body() : null;
                }
                banner = banner(http, port);
            } catch (java.io.IOException e) {
                // not up yet
            }
            Thread.sleep(150);
        }
        assertEquals(0, code.get().intValue(), err.toString(StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        assertTrue(o.contains("collectives-run: the job's dashboard: http://127.0.0.1:" + port + "/ (served by rank 0)"), o);
        assertTrue(o.contains("[rank 0] sums [2.0, 2.0, 2.0, 2.0]") && o.contains("[rank 1] sums [2.0, 2.0, 2.0, 2.0]"), o);
        assertTrue(page != null && page.contains("<html"), "the page: " + page);
        assertTrue(banner != null && banner.matches("rank 1 has not started allReduce seq 2; the others waited [0-9.]+ s"),
                "banner: " + banner);
    }

    @Test
    void aBadValueOrAPortInUseIsOneLineAndExitCode2() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Launcher.run(new String[] {"--nproc-per-node", "2", "--dashboard=nope", "--", HeldBackChild.class.getName()},
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--dashboard nope is not PORT or HOST:PORT"), err.toString());
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ByteArrayOutputStream err2 = new ByteArrayOutputStream();
            int code2 = Launcher.run(new String[] {"--nproc-per-node", "2", "--dashboard=" + taken.getLocalPort(), "--",
                    HeldBackChild.class.getName()}, new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err2, true));
            assertEquals(2, code2);
            assertTrue(err2.toString(StandardCharsets.UTF_8).contains("is in use"), err2.toString());
        }
    }

    @Test
    void aHostOtherThanLoopbackWithoutTheSecretIsOneLineAndExitCode2() {
        org.junit.jupiter.api.Assumptions.assumeFalse(System.getenv("RC_STORE_SECRET") != null, "RC_STORE_SECRET is set here");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Launcher.run(new String[] {"--nproc-per-node", "2", "--dashboard=0.0.0.0:0", "--", HeldBackChild.class.getName()},
                new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(2, code, err.toString());
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("--dashboard 0.0.0.0:0: 0.0.0.0 is not loopback") && e.contains("RC_STORE_SECRET is not set"), e);
        assertEquals(1, e.strip().lines().count(), "one line: " + e);
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("[rank"), "no rank started");
    }

    @Test
    void aBareFlagBeforeTheMainClassTakesTheDefaultPortNotTheClass() {
        Launcher bare = new Launcher();
        new picocli.CommandLine(bare).parseArgs("--nproc-per-node", "2", "--dashboard", HeldBackChild.class.getName(), "x");
        assertEquals("" + io.reactivecollectives.transport.DashboardOptions.DEFAULT_PORT, bare.dashboard);
        assertEquals(HeldBackChild.class.getName(), bare.mainClass);
        Launcher valued = new Launcher();
        new picocli.CommandLine(valued).parseArgs("--dashboard", "127.0.0.1:9000", HeldBackChild.class.getName());
        assertEquals("127.0.0.1:9000", valued.dashboard);
        Launcher port = new Launcher();
        new picocli.CommandLine(port).parseArgs("--dashboard", "9001", HeldBackChild.class.getName());
        assertEquals("9001", port.dashboard);
        Launcher attached = new Launcher();
        new picocli.CommandLine(attached).parseArgs("--dashboard=[::1]:9002", HeldBackChild.class.getName());
        assertEquals("[::1]:9002", attached.dashboard);
        assertEquals(HeldBackChild.class.getName(), attached.mainClass);
    }
}
