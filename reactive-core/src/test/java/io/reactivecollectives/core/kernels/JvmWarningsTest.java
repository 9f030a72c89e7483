package io.reactivecollectives.core.kernels;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the JVM prints about the library's raw memory and native code, in a child JVM of this one's
 * version ({@code -Djvm=.../bin/java} runs it on another JDK): with
 * {@code --enable-native-access=ALL-UNNAMED} nothing, on every JDK from 17 on; without it, on JDK
 * 22 and later, the one restricted-method warning for the library's module and never a
 * {@code sun.misc.Unsafe} warning (the kernels copy through {@code java.lang.foreign} there).
 */
class JvmWarningsTest {

    private static final int FEATURE = Runtime.version().feature();

    @Test
    void withNativeAccessEnabledTheJvmPrintsNoWarning() throws Exception {
        List<String> out = runChild("--enable-native-access=ALL-UNNAMED");
        assertTrue(out.contains("QUIET CHILD OK"), String.join("\n", out));
        assertEquals(List.of(), warnings(out), "JDK " + FEATURE + ":\n" + String.join("\n", out));
        assertTrue(out.contains("memory: foreign=" + (FEATURE >= 22) + " fastPath=true"), String.join("\n", out));
    }

    @Test
    void withoutTheFlagNoUnsafeWarningOnlyTheRestrictedMethodOne() throws Exception {
        List<String> out = runChild(null);
        assertTrue(out.contains("QUIET CHILD OK"), String.join("\n", out));
        List<String> warnings = warnings(out);
        assertTrue(warnings.stream().noneMatch(w -> w.contains("sun.misc.Unsafe")), String.join("\n", out));
        if (FEATURE >= 22) {
            assertEquals(1, warnings.stream().filter(w -> w.contains("A restricted method in")).count(),
                    String.join("\n", out));
            assertTrue(warnings.stream().anyMatch(w -> w.contains("--enable-native-access=ALL-UNNAMED")), String.join("\n", out));
        } else {
            assertEquals(List.of(), warnings, String.join("\n", out));
        }
    }

    private static List<String> warnings(List<String> out) {
        return out.stream().filter(l -> l.startsWith("WARNING")).collect(Collectors.toList());
    }

    private static List<String> runChild(String flag) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (flag != null) {
            command.add(flag);
        }
        command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), QuietChild.class.getName()));
        Path log = Files.createTempFile("rc-quiet-child", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean exited = p.waitFor(60, TimeUnit.SECONDS);
            String text = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(exited, "the child did not finish:\n" + text);
            assertEquals(0, p.exitValue(), text);
            return text.lines().collect(Collectors.toList());
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}
