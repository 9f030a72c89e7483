package io.reactivecollectives.tools.launch;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What the ranks run: their class path and main class, from the launcher's {@code MAIN_CLASS}
 * parameter (a class name, or a jar whose manifest names its {@code Main-Class}), its
 * {@code --classpath} and its {@code --library-classpath}.
 *
 * <ul>
 *   <li>A class name alone: the ranks get the launcher's own class path (under
 *       {@code bin/collectives-run}, the samples and the library).</li>
 *   <li>A class path or jar of the user's own: the ranks get it, never the launcher's, with
 *       {@code dir/*} entries expanded to the folder's jars as {@code java -cp} does. The library
 *       (reactive-core, reactive-transport and their run-time dependencies) is added after it, unless
 *       it already brings reactive-core (a fat jar, or the library's jars among its own): then it is
 *       used alone, so that a fat jar's own copy of the library is the only one. An SLF4J binding
 *       among the library's entries ({@code bin/collectives-run} adds slf4j-simple, so that the
 *       library's log lines show) is left out when the user's class path brings its own.</li>
 * </ul>
 *
 * @param classPath the ranks' class path
 * @param mainClass the ranks' main class
 * @param own       whether the class path is the user's (with the library added, when it lacked it)
 */
record ChildClassPath(String classPath, String mainClass, boolean own) {

    /** A class of reactive-core, by which a class path is known to bring the library. */
    static final String LIBRARY_MARKER = "io.reactivecollectives.core.ProcessGroup";

    /** The service file of an SLF4J 2 logging binding, by which a class path is known to bring one. */
    static final String SLF4J_PROVIDER = "META-INF/services/org.slf4j.spi.SLF4JServiceProvider";

    /**
     * Resolves what the ranks run.
     *
     * @param mainOrJar   a main class, or a path ending in {@code .jar}
     * @param userCp      the user's {@code --classpath}, or null
     * @param libraryCp   the library's class path, added to a user's class path that lacks it
     * @param launcherCp  the launcher's own class path, the ranks' when the user gives none
     * @throws IllegalArgumentException with a one-line message when the jar, its {@code Main-Class},
     *                                  or the main class on the user's class path is missing
     */
    static ChildClassPath resolve(String mainOrJar, String userCp, String libraryCp, String launcherCp) {
        boolean jar = mainOrJar.toLowerCase(Locale.ROOT).endsWith(".jar");
        if (!jar && userCp == null) {
            return new ChildClassPath(launcherCp, mainOrJar, false);
        }
        List<String> own = new ArrayList<>();
        String mainClass = mainOrJar;
        if (jar) {
            mainClass = manifestMainClass(mainOrJar);
            own.add(mainOrJar);
        }
        if (userCp != null) {
            own.addAll(expand(userCp));
        }
        Set<String> entries = new LinkedHashSet<>(own);
        if (!holds(own, LIBRARY_MARKER)) {
            boolean ownLogging = holds(own, SLF4J_PROVIDER);
            for (String entry : expand(libraryCp)) {
                if (!(ownLogging && holds(List.of(entry), SLF4J_PROVIDER))) {
                    entries.add(entry);
                }
            }
        }
        if (!holds(new ArrayList<>(entries), mainClass)) {
            throw new IllegalArgumentException("no main class " + mainClass + " in "
                    + (jar ? mainOrJar + (userCp != null ? " or " : "") : "") + (userCp != null ? "--classpath " + userCp : ""));
        }
        return new ChildClassPath(String.join(File.pathSeparator, entries), mainClass, true);
    }

    /**
     * The entries of {@code classPath}, with {@code dir/*} (or {@code *}) expanded to the folder's
     * {@code .jar} files, sorted by name, as {@code java -cp} expands it; empty entries dropped.
     */
    static List<String> expand(String classPath) {
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            if (!entry.equals("*") && !entry.endsWith(File.separator + "*")) {
                entries.add(entry);
                continue;
            }
            Path dir = Paths.get(entry.substring(0, entry.length() - 1).isEmpty() ? "." : entry.substring(0, entry.length() - 1));
            List<String> jars = new ArrayList<>();
            if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                    for (Path f : files) {
                        if (f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar")) {
                            jars.add(entry.substring(0, entry.length() - 1) + f.getFileName());
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            jars.sort(null);
            entries.addAll(jars);
        }
        return entries;
    }

    /** The {@code Main-Class} of {@code jar}'s manifest. */
    private static String manifestMainClass(String jar) {
        if (!Files.isRegularFile(Paths.get(jar))) {
            throw new IllegalArgumentException("no jar " + jar + " (the program to run: a main class or a jar)");
        }
        try (JarFile file = new JarFile(jar)) {
            Manifest manifest = file.getManifest();
            String main = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            if (main == null || main.isBlank()) {
                throw new IllegalArgumentException(jar + " names no Main-Class in its manifest; name the main class:"
                        + " collectives-run [options] --classpath " + jar + " -- <main class> [args]");
            }
            return main.trim();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read jar " + jar + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether {@code entries} (with their manifests' {@code Class-Path}) hold class {@code name}, or
     * the resource {@code name} when it has a {@code /}.
     */
    static boolean holds(List<String> entries, String name) {
        try (URLClassLoader loader = new URLClassLoader(urls(entries), null)) {
            return loader.findResource(name.contains("/") ? name : name.replace('.', '/') + ".class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The URLs of class path entries. */
    static URL[] urls(List<String> entries) {
        List<URL> urls = new ArrayList<>();
        for (String entry : entries) {
            try {
                urls.add(new File(entry).toURI().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("class path entry " + entry + ": " + e.getMessage(), e);
            }
        }
        return urls.toArray(new URL[0]);
    }
}
