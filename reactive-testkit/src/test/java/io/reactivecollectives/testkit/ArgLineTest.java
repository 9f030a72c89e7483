package io.reactivecollectives.testkit;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GuardsExtension#ARG_LINE} is all a test JVM needs: a JVM started with it alone (none of this
 * build's own test options, no Netty property) runs guarded tests, with the leak detector at PARANOID
 * and BlockHound installed, and prints no warning; the example project and the guide give the same line.
 */
class ArgLineTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void aJvmWithTheArgLineAloneRunsGuardedTestsAndPrintsNoWarning() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(GuardsExtension.ARG_LINE.split(" ")));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), GuardedJvmMain.class.getName()));
        File log = File.createTempFile("guarded-jvm", ".log");
        try {
            Process jvm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
            boolean exited = jvm.waitFor(3, TimeUnit.MINUTES);
            if (!exited) {
                jvm.destroyForcibly().waitFor();
            }
            String output = Files.readString(log.toPath(), StandardCharsets.UTF_8);
            assertTrue(exited, "the guarded JVM did not exit within 3 minutes:\n" + output);
            assertEquals(0, jvm.exitValue(), output);
            assertTrue(output.contains("guarded JVM: " + GuardedJvmMain.TESTS + " tests succeeded, 0 failures"), output);
            List<String> warnings = output.lines().filter(l -> l.toLowerCase(Locale.ROOT).contains("warning")).toList();
            assertEquals(List.of(), warnings, "JDK " + Runtime.version() + " printed warnings:\n" + output);
        } finally {
            Files.deleteIfExists(log.toPath());
        }
    }

    @Test
    void theExampleProjectAndTheGuideGiveTheArgLine() throws Exception {
        String pom = Files.readString(ROOT.resolve("examples/consumer/pom.xml"));
        Matcher argLine = Pattern.compile("<argLine>(.*?)</argLine>", Pattern.DOTALL).matcher(pom);
        assertTrue(argLine.find(), "examples/consumer/pom.xml sets Surefire's argLine");
        assertEquals(GuardsExtension.ARG_LINE, argLine.group(1).trim());
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            List<Path> giving = docs.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> read(p).contains(GuardsExtension.ARG_LINE)).toList();
            assertTrue(!giving.isEmpty(), "a guide in docs/ gives " + GuardsExtension.ARG_LINE);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
