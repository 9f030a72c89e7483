package io.reactivecollectives.core.settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The reference tables of {@code docs/settings.md}, generated from {@link SettingsRegistry} so that
 * the page and the code cannot drift: every system property, then every environment variable, of
 * the settings of the modules on the class path. They go between {@value #BEGIN} and {@value #END};
 * the rest of the page is written by hand. {@code main(path)} rewrites the page's tables.
 */
public final class SettingsReference {

    /** The line before the generated tables. */
    public static final String BEGIN = "<!-- settings:begin -->";
    /** The line after them. */
    public static final String END = "<!-- settings:end -->";

    private SettingsReference() {
    }

    /**
     * Rewrites the tables of the page at {@code args[0]} (default {@code docs/settings.md}) from the
     * settings of the modules on the class path.
     *
     * @param args the page's path, optional
     * @throws IOException when the page cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        Path page = Path.of(args.length > 0 ? args[0] : "docs/settings.md");
        String old = Files.readString(page, StandardCharsets.UTF_8);
        String updated = rewrite(old, render(SettingsRegistry.byModule()));
        if (!updated.equals(old)) {
            Files.writeString(page, updated, StandardCharsets.UTF_8);
        }
        System.out.println(page + (updated.equals(old) ? " is up to date" : " rewritten"));
    }

    /**
     * The tables, markers included.
     *
     * @param byModule each module's settings
     * @return the markdown
     */
    public static String render(Map<String, List<Setting<?>>> byModule) {
        StringBuilder md = new StringBuilder(BEGIN).append('\n');
        md.append("<!-- generated from the settings registry (SettingsReference): edit the settings' declarations,"
                + " not this table -->\n\n");
        md.append("| property | variable | module | type | default | what |\n| --- | --- | --- | --- | --- | --- |\n");
        byModule.forEach((module, settings) -> settings.stream().filter(s -> s.property() != null).forEach(s ->
                row(md, s.property(), s.environment(), module, s)));
        md.append("\nThe environment variables of these settings, each read where its property (if any) is not set:\n\n");
        md.append("| variable | property | module | type | default | what |\n| --- | --- | --- | --- | --- | --- |\n");
        byModule.forEach((module, settings) -> settings.stream().filter(s -> s.environment() != null).forEach(s ->
                row(md, s.environment(), s.property(), module, s)));
        return md.append(END).toString();
    }

    private static void row(StringBuilder md, String first, String other, String module, Setting<?> s) {
        md.append("| `").append(first).append("` | ").append(other == null ? "" : "`" + other + "`")
                .append(" | ").append(module)
                .append(" | ").append(cell(s.type()))
                .append(" | ").append(cell(s.defaultText()))
                .append(" | ").append(cell(s.description())).append(" |\n");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /**
     * {@code page} with what lies between the markers (markers included) replaced by {@code tables}.
     *
     * @param page   the page
     * @param tables the generated tables, markers included
     * @return the new page
     * @throws IllegalArgumentException when the page lacks a marker
     */
    public static String rewrite(String page, String tables) {
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the page has no " + BEGIN + " ... " + END + " section");
        }
        return page.substring(0, begin) + tables + page.substring(end + END.length());
    }
}
