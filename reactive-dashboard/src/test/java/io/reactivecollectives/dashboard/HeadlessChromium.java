package io.reactivecollectives.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A headless Chromium for tests, driven over the Chrome DevTools Protocol ({@link DevTools}): one
 * page, opened at {@code about:blank}, that a test navigates, evaluates JavaScript in and takes
 * screenshots of. The browser runs in a temporary profile that {@link #close()} deletes, with the
 * process and its children.
 *
 * <pre>{@code
 * Optional<String> missing = HeadlessChromium.unavailable();
 * assumeTrue(missing.isEmpty(), () -> missing.get());
 * try (HeadlessChromium chromium = HeadlessChromium.start()) {
 *     chromium.open("http://127.0.0.1:" + port + "/");
 *     chromium.waitFor("document.body.dataset.ready === '1'", Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * Every method waits on the calling thread, for a bounded time, and fails with an
 * {@link IllegalStateException} that says what it waited for.
 */
public final class HeadlessChromium implements AutoCloseable {

    /** The system property that names the browser executable, ahead of the usual places. */
    public static final String PROPERTY = "rc.test.chromium";

    private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final Process process;
    private final Path home;
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private DevTools devTools;
    private String session;

    private HeadlessChromium(Process process, Path home) {
        this.process = process;
        this.home = home;
    }

    /**
     * Where the browser is: the file {@value #PROPERTY} names, else {@code /usr/bin/chromium}, else
     * the first of {@code chromium}, {@code chromium-browser} and {@code google-chrome} on the PATH.
     *
     * @return the executable, or empty when there is none
     */
    public static Optional<Path> find() {
        String named = System.getProperty(PROPERTY);
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
        }
        Path usual = Path.of("/usr/bin/chromium");
        if (Files.isExecutable(usual)) {
            return Optional.of(usual);
        }
        String pathVariable = System.getenv("PATH");
        for (String name : NAMES) {
            for (String dir : pathVariable == null ? new String[0] : pathVariable.split(File.pathSeparator)) {
                Path candidate = dir.isEmpty() ? null : Path.of(dir, name);
                if (candidate != null && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why no browser test can run here, for {@code Assumptions.assumeTrue}: only a missing browser
     * skips a test; one that is there but fails to start fails it ({@link #start()}).
     *
     * @return the reason, or empty when a browser was found
     */
    public static Optional<String> unavailable() {
        if (find().isPresent()) {
            return Optional.empty();
        }
        String named = System.getProperty(PROPERTY);
        if (named != null && !named.isBlank()) {
            return Optional.of("-D" + PROPERTY + "=" + named + " is not an executable file");
        }
        return Optional.of("no Chromium: neither /usr/bin/chromium nor any of " + NAMES
                + " on the PATH (Debian: apt-get install chromium; or -D" + PROPERTY + "=/path/to/chrome)");
    }

    /**
     * Starts the browser found by {@link #find()} headless, in a new temporary profile, and opens a
     * DevTools session on a new blank page.
     *
     * @return the running browser; close it
     * @throws IllegalStateException when there is no browser, or it exits or does not answer in time
     */
    public static HeadlessChromium start() {
        Path executable = find().orElseThrow(() -> new IllegalStateException(unavailable().orElse("no Chromium")));
        Path home;
        Process process;
        try {
            home = Files.createTempDirectory("rc-chromium-");
            Path profile = Files.createDirectory(home.resolve("profile"));
            // no sandbox: CI runs as root, where Chromium refuses to start with one
            process = new ProcessBuilder(executable.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
                    "--remote-debugging-port=0", "--user-data-dir=" + profile, "--no-first-run", "about:blank")
                    .redirectErrorStream(true)
                    .redirectOutput(home.resolve("chromium.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + executable + ": " + e.getMessage(), e);
        }
        HeadlessChromium chromium = new HeadlessChromium(process, home);
        try {
            chromium.connect(executable);
            return chromium;
        } catch (RuntimeException | Error e) {
            chromium.close();
            throw e;
        }
    }

    private void connect(Path executable) {
        Path portFile = home.resolve("profile").resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        List<String> lines = List.of();
        while (lines.size() < 2 || !lines.get(1).trim().matches("/devtools/browser/[0-9a-f-]{36}")) {
            if (!process.isAlive()) {
                throw new IllegalStateException(executable + " exited with status " + process.exitValue()
                        + " before it opened its DevTools port; its output ends with:\n" + logTail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(executable + " did not write " + portFile + " within "
                        + START_TIMEOUT.toSeconds() + " s; its output ends with:\n" + logTail());
            }
            pause(50);
            lines = readLines(portFile);
        }
        URI browser = URI.create("ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim());
        devTools = DevTools.connect(browser, CALL_TIMEOUT);
        String target = devTools.call("Target.createTarget", devTools.params().put("url", "about:blank"), null)
                .path("targetId").asText();
        session = devTools.call("Target.attachToTarget",
                devTools.params().put("targetId", target).put("flatten", true), null).path("sessionId").asText();
        devTools.on("Runtime.exceptionThrown", session, params -> {
            JsonNode details = params.path("exceptionDetails");
            errors.add("exception: " + details.path("exception").path("description").asText(details.path("text").asText()));
        });
        devTools.on("Runtime.consoleAPICalled", session, params -> {
            String type = params.path("type").asText();
            if (type.equals("error") || type.equals("assert")) {
                List<String> args = new ArrayList<>();
                params.path("args").forEach(arg -> args.add(arg.has("value") ? arg.get("value").asText()
                        : arg.path("description").asText(arg.path("type").asText())));
                errors.add("console." + type + ": " + String.join(" ", args));
            }
        });
        devTools.call("Page.enable", null, session);
        devTools.call("Runtime.enable", null, session);
    }

    /**
     * Lays the page out as on a screen of this size, at one device pixel per CSS pixel.
     *
     * @param width  CSS pixels
     * @param height CSS pixels
     */
    public void viewport(int width, int height) {
        devTools.call("Emulation.setDeviceMetricsOverride", devTools.params().put("width", width)
                .put("height", height).put("deviceScaleFactor", 1).put("mobile", false), session);
    }

    /**
     * Navigates the page and waits for its load event.
     *
     * @param url where to go
     * @throws IllegalStateException when the navigation fails or the page does not load in time
     */
    public void open(String url) {
        CompletableFuture<JsonNode> loaded = devTools.next("Page.loadEventFired", session);
        JsonNode navigated = devTools.call("Page.navigate", devTools.params().put("url", url), session);
        if (navigated.hasNonNull("errorText")) {
            loaded.cancel(false);
            throw new IllegalStateException("could not open " + url + ": " + navigated.get("errorText").asText());
        }
        devTools.await(loaded, "the load event of " + url);
    }

    /**
     * Evaluates a JavaScript expression in the page (a promise is awaited).
     *
     * @param jsExpression the expression
     * @return a string result as it is, any other value as JSON ({@code true}, {@code 3},
     *         {@code {"a":1}}), {@code null} for {@code undefined}
     * @throws IllegalStateException when the expression throws
     */
    public String evaluate(String jsExpression) {
        ObjectNode params = devTools.params().put("expression", jsExpression).put("returnByValue", true)
                .put("awaitPromise", true);
        JsonNode reply = devTools.call("Runtime.evaluate", params, session);
        JsonNode thrown = reply.get("exceptionDetails");
        if (thrown != null) {
            throw new IllegalStateException("evaluating " + jsExpression + " threw "
                    + thrown.path("exception").path("description").asText(thrown.path("text").asText()));
        }
        JsonNode result = reply.path("result");
        if (!result.has("value")) {
            return null;
        }
        JsonNode value = result.get("value");
        return value.isTextual() ? value.asText() : value.toString();
    }

    /**
     * Evaluates a boolean expression every 50 ms until it is {@code true}.
     *
     * @param jsBooleanExpression the condition; while it throws, it counts as false
     * @param timeout             how long to wait
     * @throws IllegalStateException when the time is up, naming the expression and its last value
     */
    public void waitFor(String jsBooleanExpression, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last;
        do {
            try {
                last = evaluate(jsBooleanExpression);
                if ("true".equals(last)) {
                    return;
                }
            } catch (IllegalStateException e) {
                last = e.getMessage();
            }
            pause(50);
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting for "
                + jsBooleanExpression + " (last: " + last + ")");
    }

    /**
     * Takes a screenshot of the viewport.
     *
     * @return a PNG image
     */
    public byte[] screenshot() {
        JsonNode shot = devTools.call("Page.captureScreenshot", devTools.params().put("format", "png"), session);
        return Base64.getDecoder().decode(shot.path("data").asText());
    }

    /**
     * The page's JavaScript errors so far: uncaught exceptions and {@code console.error} calls.
     *
     * @return one line each, oldest first
     */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Closes the browser, ends its processes and deletes its profile. */
    @Override
    public void close() {
        if (devTools != null) {
            devTools.close();
        }
        // the tree as it is now: children that outlive their parent are no longer its descendants.
        // Killed outright: nothing of the profile is kept, and on SIGTERM Chromium takes 1.5 s.
        List<ProcessHandle> tree = Stream.concat(Stream.of(process.toHandle()), process.descendants()).toList();
        tree.forEach(ProcessHandle::destroyForcibly);
        allExited(tree, 10);
        delete(home);
    }

    /** Polls: onExit() of a process that is not a child polls too, but backs off to seconds. */
    private static void allExited(List<ProcessHandle> tree, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (tree.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            pause(20);
        }
    }

    private String logTail() {
        List<String> lines = readLines(home.resolve("chromium.log"));
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            return List.of();   // being written: read again
        }
    }

    private static void delete(Path dir) {
        for (int attempt = 0; attempt < 3 && Files.exists(dir); attempt++) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> {
                    try {
                        Files.deleteIfExists(path);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } catch (IOException | UncheckedIOException e) {
                pause(200);   // a child may still be writing into the profile
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
