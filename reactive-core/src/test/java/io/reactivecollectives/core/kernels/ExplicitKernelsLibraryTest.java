package io.reactivecollectives.core.kernels;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The audit: {@code -Drc.kernels.native.library=<a file that does not load>} left the Java kernels
 * doing the work with only a debug line, so a user who named a library never learnt it was not
 * used. A fresh JVM (the kernels load once per JVM) now warns, naming the setting, the file and why.
 */
class ExplicitKernelsLibraryTest {

    /** The child: loads the kernels, prints the implementation in use. */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) {
            ReduceKernels.load();
            System.out.println("implementation: " + ReduceKernels.implementation());
        }
    }

    @Test
    void aNamedLibraryThatDoesNotLoadIsWarnedAbout() throws IOException, InterruptedException {
        Path missing = Path.of("/nonexistent-rc-dir/librc_reduce_kernels.so");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-Drc.kernels.native.library=" + missing, "-cp", System.getProperty("java.class.path"), Child.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        List<String> warnings = out.lines().filter(l -> l.contains("rc.kernels.native.library=" + missing)).toList();
        assertEquals(1, warnings.size(), out);
        assertTrue(warnings.get(0).contains("native reduction kernels not in use, the Java kernels do the work: "
                + "the library could not be loaded"), warnings.get(0));
        assertTrue(out.contains("implementation: java"), out);
    }
}
