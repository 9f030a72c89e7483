package io.reactivecollectives.tools.modules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's module compiled on the module path against the library's descriptors: one that uses the
 * documented API compiles, one that imports an implementation class does not ("not visible", "does
 * not export"). The module path is this test JVM's class path less test classes: the library modules
 * (their {@code target/classes} in the reactor, or jars) and their dependencies.
 */
class ModulePathConsumerTest {

    private static final String DESCRIPTOR = """
            module com.example.modular {
                requires io.reactivecollectives.transport;
            }
            """;

    /** The documented API: LocalCluster, allReduce, ProcessGroups, the TCP store and server, the flight recorder, GroupOptions with TLS and a dashboard. */
    private static final String API_USER = """
            package com.example.modular;

            import io.reactivecollectives.core.DType;
            import io.reactivecollectives.core.OpType;
            import io.reactivecollectives.core.ReduceOp;
            import io.reactivecollectives.core.Tensor;
            import io.reactivecollectives.core.observe.FlightRecorder;
            import io.reactivecollectives.core.observe.FlightRecorderDump;
            import io.reactivecollectives.transport.DashboardOptions;
            import io.reactivecollectives.transport.GroupOptions;
            import io.reactivecollectives.transport.LocalCluster;
            import io.reactivecollectives.transport.ProcessGroups;
            import io.reactivecollectives.transport.MeshProcessGroup;
            import io.reactivecollectives.transport.TlsOptions;
            import io.reactivecollectives.transport.rendezvous.TcpStore;
            import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
            import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
            import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
            import reactor.core.publisher.Mono;

            import java.io.File;
            import java.io.IOException;
import java.io.UncheckedIOException;
            import java.util.List;

            public final class Job {
                private Job() {
                }

                public static void main(String[] args) throws IOException {
                    TlsOptions tls = args.length == 3
                            ? TlsOptions.fromPem(new File(args[0]), new File(args[1]), new File(args[2])) : null;
                    GroupOptions options = GroupOptions.defaults().withGroupId("modular")
                            .withFlightRecorder(FlightRecorder.Config.defaults())
                            .withMeterRegistry(new SimpleMeterRegistry())
                            .withDashboard(DashboardOptions.loopback(0))
                            .withTls(tls);
                    try (LocalCluster cluster = LocalCluster.start(2, options).block()) {
                        List<float[]> sums = cluster.run(g -> Mono.using(() -> Tensor.fromFloats(new float[] {g.rank() + 1}),
                                t -> g.allReduce(t, ReduceOp.SUM).map(Tensor::toFloatArray), Tensor::release)).block();
                        System.out.println("sum " + sums.get(0)[0]);
                    }
                    try (TcpStoreServer server = TcpStoreServer.builder().port(0).start().block();
                         TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port())).block()) {
                        store.set("key", new byte[] {42}).block();
                        System.out.println("store " + store.get("key", java.time.Duration.ofSeconds(5)).block()[0]);
                    }
                    FlightRecorder recorder = new FlightRecorder("modular", 0, 1);
                    recorder.record(1, OpType.ALLREDUCE, DType.FLOAT32, new long[][] {{4}}, new long[][] {{4}}, "ring");
                    FlightRecorderDump dump = FlightRecorder.fromJson(FlightRecorder.toJson(recorder.snapshot("check")));
                    System.out.println("dump " + dump.entries().size());
                    Mono<Integer> fromLauncher = ProcessGroups.run(options, (MeshProcessGroup g) -> Mono.just(g.rank()));
                    System.out.println(fromLauncher != null ? "done" : "?");
                }
            }
            """;

    private static final String INTERNAL_USER = """
            package com.example.modular;

            import io.reactivecollectives.transport.runtime.GroupRuntime;

            public final class Internal {
                private Internal() {
                }

                static String name() {
                    return GroupRuntime.class.getName();
                }
            }
            """;

    /** A module that needs the store alone: reactive-store's descriptor, without the transport. */
    private static final String STORE_ONLY = """
            module com.example.modular {
                requires io.reactivecollectives.store;
            }
            """;

    /** The store's API, as the import lines of code written against reactive-transport had it. */
    private static final String STORE_USER = """
            package com.example.modular;

            import io.reactivecollectives.core.rendezvous.Store;
            import io.reactivecollectives.transport.rendezvous.StoreAuth;
            import io.reactivecollectives.transport.rendezvous.TcpStore;
            import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
            import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
            import io.reactivecollectives.transport.rendezvous.TorchTcpStore;

            import java.time.Duration;
            import java.util.Map;

            public final class StoreJob {
                private StoreJob() {
                }

                public static void main(String[] args) {
                    try (TcpStoreServer server = TcpStoreServer.builder().port(0).start().block();
                         TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port())).block()) {
                        Store plain = store;
                        plain.set("key", new byte[] {7}).block();
                        System.out.println("store " + plain.get("key", Duration.ofSeconds(5)).block()[0]
                                + " " + (StoreAuth.secretFrom(Map.of()) == null) + " " + TorchTcpStore.class.getSimpleName());
                    }
                }
            }
            """;

    /** The wire pieces the store shares with the transport are exported to the transport only. */
    private static final String STORE_WIRE_USER = """
            package com.example.modular;

            import io.reactivecollectives.store.wire.HandshakeMac;

            public final class Wire {
                private Wire() {
                }

                static int length() {
                    return HandshakeMac.nonce(8).length;
                }
            }
            """;

    /** Every other library module: their descriptors resolve on the module path and export what their users name. */
    private static final String EVERY_MODULE = """
            module com.example.modular {
                requires io.reactivecollectives.cuda;
                requires io.reactivecollectives.dashboard;
                requires io.reactivecollectives.testkit;
                requires io.reactivecollectives.tools;
            }
            """;

    private static final String EVERY_MODULE_USER = """
            package com.example.modular;

            import io.reactivecollectives.cuda.Cuda;
            import io.reactivecollectives.dashboard.DashboardServer;
            import io.reactivecollectives.testkit.GuardsExtension;
            import io.reactivecollectives.testkit.LocalClusterExtension;
            import io.reactivecollectives.tools.cli.Cli;
            import io.reactivecollectives.tools.launch.Launcher;
            import io.reactivecollectives.tools.store.TcpStoreServerCommand;
            import org.junit.jupiter.api.extension.ExtendWith;
            import picocli.CommandLine;

            @ExtendWith(GuardsExtension.class)
            public final class Tools {
                private Tools() {
                }

                static String names() {
                    CommandLine cl = Cli.commandLine(new TcpStoreServerCommand(), System.out, System.err);
                    return Cuda.isAvailable() + " " + DashboardServer.class + " " + LocalClusterExtension.class
                            + " " + Launcher.class + " " + GuardsExtension.ARG_LINE + " " + cl.getCommandName();
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void everyLibraryModuleResolvesOnTheModulePath() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(EVERY_MODULE, EVERY_MODULE_USER, "Tools");
        assertTrue(errors.isEmpty(), "errors compiling a module that requires every library module:\n" + describe(errors));
    }

    @Test
    void theStoreCompilesOnTheModulePathWithoutTheTransport() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(STORE_ONLY, STORE_USER, "StoreJob");
        assertTrue(errors.isEmpty(), "errors compiling a module that requires only the store:\n" + describe(errors));
    }

    @Test
    void theStoresWirePiecesAreNotVisibleOutsideTheTransport() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(STORE_ONLY, STORE_WIRE_USER, "Wire");
        String text = describe(errors);
        assertTrue(text.contains("package io.reactivecollectives.store.wire is not visible"), text);
        assertEquals(1, errors.stream().map(Diagnostic::getLineNumber).distinct().count(),
                "only the import fails:\n" + text);
    }

    @Test
    void theDocumentedApiCompilesOnTheModulePath() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(DESCRIPTOR, API_USER, "Job");
        assertTrue(errors.isEmpty(), "errors compiling a module that uses the documented API:\n" + describe(errors));
    }

    @Test
    void anImplementationClassIsNotVisible() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(DESCRIPTOR, INTERNAL_USER, "Internal");
        assertFalse(errors.isEmpty(), "a module compiled against io.reactivecollectives.transport.runtime");
        String text = describe(errors);
        assertTrue(text.contains("package io.reactivecollectives.transport.runtime is not visible"), text);
        assertTrue(text.contains("does not export it"), text);
        assertEquals(1, errors.stream().map(Diagnostic::getLineNumber).distinct().count(),
                "only the import fails:\n" + text);
    }

    /**
     * The same module runs on the module path: a dashboard found as a service (the transport's
     * {@code uses}, the dashboard's {@code provides}), the flight recorder's JSON (core.observe open
     * to Jackson), the store, a 2-rank all-reduce.
     */
    @Test
    void theDocumentedApiRunsOnTheModulePath() throws Exception {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(DESCRIPTOR, API_USER, "Job");
        assertTrue(errors.isEmpty(), describe(errors));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String path = dir.resolve("classes") + File.pathSeparator
                + modulePath().stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=io.reactivecollectives.core,io.reactivecollectives.transport", "--module-path", path,
                "-m", "com.example.modular/com.example.modular.Job")
                .redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        boolean ended = p.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = output.get(10, TimeUnit.SECONDS);
        assertTrue(ended, "the modular job did not end in 90 s:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("sum 3.0"), out);
        assertTrue(out.contains("store 42"), out);
        assertTrue(out.contains("dump 1"), out);
        assertTrue(out.contains("done"), out);
    }

    /** Compiles the module (its descriptor and one class); returns the errors. */
    private List<Diagnostic<? extends JavaFileObject>> compile(String descriptor, String source, String className)
            throws IOException {
        Path src = dir.resolve("src");
        Path pkg = Files.createDirectories(src.resolve("com/example/modular"));
        Files.writeString(src.resolve("module-info.java"), descriptor);
        Files.writeString(pkg.resolve(className + ".java"), source);
        Path out = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            // an empty class path: javac's default is this JVM's class path, an unnamed module with everything
            Path noClasses = Files.createDirectories(dir.resolve("no-classes"));
            List<String> options = List.of("--release", "17", "-d", out.toString(), "-classpath", noClasses.toString(),
                    "--module-path", modulePath().stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjects(
                    src.resolve("module-info.java"), pkg.resolve(className + ".java"));
            javac.getTask(null, files, diagnostics, options, null, units).call();
        }
        List<Diagnostic<? extends JavaFileObject>> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(d);
            }
        }
        return errors;
    }

    /**
     * The test class path less what is only there for tests: test classes (a module's own, and
     * reactive-core's test-jar, which shares packages with reactive-core), entries without a valid
     * module name, and the class-path-only replicated store ({@link #classPathOnly}).
     */
    static List<Path> modulePath() {
        List<Path> out = new ArrayList<>();
        for (Path p : LibraryModules.classPath()) {
            String name = p.getFileName().toString();
            if (name.equals("test-classes") || name.endsWith("-tests.jar") || !Files.exists(p) || classPathOnly(p)) {
                continue;
            }
            try {
                Set<ModuleReference> found = ModuleFinder.of(p).findAll();
                if (found.size() == 1) {
                    out.add(p);
                }
            } catch (FindException e) {
                // no module name can be derived (e.g. a version-like name): not a module
            }
        }
        return out;
    }

    /**
     * The replicated store ({@code reactive-store-raft}, found through {@code ServiceLoader}) and
     * Apache Ratis under it live on the class path only: Ratis's jars split packages, which the
     * module path refuses (library.md says so).
     */
    private static boolean classPathOnly(Path p) {
        String s = p.toString().replace(File.separatorChar, '/');
        return s.contains("/org/apache/ratis/") || s.contains("reactive-store-raft");
    }

    private static String describe(List<Diagnostic<? extends JavaFileObject>> errors) {
        return errors.stream().map(d -> d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
                .collect(Collectors.joining("\n"));
    }
}
