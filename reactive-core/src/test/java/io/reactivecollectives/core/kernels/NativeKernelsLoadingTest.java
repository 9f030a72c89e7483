package io.reactivecollectives.core.kernels;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loading the native kernels: {@link ReduceKernels#load()} is idempotent and thread-safe, and a JVM
 * whose first reduction runs on a non-blocking thread under BlockHound reduces in Java there, never
 * blocks, and has the native kernels once {@link ReduceKernels#loadAsync()} completes. The first-use
 * cases run in child JVMs ({@link FirstReductionChild}), where nothing loaded the kernels before;
 * the library is put in a jar ahead of the class path so that loading copies it out of the jar, as
 * in an application.
 */
class NativeKernelsLoadingTest {

    private static final String RESOURCE = "native/%s/" + NativeReduceKernels.LIBRARY_FILE;

    @TempDir
    Path dir;

    @Test
    void loadIsIdempotentAndThreadSafe() throws Exception {
        int threads = 6;
        CountDownLatch start = new CountDownLatch(1);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<Thread> loaders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    ReduceKernels.load();
                    seen.add(ReduceKernels.implementation());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "loader-" + i);
            t.start();
            loaders.add(t);
        }
        start.countDown();
        for (Thread t : loaders) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!t.isAlive(), t.getName() + " still loading");
        }
        ReduceKernels.load();
        ReduceKernels.loadAsync().block(Duration.ofSeconds(30));
        assertTrue(NativeReduceKernels.loadTried());
        assertEquals(Set.of(ReduceKernels.implementation()), seen, "every loader sees the same kernels");
        assertEquals(library().isPresent(), ReduceKernels.implementation().startsWith("native ("),
                ReduceKernels::implementation);
    }

    @Test
    void aFirstReductionOnAParallelThreadUnderBlockHoundReducesInJavaAndLoadsInTheBackground() throws Exception {
        List<String> out = runChild("nonblocking");
        String during = line(out, "on the parallel thread: ");
        String after = line(out, "after loadAsync: ");
        if (library().isPresent()) {
            assertTrue(line(out, "library resource: ").startsWith("jar:"), () -> String.join("\n", out));
            assertTrue(after.startsWith("native ("), () -> "after loadAsync: " + after + "\n" + out);
        } else {
            assertTrue(after.startsWith("java ("), after);
        }
        assertTrue(during.startsWith("java (") || during.startsWith("native ("), during);
    }

    @Test
    void aFirstReductionOnAThreadThatMayBlockLoadsTheKernelsItself() throws Exception {
        List<String> out = runChild("blocking");
        String implementation = line(out, "implementation: ");
        assertEquals(library().isPresent(), implementation.startsWith("native ("), () -> String.join("\n", out));
    }

    /** The library this build made for this platform, if any. */
    private static Optional<URL> library() {
        return NativeReduceKernels.platform(System.getProperty("os.name"), System.getProperty("os.arch"))
                .map(p -> NativeReduceKernels.class.getResource(String.format(RESOURCE, p)));
    }

    private List<String> runChild(String mode) throws IOException, InterruptedException {
        String classPath = System.getProperty("java.class.path");
        Optional<URL> lib = library();
        if (lib.isPresent()) {
            classPath = libraryJar(lib.get()) + java.io.File.pathSeparator + classPath;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // the flags BlockHound needs to install itself, as this JVM was started with them
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:+AllowRedefinition") || a.startsWith("-XX:+EnableDynamicAgentLoading")
                        || a.startsWith("-Djdk.attach.allowAttachSelf") || a.startsWith("--enable-native-access"))
                .collect(Collectors.toList()));
        command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", classPath, FirstReductionChild.class.getName(), mode));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            List<String> out = Collections.synchronizedList(new ArrayList<>());
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    r.lines().forEach(out::add);
                } catch (IOException ignored) {
                    // the child was killed
                }
            });
            reader.start();
            boolean exited = p.waitFor(90, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(10));
            List<String> lines;
            synchronized (out) {
                lines = List.copyOf(out);
            }
            lines.forEach(l -> System.out.println("[child " + mode + "] " + l));
            assertTrue(exited, () -> "child (" + mode + ") still running after 90 s:\n" + String.join("\n", lines));
            assertEquals(0, p.exitValue(), () -> "child (" + mode + ") failed:\n" + String.join("\n", lines));
            assertTrue(lines.contains("OK"), () -> String.join("\n", lines));
            return lines;
        } finally {
            p.destroyForcibly();
        }
    }

    /** A jar holding only the library, at its resource path, so that loading it copies it out of a jar. */
    private String libraryJar(URL library) throws IOException {
        Path jar = dir.resolve("native-kernels.jar");
        String platform = NativeReduceKernels.platform(System.getProperty("os.name"), System.getProperty("os.arch")).orElseThrow();
        String entry = NativeReduceKernels.class.getPackageName().replace('.', '/') + "/" + String.format(RESOURCE, platform);
        try (OutputStream f = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(f);
             InputStream in = library.openStream()) {
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
        return jar.toString();
    }

    private static String line(List<String> out, String prefix) {
        return out.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> l.substring(prefix.length()))
                .orElseThrow(() -> new AssertionError("no line '" + prefix + "' in\n" + String.join("\n", out)));
    }
}
