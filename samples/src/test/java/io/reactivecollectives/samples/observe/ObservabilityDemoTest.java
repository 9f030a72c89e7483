package io.reactivecollectives.samples.observe;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObservabilityDemoTest {

    @TempDir
    Path dir;

    @Test
    void printsTheMetersAndNamesTheLateRank() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new ObservabilityDemo(out)).execute("--world", "3", "--iterations", "4",
                "--elements", "1024", "--dump-dir", dir.toString());
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        assertTrue(text.contains("rc.collective(TIMER)[algorithm='recursive_doubling', dtype='float32', group='demo', "
                + "op='allReduce', outcome='success', rank='0']; count=4.0"), text);
        assertTrue(text.contains("rc.bytes.sent(COUNTER)[group='demo', rank='0']"), text);
        assertTrue(text.contains("rc.collectives.inflight(GAUGE)[group='demo', rank='2']; value=0.0"), text);
        assertTrue(text.contains("rank 0: allReduce[seq=5] rank 0: timed out after 1000 ms"), text);
        assertTrue(text.contains("[demo] rank 2 never started allReduce seq 5; ranks 0, 1 are waiting for it"), text);
        // the run's dumps are in its job directory under the dump directory
        String job = text.lines().filter(l -> l.startsWith("== flight recorder analysis of ")).findFirst().orElseThrow()
                .replace("== flight recorder analysis of ", "").replace(" ==", "");
        assertTrue(job.startsWith(dir.resolve("flight-recorder-").toString()), job);
        assertTrue(Files.exists(Path.of(job).resolve("flight-recorder-demo-rank2.json")), job);
    }

    @Test
    void loggingRegistryWritesTheMetersAndNoStallSkipsTheAnalysis() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new ObservabilityDemo(out)).execute("--world", "2", "--iterations", "2",
                "--elements", "256", "--registry", "logging", "--no-stall", "--dump-dir", dir.toString());
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        assertTrue(text.contains("rc.collective{algorithm=recursive_doubling,dtype=float32,group=demo,op=allReduce,"
                + "outcome=success,rank=1}"), text);
        assertTrue(text.contains("rc.bytes.sent{group=demo,rank=0}"), text);
        assertTrue(!text.contains("flight recorder analysis"), text);
    }
}
