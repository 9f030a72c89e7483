package io.reactivecollectives.tools.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's class-data archive: named by JDK and class path, recorded once, then used by every rank. */
class ClassDataArchiveTest {

    /** Prints the archive options its JVM got. */
    public static final class ArchiveProbe {
        public static void main(String[] args) {
            System.out.println("archive options: " + java.lang.management.ManagementFactory.getRuntimeMXBean()
                    .getInputArguments().stream().filter(a -> a.contains("Archive") || a.contains("AOT")).toList());
        }
    }

    private static Path jarOf(Path dir, Class<?> type) throws IOException {
        Path jar = dir.resolve("probe.jar");
        String entry = type.getName().replace('.', '/') + ".class";
        Path classFile = Paths.get(System.getProperty("user.dir"), "target", "test-classes", entry);
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry(entry));
            j.write(Files.readAllBytes(classFile));
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void theNameFollowsTheJdkAndEveryJarAndADirectoryMeansNoArchive(@TempDir Path dir) throws IOException {
        Path jar = jarOf(dir, ArchiveProbe.class);
        Map<String, String> env = Map.of("RC_CLASS_DATA_DIR", dir.resolve("cache").toString());
        Path home = Paths.get(System.getProperty("java.home"));
        Path a = ClassDataArchive.of(jar.toString(), home, "17.0.15+6", 17, env).orElseThrow().file();
        assertEquals(a, ClassDataArchive.of(jar.toString(), home, "17.0.15+6", 17, env).orElseThrow().file());
        assertNotEquals(a, ClassDataArchive.of(jar.toString(), home, "17.0.16+8", 17, env).orElseThrow().file());
        Path aot = ClassDataArchive.of(jar.toString(), home, "25+36", 25, env).orElseThrow().file();
        assertTrue(aot.toString().endsWith(".aot") && a.toString().endsWith(".jsa"), a + " " + aot);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertNotEquals(a, ClassDataArchive.of(jar.toString(), home, "17.0.15+6", 17, env).orElseThrow().file(),
                "a rebuilt jar gets a new archive");
        assertEquals(Optional.empty(), ClassDataArchive.of(jar + java.io.File.pathSeparator + dir, home, "17.0.15+6", 17, env),
                "CDS archives classes from jars only");
    }

    @Test
    void aQuickLaunchOnJdk25UsesAnAotCacheButDoesNotRecordOne(@TempDir Path dir) throws IOException {
        Path jar = jarOf(dir, ArchiveProbe.class);
        Map<String, String> env = Map.of("RC_CLASS_DATA_DIR", dir.resolve("cache").toString());
        Path home = Paths.get(System.getProperty("java.home"));
        var jsa = ClassDataArchive.of(jar.toString(), home, "17.0.15+6", 17, env);
        var aot = ClassDataArchive.of(jar.toString(), home, "25+36", 25, env);
        assertTrue(Launcher.recordable(jsa, JitProfile.QUICK, 17).isPresent(), "a CDS archive holds no profiles");
        assertTrue(Launcher.recordable(aot, JitProfile.FOCUSED, 25).isPresent());
        assertTrue(Launcher.recordable(aot, JitProfile.QUICK, 25).isEmpty(), "not recorded by C1-only ranks");
        Files.createDirectories(aot.orElseThrow().file().getParent());
        Files.write(aot.orElseThrow().file(), new byte[] {1});
        assertTrue(Launcher.recordable(aot, JitProfile.QUICK, 25).isPresent(), "used once recorded by another launch");
    }

    @Test
    void recordedOnLocalRankZeroOnlyThenUsedByAll(@TempDir Path dir) throws IOException {
        Path jar = jarOf(dir, ArchiveProbe.class);
        Map<String, String> env = Map.of("RC_CLASS_DATA_DIR", dir.resolve("cache").toString());
        ClassDataArchive a = ClassDataArchive.of(jar.toString(), Paths.get("/jdk"), "17", 17, env).orElseThrow();
        assertTrue(a.options(0).get(0).startsWith("-XX:ArchiveClassesAtExit="), a.options(0).toString());
        assertEquals(List.of(), a.options(1));
        Path recording = Paths.get(a.options(0).get(0).substring("-XX:ArchiveClassesAtExit=".length()));
        Files.writeString(recording, "archive");
        a.finish(3, List.of());
        assertFalse(Files.exists(recording) || a.exists(), "a failed rank's recording is dropped");
        Files.writeString(recording, "archive");
        a.finish(0, List.of());
        assertTrue(a.exists() && !Files.exists(recording));
        for (int local : new int[] {0, 1}) {
            assertEquals("-XX:SharedArchiveFile=" + a.file(), a.options(local).get(0));
        }
        ClassDataArchive aot = ClassDataArchive.of(jar.toString(), Paths.get("/jdk"), "25", 25, env).orElseThrow();
        assertEquals("-XX:AOTMode=record", aot.options(0).get(0), aot.options(0).toString());
        assertTrue(aot.options(0).get(1).startsWith("-XX:AOTConfiguration="), aot.options(0).toString());
        assertEquals(List.of(), aot.options(1));
        String config = aot.options(0).get(1).substring("-XX:AOTConfiguration=".length());
        assertTrue(aot.isRecordingNotice(" AOTConfiguration recorded: " + config + "\n"));
        assertFalse(aot.isRecordingNotice("AOTConfiguration recorded: /elsewhere.config"));
    }

    @Test
    void aSecondLaunchRunsEveryRankOnTheArchiveTheFirstRecorded(@TempDir Path dir) throws Exception {
        Path jar = jarOf(dir, ArchiveProbe.class);
        Path cache = dir.resolve("cache");
        String first = launch(jar, cache);
        List<Path> archives;
        try (Stream<Path> files = Files.list(cache)) {
            archives = files.toList();
        }
        assertEquals(1, archives.size(), "one archive, no temporary file left: " + archives);
        assertTrue(Files.size(archives.get(0)) > 100_000, "a real archive: " + Files.size(archives.get(0)));
        assertTrue(first.contains("[rank 0] archive options: [-XX:" + (Runtime.version().feature() >= 25 ? "AOTMode=record" : "ArchiveClassesAtExit")),
                first);
        assertTrue(first.contains("[rank 1] archive options: []"), first);
        // nothing of the recording or the archive's creation reaches the output (on JDK 25 HotSpot prints
        // that it recorded the configuration whatever -Xlog says: the launcher drops that line)
        assertEquals(2, first.lines().count(), first);
        String second = launch(jar, cache);
        String use = (Runtime.version().feature() >= 25 ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archives.get(0);
        for (int rank : new int[] {0, 1}) {
            assertTrue(second.contains("[rank " + rank + "] archive options: [" + use + "]"), second);
        }
        assertEquals(2, second.lines().count(), second);
    }

    private static String launch(Path jar, Path cache) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Launcher.class.getName(), "--nproc-per-node", "2",
                "--classpath", jar.toString(), "--library-classpath=", "--", ArchiveProbe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("RC_CLASS_DATA_DIR", cache.toString());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }
}
