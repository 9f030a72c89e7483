package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM (or SIGINT) to collectives-perf stops its rank JVMs too. Before, the launcher's JVM ended
 * without its finally block and the ranks it had started ran on, orphaned, for as long as their
 * benchmark took.
 */
class PerfSignalTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sigtermToTheLauncherStopsItsRanks() throws Exception {
        Process launcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CollectivesPerf.class.getName(), "all_reduce", "--world", "2",
                "-b", "8", "-e", "8", "-n", "5", "-w", "0", "--min-time-ms", "600000", "--settle-time-ms", "0")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        List<ProcessHandle> ranks = List.of();
        try {
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); ranks.size() < 2 && System.nanoTime() < deadline; ) {
                Thread.sleep(200);
                ranks = launcher.toHandle().children().toList();
            }
            assertEquals(2, ranks.size(), "the ranks started");
            Thread.sleep(3000);   // into the timed batches, which run for minutes
            assertTrue(launcher.isAlive(), "the benchmark still runs");
            launcher.destroy();   // SIGTERM
            assertTrue(launcher.waitFor(30, TimeUnit.SECONDS));
            assertEquals(143, launcher.exitValue());
            for (ProcessHandle rank : ranks) {
                rank.onExit().get(10, TimeUnit.SECONDS);   // throws TimeoutException while it runs on
                assertTrue(!rank.isAlive());
            }
        } finally {
            ranks.forEach(ProcessHandle::destroyForcibly);   // orphans, when the launcher left them
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }
}
