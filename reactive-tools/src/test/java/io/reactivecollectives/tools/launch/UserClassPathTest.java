package io.reactivecollectives.tools.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static io.reactivecollectives.tools.launch.LaunchResult.launch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher runs a user's own class path or jar, as torchrun runs a script: a class compiled here
 * into a folder of its own, never on the launcher's class path, runs on 3 ranks; the library is
 * added to it unless it brings reactive-core itself; the launcher's own classes never reach it.
 */
class UserClassPathTest {

    /** Prints its rank, the world, its arguments, and which of the library and the launcher's test classes it sees. */
    private static final String HELLO = """
            package com.example;
            public class Hello {
                public static void main(String[] args) {
                    System.out.println("rank=" + System.getenv("RANK") + " world=" + System.getenv("WORLD_SIZE")
                            + " args=" + String.join(",", args) + " library=" + sees("io.reactivecollectives.core.ProcessGroup")
                            + " launcher=" + sees("io.reactivecollectives.tools.launch.UserClassPathTest"));
                }
                static boolean sees(String name) {
                    try {
                        Class.forName(name, false, Hello.class.getClassLoader());
                        return true;
                    } catch (ClassNotFoundException e) {
                        return false;
                    }
                }
            }
            """;

    /** Compiles {@link #HELLO} into {@code dir/classes}; returns that folder. */
    private static Path compile(Path dir) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/com/example")).resolve("Hello.java");
        Files.writeString(src, HELLO);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), src.toString()), "javac");
        return classes;
    }

    /** A jar of {@code classes}' Hello, with {@code mainClass} in its manifest when not null. */
    private static Path jar(Path classes, Path jar, String mainClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (mainClass != null) {
            manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.putNextEntry(new JarEntry("com/example/Hello.class"));
            j.write(Files.readAllBytes(classes.resolve("com/example/Hello.class")));
            j.closeEntry();
        }
        return jar;
    }

    /** Where reactive-core's classes are (a folder or jar of the launcher's class path). */
    private static String library() throws Exception {
        return Paths.get(io.reactivecollectives.core.ProcessGroup.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }

    private static void assertThreeRanks(LaunchResult r, String args, boolean library) {
        assertEquals(0, r.code(), r.err());
        Set<String> lines = new TreeSet<>(r.out().lines().toList());
        Set<String> expected = new TreeSet<>();
        for (int rank = 0; rank < 3; rank++) {
            expected.add("[rank " + rank + "] rank=" + rank + " world=3 args=" + args + " library=" + library + " launcher=false");
        }
        assertEquals(expected, lines, r.err());
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aClassPathOfTheUsersOwnRunsOnThreeRanksWithTheLibraryAddedAndNothingOfTheLaunchers(@TempDir Path dir) throws Exception {
        Path classes = compile(dir);
        String lib = library();
        assertThreeRanks(launch("--nproc-per-node", "3", "--class-data", "off", "--library-classpath", lib,
                "--classpath", classes.toString(), "--", "com.example.Hello", "a", "--steps", "5"), "a,--steps,5", true);
        // no `--`: everything after the main class is the program's; and no library asked for
        assertThreeRanks(launch("--nproc-per-node", "3", "--class-data", "off", "--library-classpath=",
                "-cp", classes.toString(), "com.example.Hello", "--steps", "5"), "--steps,5", false);
        // a folder's jars (dir/*), as java -cp expands them
        Path libs = Files.createDirectories(dir.resolve("libs"));
        jar(classes, libs.resolve("hello.jar"), null);
        assertThreeRanks(launch("--nproc-per-node", "3", "--class-data", "off", "--library-classpath", lib,
                "--classpath", libs + File.separator + "*", "com.example.Hello"), "", true);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aJarRunsItsManifestsMainClassAndAClassPathThatBringsTheLibraryIsUsedAlone(@TempDir Path dir) throws Exception {
        Path classes = compile(dir);
        Path jar = jar(classes, dir.resolve("my-app.jar"), "com.example.Hello");
        String lib = library();
        assertThreeRanks(launch("--nproc-per-node", "3", "--class-data", "off", "--library-classpath", lib,
                jar.toString(), "x", "--y"), "x,--y", true);
        // the user's class path brings reactive-core (as a fat jar would): the library path (here the
        // launcher's test classes) is not added
        String launcherTests = Paths.get(UserClassPathTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        assertThreeRanks(launch("--nproc-per-node", "3", "--class-data", "off", "--library-classpath", launcherTests,
                "--classpath", classes + File.pathSeparator + lib, "com.example.Hello"), "", true);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aMissingJarMainClassOrClassIsOneLineAndExitCode2WithNothingLaunched(@TempDir Path dir) throws Exception {
        Path classes = compile(dir);
        Path noMain = jar(classes, dir.resolve("no-main.jar"), null);
        assertOneLine(launch("--nproc-per-node", "3", noMain.toString()), "collectives-run: " + noMain
                + " names no Main-Class in its manifest; name the main class: collectives-run [options] --classpath "
                + noMain + " -- <main class> [args] (see --help)");
        assertOneLine(launch("--nproc-per-node", "3", dir.resolve("nope.jar").toString()), "collectives-run: no jar "
                + dir.resolve("nope.jar") + " (the program to run: a main class or a jar) (see --help)");
        assertOneLine(launch("--nproc-per-node", "3", "--classpath", classes.toString(), "com.example.Nope"),
                "collectives-run: no main class com.example.Nope in --classpath " + classes + " (see --help)");
        // a class of the launcher's own class path is not on the user's
        assertOneLine(launch("--nproc-per-node", "3", "--library-classpath=", "--classpath", classes.toString(),
                LauncherTest.EnvChild.class.getName()), "collectives-run: no main class "
                + LauncherTest.EnvChild.class.getName() + " in --classpath " + classes + " (see --help)");
    }

    private static void assertOneLine(LaunchResult r, String line) {
        assertEquals(2, r.code(), r.err());
        assertEquals(List.of(line), r.err().lines().toList());
        assertFalse(r.out().contains("[rank") || r.err().contains("[rank"), r.out() + r.err());
    }

    /** A jar holding only an SLF4J provider's service file. */
    private static Path binding(Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry(ChildClassPath.SLF4J_PROVIDER));
            j.write("org.example.Provider\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void theLibrarysLoggingBindingIsLeftOutWhenTheUsersClassPathBringsOne(@TempDir Path dir) throws Exception {
        Path classes = compile(dir);
        String lib = library();
        String simple = binding(dir.resolve("slf4j-simple.jar")).toString();
        String library = lib + File.pathSeparator + simple;
        String sep = File.pathSeparator;
        assertEquals(new ChildClassPath(classes + sep + lib + sep + simple, "com.example.Hello", true),
                ChildClassPath.resolve("com.example.Hello", classes.toString(), library, "launcher.jar"));
        String own = binding(dir.resolve("logback.jar")).toString();
        assertEquals(new ChildClassPath(classes + sep + own + sep + lib, "com.example.Hello", true),
                ChildClassPath.resolve("com.example.Hello", classes + sep + own, library, "launcher.jar"));
        assertEquals(new ChildClassPath("launcher.jar", "com.example.Hello", false),
                ChildClassPath.resolve("com.example.Hello", null, library, "launcher.jar"));
    }

    @Test
    void classPathWildcardsExpandToAFoldersJarsAsJavaDoes(@TempDir Path dir) throws Exception {
        Path libs = Files.createDirectories(dir.resolve("libs"));
        Files.writeString(libs.resolve("b.jar"), "");
        Files.writeString(libs.resolve("a.JAR"), "");
        Files.writeString(libs.resolve("notes.txt"), "");
        String prefix = libs + File.separator;
        assertEquals(List.of("x.jar", prefix + "a.JAR", prefix + "b.jar", "y"),
                ChildClassPath.expand("x.jar" + File.pathSeparator + prefix + "*" + File.pathSeparator + File.pathSeparator + "y"));
        assertTrue(ChildClassPath.expand(dir.resolve("none") + File.separator + "*").isEmpty());
    }
}
