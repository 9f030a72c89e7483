package io.reactivecollectives.tools.modules;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;

/**
 * The project's library modules as this test JVM sees them: every class-path entry (a module's
 * {@code target/classes} in the reactor, or its jar) whose compiled {@code module-info.class} names a
 * module {@code io.reactivecollectives.*}. The tests read the exports from there, so that they and the
 * descriptors cannot drift.
 */
final class LibraryModules {

    /** Every library artifact with a descriptor (reactive-spark stays an automatic module: Spark's jars have no valid names). */
    static final Set<String> EXPECTED = Set.of("io.reactivecollectives.core", "io.reactivecollectives.store",
            "io.reactivecollectives.transport", "io.reactivecollectives.cuda", "io.reactivecollectives.dashboard",
            "io.reactivecollectives.testkit", "io.reactivecollectives.tools");

    private static final String PREFIX = "io.reactivecollectives.";

    /**
     * A library module: its descriptor and where its classes are.
     *
     * @param descriptor the compiled descriptor
     * @param location   its class-path entry (a directory or a jar)
     */
    record Module(ModuleDescriptor descriptor, Path location) {

        /** {@return the packages exported to every module (no {@code to} clause)} */
        Set<String> unqualifiedExports() {
            Set<String> out = new TreeSet<>();
            for (ModuleDescriptor.Exports e : descriptor.exports()) {
                if (!e.isQualified()) {
                    out.add(e.source());
                }
            }
            return out;
        }
    }

    private LibraryModules() {
    }

    /** {@return the test JVM's class-path entries} */
    static List<Path> classPath() {
        List<Path> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                out.add(Path.of(e).toAbsolutePath().normalize());
            }
        }
        return out;
    }

    /** {@return the library modules on the class path, by name} */
    static Map<String, Module> find() {
        Map<String, Module> out = new TreeMap<>();
        for (Path p : classPath()) {
            ModuleDescriptor d = descriptorOf(p);
            if (d != null && d.name().startsWith(PREFIX)) {
                out.put(d.name(), new Module(d, p));
            }
        }
        return out;
    }

    /**
     * The descriptor compiled into a directory or jar, or null when it has none. Read through a
     * {@link ModuleFinder}, so that its packages are all those of the module (javac writes no
     * ModulePackages attribute: the bare class file names only the exported and opened ones).
     */
    static ModuleDescriptor descriptorOf(Path entry) {
        boolean hasDescriptor;
        if (Files.isDirectory(entry)) {
            hasDescriptor = Files.isRegularFile(entry.resolve("module-info.class"));
        } else if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
            try (JarFile jar = new JarFile(entry.toFile())) {
                hasDescriptor = jar.getEntry("module-info.class") != null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            return null;
        }
        if (!hasDescriptor) {
            return null;
        }
        Set<ModuleReference> found = ModuleFinder.of(entry).findAll();
        return found.size() == 1 ? found.iterator().next().descriptor() : null;
    }

    /** {@return the repository's root: the folder above the working directory that holds pom.xml and docs/} */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isRegularFile(p.resolve("docs/library.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no folder above " + Path.of("").toAbsolutePath()
                + " holds pom.xml and docs/library.md");
    }
}
