package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without an SLF4J binding (the child's class path lacks slf4j-simple: SLF4J falls back to its
 * no-operation logger) the essential lines still reach the user, on {@code System.err} with the
 * prefix {@code [reactive-collectives] }: the rendezvous and collective wait reports and where the
 * dump went; and nothing else of the library's logging is printed.
 */
class NoLoggingBindingProcessesTest {

    @TempDir
    Path dir;

    @Test
    void theEssentialsReachStandardErrorWithoutABinding() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("slf4j-simple"))
                .collect(Collectors.joining(File.pathSeparator));
        ChildJvm.Output o = ChildJvm.run(dir.getParent(), List.of(), classPath, SilentWaitsMain.class.getName(), dir.toString());
        String stdout = o.stdout();
        String stderr = o.stderr();
        assertTrue(stdout.contains("TIMEOUT allReduce[seq=0] rank 0: timed out after 2500 ms waiting for rank 1"), stdout);
        assertTrue(stdout.contains("DONE"), stdout);
        String p0 = "[reactive-collectives] group 'no-binding' rank 0: ";
        assertTrue(stderr.contains(p0 + "rendezvous: waiting for rank 1 to join ("), stderr);
        assertTrue(stderr.contains(p0 + "allReduce seq 0 (64 B): waiting for rank 1 for "), stderr);
        assertTrue(stderr.contains(p0 + "flight recorder dump written to " + dir.resolve("flight-recorder-")), stderr);
        // the library's other lines (slf4j-simple would name the logger) stay silent
        List<String> library = stderr.lines().filter(l -> l.contains("io.reactivecollectives")).toList();
        assertEquals(List.of(), library, stderr);
    }
}
