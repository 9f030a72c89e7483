package io.reactivecollectives.transport;

import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flight recorder's automatic dump survives the process ending on the failure that triggered it
 * ({@link TimeoutDumpMain}, in its own JVM): when a collective's timeout leaves {@code main}, the
 * dump is already complete (the error waited for it); when the timeout tears the process down
 * ({@link ErrorHandling#tearDown()}), the exit waits for it; when {@code main} ends while a dump is
 * still queued, the shutdown hook writes it. Either way the directory holds a whole, parseable dump naming
 * the op and sequence number, and no temporary file.
 */
class FlightRecorderExitProcessesTest {

    @TempDir
    Path dir;

    @Test
    void aTimeoutThatLeavesMainLeavesACompleteDump() throws Exception {
        String out = runChild("timeout", 1);
        assertTrue(out.contains("CollectiveTimeoutException: allReduce[seq=1] rank 0: timed out after 300 ms"), out);
        FlightRecorderDump d = onlyDump(FlightRecorder.fileName("exit-timeout", 0), true, out);
        FlightRecorderDump.Entry last = d.entries().get(d.entries().size() - 1);
        assertEquals(1, last.seq());
        assertEquals("allReduce", last.op());
        assertEquals("FAILED", last.state());
        assertTrue(last.error().contains("allReduce[seq=1] rank 0: timed out after 300 ms"), last.error());
        assertEquals("COMPLETED", d.entries().get(0).state());
        assertTrue(d.reason().startsWith("allReduce[seq=1] rank 0: timed out"), d.reason());
    }

    @Test
    void aTimeoutThatTearsTheProcessDownLeavesACompleteDump() throws Exception {
        String out = runChild("teardown", ErrorHandling.EXIT_STATUS);
        assertTrue(out.contains("tearing the process down"), out);
        FlightRecorderDump d = onlyDump(FlightRecorder.fileName("exit-teardown", 0), true, out);
        FlightRecorderDump.Entry last = d.entries().get(d.entries().size() - 1);
        assertEquals(1, last.seq());
        assertEquals("allReduce", last.op());
        assertEquals("FAILED", last.state());
    }

    @Test
    void aDumpStillQueuedWhenMainEndsIsWrittenAtExit() throws Exception {
        String out = runChild("queued", 1);
        assertTrue(out.contains("IllegalStateException: allGather[seq=7] rank 0: gave up"), out);
        FlightRecorderDump d = onlyDump(FlightRecorder.fileName("exit-queued", 0), false, out);
        assertEquals(1, d.entries().size());
        FlightRecorderDump.Entry e = d.entries().get(0);
        assertEquals(7, e.seq());
        assertEquals("allGather", e.op());
        assertEquals("FAILED", e.state());
        assertEquals("allGather[seq=7] rank 0: gave up", d.reason());
    }

    /** Runs the child to its end, which must be {@code status} (1: the exception left main); its output. */
    private String runChild(String mode, int status) throws Exception {
        Path log = dir.resolveSibling(dir.getFileName() + "-" + mode + ".log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), TimeoutDumpMain.class.getName(), dir.toString(), mode)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean ended = p.waitFor(30, TimeUnit.SECONDS);
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(ended, "the child did not exit\n" + out);
            assertEquals(status, p.exitValue(), out);
            return out;
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(log);
        }
    }

    /**
     * The directory holds exactly {@code name}, a dump that parses: in the one job directory of the
     * group ({@code inJob}), or in the directory itself for a recorder of no job. The output says
     * where the dump went.
     */
    private FlightRecorderDump onlyDump(String name, boolean inJob, String out) throws Exception {
        Path where = dir;
        if (inJob) {
            List<Path> jobs;
            try (Stream<Path> s = Files.list(dir)) {
                jobs = s.toList();
            }
            assertEquals(1, jobs.size(), "one job directory\n" + out);
            assertTrue(Files.isDirectory(jobs.get(0)) && jobs.get(0).getFileName().toString().startsWith("flight-recorder-"),
                    jobs + "\n" + out);
            where = jobs.get(0);
        }
        List<String> files;
        try (Stream<Path> s = Files.list(where)) {
            files = s.map(f -> f.getFileName().toString()).sorted().toList();
        }
        assertEquals(List.of(name), files, "the dump directory after exit\n" + out);
        assertTrue(out.contains("flight recorder dump written to " + where.resolve(name))
                || !inJob, "where the dump went\n" + out);
        return FlightRecorder.read(where.resolve(name));
    }
}
