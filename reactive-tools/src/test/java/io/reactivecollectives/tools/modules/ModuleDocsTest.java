package io.reactivecollectives.tools.modules;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/library.md's table of module names and exported packages says what the compiled descriptors
 * say: the same modules, and for each the same packages exported to everyone and the same exported
 * only to the project's own modules.
 */
class ModuleDocsTest {

    /** A row: | `module` | `a`, `b` | `c` to `x` | (the last cell may be "none"). */
    private static final Pattern ROW = Pattern.compile("^\\| `(io\\.reactivecollectives[\\w.]*)` \\|([^|]*)\\|([^|]*)\\|\\s*$");
    private static final Pattern NAME = Pattern.compile("`([\\w.]+)`( to ((`[\\w.]+`(, )?)+))?");

    @Test
    void libraryMdListsExactlyTheExportedPackages() throws IOException {
        Map<String, Set<String>> documented = new TreeMap<>();
        Map<String, Set<String>> documentedQualified = new TreeMap<>();
        for (String line : Files.readAllLines(LibraryModules.repositoryRoot().resolve("docs/library.md"))) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                documented.put(m.group(1), names(m.group(2)));
                documentedQualified.put(m.group(1), names(m.group(3)));
            }
        }
        Map<String, Set<String>> compiled = new TreeMap<>();
        Map<String, Set<String>> compiledQualified = new TreeMap<>();
        for (LibraryModules.Module module : LibraryModules.find().values()) {
            Set<String> qualified = new TreeSet<>();
            for (ModuleDescriptor.Exports e : module.descriptor().exports()) {
                if (e.isQualified()) {
                    qualified.add(e.source() + " to " + String.join(", ", new TreeSet<>(e.targets())));
                }
            }
            compiled.put(module.descriptor().name(), module.unqualifiedExports());
            compiledQualified.put(module.descriptor().name(), qualified);
        }
        assertEquals(LibraryModules.EXPECTED, compiled.keySet(), "library modules on the class path");
        assertEquals(compiled, documented, "docs/library.md's exported packages against the descriptors");
        assertEquals(compiledQualified, documentedQualified,
                "docs/library.md's packages exported to named modules only, against the descriptors");
    }

    /** The package names of a cell ("none": no names); "`p` to `m1`, `m2`" becomes "p to m1, m2". */
    private static Set<String> names(String cell) {
        Set<String> out = new TreeSet<>();
        Matcher m = NAME.matcher(cell);
        while (m.find()) {
            if (m.group(3) == null) {
                out.add(m.group(1));
            } else {
                Set<String> targets = new TreeSet<>();
                Matcher t = Pattern.compile("`([\\w.]+)`").matcher(m.group(3));
                while (t.find()) {
                    targets.add(t.group(1));
                }
                out.add(m.group(1) + " to " + String.join(", ", targets));
            }
        }
        return out;
    }
}
