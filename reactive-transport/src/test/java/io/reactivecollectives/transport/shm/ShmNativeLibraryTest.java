package io.reactivecollectives.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shared memory's JNI library, {@code librc_shm.so}: where the build made it (Linux with a C
 * compiler) it loads from this module's classes and has the futex and placement entry points; where
 * it is missing, nothing throws, each user says why, shared memory gives that as its reason and the
 * pollers are not bound (a child JVM whose class path has this module's classes without the library).
 */
class ShmNativeLibraryTest {

    private static final String PLATFORM_DIR = "native/linux-" + ("aarch64".equals(System.getProperty("os.arch"))
            ? "aarch64" : "x86_64") + "/";

    @TempDir
    Path dir;

    @Test
    void theLibraryThisBuildMadeLoadsWithBothGroupsOfEntryPoints() {
        assumeTrue(library().isPresent(), "this build made no " + ShmNativeLibrary.LIBRARY_FILE
                + " (no C compiler, another OS, or -Drc.native.skip=true)");
        assertEquals(null, ShmNativeLibrary.SHARED.load());
        assertTrue(NativeWaits.isAvailable(), NativeWaits::unavailableReason);
        assertEquals("", NativeWaits.unavailableReason());
        assertTrue(NativeAffinity.isAvailable(), NativeAffinity::unavailableReason);
        assertEquals("", NativeAffinity.unavailableReason());
        assertTrue(NativeAffinity.allowedCpus().length >= 1);
    }

    @Test
    void aMissingLibraryIsAReasonNotAnError() {
        ShmNativeLibrary absent = new ShmNativeLibrary("librc_absent.so");
        assertFalse(absent.has(() -> {
            throw new AssertionError("no probe without a library");
        }));
        String why = absent.reasonWithout("the futex entry points");
        assertTrue(why.contains("librc_absent.so") || why.startsWith("no native library is built for"), why);
        assertEquals(why, absent.load(), "tried once, the same answer");
    }

    @Test
    void withoutTheLibrarySharedMemoryFallsBackAndPollersStayUnbound() throws Exception {
        assumeTrue(library().isPresent(), "this build made no " + ShmNativeLibrary.LIBRARY_FILE + " to leave out");
        Path classes = Path.of(ShmNativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assumeTrue(Files.isDirectory(classes), "the module's classes are a folder: " + classes);
        Path copy = dir.resolve("classes");
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = copy.resolve(classes.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else if (!f.getFileName().toString().endsWith(".so")) {
                    Files.copy(f, to);
                }
            }
        }
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(e -> Path.of(e).toAbsolutePath().equals(classes.toAbsolutePath()) ? copy.toString() : e)
                .collect(Collectors.joining(File.pathSeparator));
        assertTrue(classPath.contains(copy.toString()), classPath);
        List<String> out = runChild(classPath);
        assertEquals("waits: false", out.get(0), out::toString);
        assertTrue(out.get(1).startsWith("waits reason: this build has no linux-")
                && out.get(1).contains("librc_shm.so (it was built without a C compiler, or with -Drc.native.skip=true)"),
                out::toString);
        assertEquals("affinity: false", out.get(2), out::toString);
        assertEquals("poller cpu: " + PollerPlacement.NONE, out.get(3), out::toString);
        assertEquals("shm: the native library for futex waits is not in use (" + out.get(1).substring("waits reason: ".length())
                + ")", out.get(4), out::toString);
    }

    private List<String> runChild(String classPath) throws Exception {
        Path out = dir.resolve("child.out");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, Child.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child did not exit");
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), lines::toString);
            return lines.stream().filter(l -> l.matches("^(waits|affinity|poller|shm).*")).collect(Collectors.toList());
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Optional<URL> library() {
        return Optional.ofNullable(ShmNativeLibrary.class.getResource(PLATFORM_DIR + ShmNativeLibrary.LIBRARY_FILE));
    }

    /** A JVM without the library: prints what each user of it says. */
    static final class Child {

        private Child() {
        }

        public static void main(String[] args) {
            System.out.println("waits: " + NativeWaits.isAvailable());
            System.out.println("waits reason: " + NativeWaits.unavailableReason());
            System.out.println("affinity: " + NativeAffinity.isAvailable());
            System.out.println("poller cpu: " + PollerPlacement.cpuFor(0));
            String shm = ShmSettings.fromSystemProperties().unavailableReason();
            assertNotNull(shm);
            System.out.println("shm: " + shm);
        }
    }
}
