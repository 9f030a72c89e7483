package io.reactivecollectives.transport.docs;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.ObjectOptions;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.settings.SettingsRegistry;
import io.reactivecollectives.transport.Diagnostics;
import io.reactivecollectives.transport.GroupOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps {@code docs/settings.md} and the code from drifting apart: every {@code "rc.*"} name and
 * every {@code "RC_*"} variable the main sources of all modules spell out (and every {@code RC_*}
 * variable the scripts of {@code bin/} and {@code perf/scripts/} read) is listed in one of the
 * page's tables; every {@code rc.*} name and every variable the page lists is read somewhere (a
 * Java literal, a script, a pom property); and every setting and {@code with...} method of the
 * options records is named on the page. The settings themselves are read only through the
 * registry ({@code io.reactivecollectives.core.settings}), whose tables perf's {@code SettingsPageTest}
 * checks.
 */
class SettingsReferenceTest {

    /** {@code "rc.*"} literals that name no setting and no meter, with what they are. */
    private static final Map<String, String> INTERNAL = Map.of(
            "rc.store.flush", "Netty pipeline handler name",
            "rc.store.session", "Netty pipeline handler name",
            "rc.store.frameDecoder", "Netty pipeline handler name",
            "rc.torch.store", "Netty pipeline handler name",
            "rc.torch.probe", "Netty pipeline handler name");

