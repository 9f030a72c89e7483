package io.reactivecollectives.tools.launch;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGINT or SIGTERM to collectives-run stops every rank the way a failed rank's peers are stopped:
 * SIGTERM first, so that their shutdown hooks run (shared-memory files, dumps), SIGKILL after
 * --grace-ms; the launcher exits 130 or 143 and blames no rank.
 */
class LauncherSignalTest {

    /** A rank that says it runs, and on SIGTERM writes {@code <dir>/stopped-<rank>} from its shutdown hook. */
    public static final class HookedChild {
        public static void main(String[] args) throws Exception {
            Path marker = Path.of(args[0], "stopped-" + System.getenv("RANK"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Files.writeString(marker, "hook ran");
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }));
            System.out.println("running");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }

    /**
     * Before, the launcher's shutdown hook killed the ranks with SIGKILL at once (their hooks never ran)
     * and its main thread then reported {@code rank 0 exited with code 137 (SIGKILL); stopping the other
     * ranks}, as if rank 0 had failed.
     */
    @ParameterizedTest
    @CsvSource({"INT, 130", "TERM, 143"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aSignalToTheLauncherStopsEveryRankWithSigtermAndBlamesNone(String signal, int code, @TempDir Path tmp) throws Exception {
        Process launcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--nproc-per-node", "2", "--class-data", "off", "--jit", "default", "--grace-ms", "10000", "--",
                HookedChild.class.getName(), tmp.toString()).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8));
            for (int running = 0; running < 2; ) {
                String line = out.readLine();
                assertTrue(line != null, "the launcher ended early: " + lines);
                lines.add(line);
                running += line.endsWith("] running") ? 1 : 0;
            }
            List<ProcessHandle> ranks = launcher.toHandle().children().toList();
            assertEquals(2, ranks.size(), ranks.toString());
            assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(launcher.pid())).start().waitFor());
            assertTrue(launcher.waitFor(30, TimeUnit.SECONDS), "the launcher did not end");
            out.lines().forEach(lines::add);
            assertEquals(code, launcher.exitValue(), String.join("\n", lines));
            assertTrue(lines.contains("collectives-run: stopped by a signal; stopping the ranks (SIGTERM, SIGKILL after 10000 ms)"),
                    String.join("\n", lines));
            assertFalse(lines.stream().anyMatch(l -> l.contains("exited with code")), String.join("\n", lines));
            assertEquals("hook ran", Files.readString(tmp.resolve("stopped-0")), "rank 0 got SIGTERM, not SIGKILL");
            assertEquals("hook ran", Files.readString(tmp.resolve("stopped-1")), "rank 1 got SIGTERM, not SIGKILL");
            assertTrue(ranks.stream().noneMatch(ProcessHandle::isAlive), "no rank left running");
        } finally {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }
}
