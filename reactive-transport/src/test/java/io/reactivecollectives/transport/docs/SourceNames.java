package io.reactivecollectives.transport.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The names the project's own files use, as {@link SettingsReferenceTest} compares them with
 * {@code docs/settings.md}: string literals of the main Java sources (comments skipped), variables
 * the shell scripts read ({@code $NAME}, {@code ${NAME...}}) and the properties the poms define.
 */
final class SourceNames {

    private static final Pattern SCRIPT_READ = Pattern.compile("\\$\\{?([A-Z][A-Z0-9_]*)");
    private static final Pattern POM_PROPERTY = Pattern.compile("<(rc\\.[A-Za-z0-9_.-]+)>");

    private SourceNames() {
    }

    /** The repository root: the first folder up from the working directory with a pom and {@code docs/settings.md}. */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isRegularFile(p.resolve("docs/settings.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no folder above " + Path.of("").toAbsolutePath()
                + " holds pom.xml and docs/settings.md");
    }

    /** Every {@code .java} file under some module's {@code src/main/java}, build folders and hidden ones skipped. */
    static List<Path> mainJavaSources(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> files = io.reactivecollectives.transport.ProjectTree.files(root)) {
            files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> root.relativize(p).toString().replace('\\', '/').matches("(?:.+/)?src/main/java/.+"))
                    .filter(p -> !skipped(root, p))
                    .forEach(out::add);
        }
        return out;
    }

    /** Files under a build folder ({@code target*}), a hidden folder or the peers' checkout are not the project's sources. */
    private static boolean skipped(Path root, Path file) {
        for (Path part : root.relativize(file)) {
            String name = part.toString();
            if (name.startsWith("target") || name.startsWith(".") || name.equals("node_modules")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A string literal's content, and whether a {@code +} follows it (the start of a name built
     * from a prefix).
     */
    record Literal(String text, boolean concatenated) {
    }

    /** Every string literal's content in {@code source}, outside comments, char literals and text blocks. */
    static List<String> stringLiterals(String source) {
        return literals(source).stream().map(Literal::text).toList();
    }

    /** {@link #stringLiterals}, each with whether a {@code +} follows it. */
    static List<Literal> literals(String source) {
        List<Literal> out = new ArrayList<>();
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                i = source.indexOf('\n', i);
                i = i < 0 ? n : i;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
            } else if (c == '\'') {
                i = skipQuoted(source, i, '\'');
            } else if (c == '"') {
                int end = skipQuoted(source, i, '"');
                int next = end;
                while (next < n && Character.isWhitespace(source.charAt(next))) {
                    next++;
                }
                out.add(new Literal(source.substring(i + 1, Math.max(i + 1, end - 1)),
                        next < n && source.charAt(next) == '+'));
                i = end;
            } else {
                i++;
            }
        }
        return out;
    }

    /** The index after the literal opened by {@code quote} at {@code start} (escapes honoured). */
    private static int skipQuoted(String s, int start, char quote) {
        int i = start + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == quote || c == '\n') {
                return i + 1;
            } else {
                i++;
            }
        }
        return s.length();
    }

    /** The string literals of every main Java source under {@code root}. */
    static List<Literal> mainLiterals(Path root) throws IOException {
        List<Literal> out = new ArrayList<>();
        for (Path f : mainJavaSources(root)) {
            out.addAll(literals(Files.readString(f)));
        }
        return out;
    }

    /** The variables {@code bin/*} and {@code perf/scripts/*.sh} read. */
    static Set<String> scriptReads(Path root) throws IOException {
        Set<String> out = new TreeSet<>();
        for (Path dir : List.of(root.resolve("bin"), root.resolve("perf/scripts"))) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)
                        .filter(p -> dir.endsWith("bin") || p.toString().endsWith(".sh"))::iterator) {
                    Matcher m = SCRIPT_READ.matcher(Files.readString(f));
                    while (m.find()) {
                        out.add(m.group(1));
                    }
                }
            }
        }
        return out;
    }

    /** The {@code rc.*} properties the poms under {@code root} define. */
    static Set<String> pomProperties(Path root) throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = io.reactivecollectives.transport.ProjectTree.files(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .filter(p -> !skipped(root, p))::iterator) {
                Matcher m = POM_PROPERTY.matcher(Files.readString(f));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }
}