    private static final Pattern RC_NAME = Pattern.compile("rc\\.[A-Za-z0-9_.-]*[A-Za-z0-9_-]");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Z][A-Z0-9_]*");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");
    /**
     * A direct read of an {@code rc.*} property or {@code RC_*} variable, by its name or a constant of
     * it (the constants of launch variables, which are no settings, excepted).
     */
    private static final Pattern DIRECT_READ = Pattern.compile("(?:System\\.getProperty|Integer\\.getInteger|"
            + "Long\\.getLong|Boolean\\.getBoolean|System\\.getenv|\\.get|\\.getOrDefault|UnixSocketFiles\\.enabled)"
            + "\\(\\s*(?:\"(?:rc\\.|RC_)|(?!AGENT_STORE_ENV|INDEX_ENV)[A-Z_]*(?:PROPERTY|ENV)\\b)");

    private static Path root;
    private static String page;
    private static List<SourceNames.Literal> found;
    private static List<String> literals;

    @BeforeAll
    static void read() throws IOException {
        root = SourceNames.repositoryRoot();
        page = Files.readString(root.resolve("docs/settings.md"));
        found = SourceNames.mainLiterals(root);
        literals = found.stream().map(SourceNames.Literal::text).toList();
    }

    @Test
    void everyRcNameTheCodeSpellsIsOnThePage() {
        Set<String> listed = firstCellNames(page);
        Set<String> missing = new TreeSet<>();
        Set<String> prefixes = new TreeSet<>();
        for (SourceNames.Literal l : found) {
            String s = l.text();
            if (s.startsWith("rc.") && l.concatenated()) {
                prefixes.add(s);
            } else if (RC_NAME.matcher(s).matches() && !INTERNAL.containsKey(s) && !listed.contains(s)
                    && !SettingsRegistry.NON_SETTINGS.containsKey(s)) {
                missing.add(s);
            }
        }
        assertTrue(prefixes.isEmpty(), "names built from a prefix cannot be checked; spell them out: " + prefixes);
        assertTrue(missing.isEmpty(), "read by the code but not in docs/settings.md: " + missing);
    }

    @Test
    void everyRcVariableTheCodeOrScriptsReadIsOnThePage() throws IOException {
        Set<String> listed = firstCellNames(page);
        Set<String> used = new TreeSet<>();
        for (String s : literals) {
            if (s.startsWith("RC_") && ENV_NAME.matcher(s).matches()) {
                used.add(s);
            }
        }
        for (String v : SourceNames.scriptReads(root)) {
            if (v.startsWith("RC_")) {
                used.add(v);
            }
        }
        used.removeAll(listed);
        assertTrue(used.isEmpty(), "environment variables read but not in docs/settings.md: " + used);
    }

    @Test
    void everyNameThePageListsIsReadSomewhere() throws IOException {
        Set<String> literalSet = new TreeSet<>(literals);
        Set<String> scriptReads = SourceNames.scriptReads(root);
        Set<String> pomProperties = SourceNames.pomProperties(root);
        List<String> unread = new ArrayList<>();
        for (String name : firstCellNames(page)) {
            boolean rc = name.startsWith("rc.");
            boolean env = ENV_NAME.matcher(name).matches();
            if (rc && !literalSet.contains(name) && !pomProperties.contains(name)) {
                unread.add(name);
            } else if (env && !literalSet.contains(name) && !scriptReads.contains(name)) {
                unread.add(name);
            }
        }
        assertTrue(unread.isEmpty(), "listed in docs/settings.md but read by no code: " + unread);
    }

    /**
     * Every {@code rc.*} property and {@code RC_*} variable is read through the settings registry
     * ({@code Setting.get()}): no main source reads one directly, by its name or a constant of it.
     */
    @Test
    void noSettingIsReadOutsideTheRegistry() throws IOException {
        List<String> direct = new ArrayList<>();
        for (Path f : SourceNames.mainJavaSources(root)) {
            if (f.toString().replace('\\', '/').contains("/core/settings/")) {
                continue;
            }
            String[] lines = Files.readString(f).split("\n");
            for (int i = 0; i < lines.length; i++) {
                if (DIRECT_READ.matcher(lines[i]).find()) {
                    direct.add(root.relativize(f) + ":" + (i + 1) + ": " + lines[i].trim());
                }
            }
        }
        assertTrue(direct.isEmpty(), "read directly, not through a Setting of the registry: " + direct);
    }

    @Test
    void theDirectReadPatternFindsEachWay() {
        for (String read : List.of("System.getProperty(\"rc.x\")", "Integer.getInteger(\"rc.x\", 1)",
                "Long.getLong( \"rc.x\", 1)", "Boolean.getBoolean(\"rc.x\")", "System.getenv(\"RC_X\")",
                "System.getProperty(DEBUG_PROPERTY)", "System.getenv(DIRECTORY_ENV)", "env.get(\"RC_X\")",
                "env.getOrDefault(BIND_ENV, \"\")", "UnixSocketFiles.enabled(\"rc.x\")")) {
            assertTrue(DIRECT_READ.matcher(read).find(), read);
        }
        for (String read : List.of("System.getProperty(\"java.io.tmpdir\")", "env.get(\"MASTER_ADDR\")",
                "TransportSettings.HOST.get(env)", "System.getProperty(property)",
                "env.getOrDefault(AGENT_STORE_ENV, \"\")")) {
            assertFalse(DIRECT_READ.matcher(read).find(), read);
        }
    }

    @Test
    void theInternalNamesAreStillInTheCode() {
        Set<String> gone = new TreeSet<>(INTERNAL.keySet());
        gone.removeAll(literals);
        assertTrue(gone.isEmpty(), "no longer in the code: take them off INTERNAL: " + gone);
    }

    @Test
    void everyOptionAndItsMethodsAreNamedOnThePage() {
        List<String> missing = new ArrayList<>();
        for (Class<?> options : List.of(GroupOptions.class, Diagnostics.class, FlightRecorder.Config.class,
                CollectiveOptions.class, ObjectOptions.class)) {
            for (RecordComponent c : options.getRecordComponents()) {
                if (!named(page, c.getName())) {
                    missing.add(options.getSimpleName() + "." + c.getName());
                }
            }
            for (Method m : options.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && m.getName().startsWith("with") && !named(page, m.getName())) {
                    missing.add(options.getSimpleName() + "." + m.getName() + "()");
                }
            }
        }
        assertTrue(missing.isEmpty(), "options not named in docs/settings.md: " + missing);
    }

    // ------------------------------------------------------------------ the checks' own parts

    @Test
    void literalsInCommentsAndCharsDoNotCountAndEscapesDo() {
        String source = "class A { // \"rc.comment\"\n /* \"rc.block\" */ char q = '\"'; String s = \"rc.real\";"
                + " String t = \"say \\\"RC_X\\\"\"; String u = \"\"\"\n  rc.text\n  \"\"\"; }";
        assertEquals(List.of("rc.real", "say \\\"RC_X\\\""), SourceNames.stringLiterals(source));
        assertEquals(List.of(new SourceNames.Literal("rc.transport.", true), new SourceNames.Literal("x", false)),
                SourceNames.literals("String p = \"rc.transport.\" + name; String q = \"x\";"));
    }

    @Test
    void thePagesNamesComeFromTheFirstCellOfTableRows() {
        String md = "| name | what |\n| --- | --- |\n| `rc.a`, `RC_B` | mentions `rc.c` |\nText `rc.d`.\n";
        assertEquals(new TreeSet<>(List.of("rc.a", "RC_B")), firstCellNames(md));
    }

    /** The backticked names in the first cell of every table row of {@code markdown}. */
    static Set<String> firstCellNames(String markdown) {
        Set<String> out = new TreeSet<>();
        for (String line : markdown.split("\n")) {
            String t = line.trim();
            if (!t.startsWith("|")) {
                continue;
            }
            int end = t.indexOf('|', 1);
            String cell = end < 0 ? t.substring(1) : t.substring(1, end);
            Matcher m = BACKTICKED.matcher(cell);
            while (m.find()) {
                out.add(m.group(1).trim());
            }
        }
        return out;
    }

    /** Whether {@code name} appears on the page in backticks, alone, called or qualified. */
    private static boolean named(String markdown, String name) {
        return Pattern.compile("`(?:[A-Za-z.]*\\.)?" + Pattern.quote(name) + "[`(]").matcher(markdown).find();
    }
}
