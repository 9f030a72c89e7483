package io.reactivecollectives.core.settings;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The generated tables and their place between the markers. */
class SettingsReferenceRenderTest {

    @Test
    void propertiesThenVariablesOneRowEach() {
        Map<String, List<Setting<?>>> byModule = new LinkedHashMap<>();
        byModule.put("m", List.of(Setting.integer("rc.a", 1, 1, 64, "one | two").env("RC_A"),
                Setting.string("RC_B", null, "bee")));
        assertEquals(String.join("\n",
                SettingsReference.BEGIN,
                "<!-- generated from the settings registry (SettingsReference): edit the settings' declarations,"
                        + " not this table -->",
                "",
                "| property | variable | module | type | default | what |",
                "| --- | --- | --- | --- | --- | --- |",
                "| `rc.a` | `RC_A` | m | int, 1-64 | 1 | one \\| two |",
                "",
                "The environment variables of these settings, each read where its property (if any) is not set:",
                "",
                "| variable | property | module | type | default | what |",
                "| --- | --- | --- | --- | --- | --- |",
                "| `RC_A` | `rc.a` | m | int, 1-64 | 1 | one \\| two |",
                "| `RC_B` |  | m | string | unset | bee |",
                SettingsReference.END), SettingsReference.render(byModule));
    }

    @Test
    void theTablesReplaceWhatLiesBetweenTheMarkers() {
        String page = "intro\n" + SettingsReference.BEGIN + "\nold\n" + SettingsReference.END + "\nrest\n";
        assertEquals("intro\nNEW\nrest\n", SettingsReference.rewrite(page, "NEW"));
        assertThrows(IllegalArgumentException.class, () -> SettingsReference.rewrite("no markers", "NEW"));
    }
}
