package io.reactivecollectives.perf;

import io.reactivecollectives.core.settings.SettingsReference;
import io.reactivecollectives.core.settings.SettingsRegistry;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The tables of {@code docs/settings.md} are what {@link SettingsReference} makes of the settings
 * registry, with every module that has settings on this class path (perf depends on them all).
 * Run with {@value #WRITE}{@code =true} (the command the failure prints), it rewrites the page.
 */
class SettingsPageTest {

    /** The system property that makes this test rewrite the page instead of failing. */
    static final String WRITE = "rc.test.writeSettingsPage";
    /** The command that rewrites the page. */
    static final String COMMAND = "mvn -B -ntp -o -q -pl perf -am test -Dtest=SettingsPageTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE + "=true";

    @Test
    void thePagesTablesAreGeneratedFromTheRegistry() throws IOException {
        Path page = repositoryRoot().resolve("docs/settings.md");
        String committed = Files.readString(page, StandardCharsets.UTF_8);
        String generated = SettingsReference.rewrite(committed, SettingsReference.render(SettingsRegistry.byModule()));
        if (!generated.equals(committed) && Boolean.getBoolean(WRITE)) {
            Files.writeString(page, generated, StandardCharsets.UTF_8);
            return;
        }
        assertEquals(generated, committed, "docs/settings.md's tables differ from the settings registry; "
                + "rewrite them with (from the repository root):\n  " + COMMAND + "\n");
    }

    @Test
    void everyModuleWithSettingsIsOnTheClassPath() {
        assertEquals(List.of("reactive-core", "reactive-store", "reactive-transport", "reactive-cuda", "reactive-tools", "perf"),
                new ArrayList<>(SettingsRegistry.byModule().keySet()));
    }

    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/settings.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no docs/settings.md above " + Path.of("").toAbsolutePath());
    }
}
