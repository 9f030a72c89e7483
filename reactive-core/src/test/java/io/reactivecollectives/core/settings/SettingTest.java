package io.reactivecollectives.core.settings;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each type's spellings and errors, and where a value comes from: property, variable, default. */
class SettingTest {

    private static final String P = "rc.test.settings.value";

    @AfterEach
    void clear() {
        System.clearProperty(P);
    }

    /** The message of the error reading {@code text} as {@code s}. */
    private static String error(Setting<?> s, String text) {
        return assertThrows(IllegalArgumentException.class, () -> s.parse(text)).getMessage();
    }

    @Test
    void booleansAreTrueOrFalseInAnyCase() {
        Setting<Boolean> b = Setting.bool(P, true, "a switch");
        assertTrue(b.parse("true"));
        assertTrue(b.parse(" True "));
        assertFalse(b.parse("FALSE"));
        assertEquals("setting rc.test.settings.value: 'yes' is not a valid boolean: expected true or false",
                error(b, "yes"));
        assertEquals("boolean", b.type());
        assertEquals("true", b.defaultText());
    }

    @Test
    void intsAreCheckedAgainstTheirRange() {
        Setting<Integer> i = Setting.integer(P, 1, 1, 64, "stripes");
        assertEquals(64, i.parse("64"));
        assertEquals("int, 1-64", i.type());
        assertEquals("setting rc.test.settings.value: '65' is not a valid int, 1-64: out of range [1, 64]",
                error(i, "65"));
        assertEquals("setting rc.test.settings.value: 'many' is not a valid int, 1-64", error(i, "many"));
        assertTrue(error(i, "99999999999").contains("out of range"));
        assertEquals("int, >= 1", Setting.integer(P, 4, 1, Integer.MAX_VALUE, "threads").type());
    }

    @Test
    void longsTakeTheirUnitAndLowerBound() {
        Setting<Long> l = Setting.longValue(P, "us", -1, -1, "spin");
        assertEquals(-1L, l.parse("-1"));
        assertEquals(200L, l.parse("200"));
        assertEquals("long, >= -1, us", l.type());
        assertTrue(error(l, "-2").contains("out of range"));
        assertTrue(error(l, "1.5").startsWith("setting rc.test.settings.value: '1.5' is not a valid long"));
    }

    @Test
    void bytesTakeBinarySuffixes() {
        Setting<Long> b = Setting.bytes(P, 0, 0, "size");
        assertEquals(65536L, b.parse("65536"));
        assertEquals(64L << 10, b.parse("64K"));
        assertEquals(64L << 10, b.parse("64k"));
        assertEquals(16L << 10, b.parse("16KiB"));
        assertEquals(8L << 10, b.parse("8KB"));
        assertEquals(2L << 20, b.parse("2M"));
        assertEquals(1L << 30, b.parse("1G"));
        assertTrue(error(b, "12X").startsWith("setting rc.test.settings.value: '12X' is not a valid bytes (K/M/G)"));
        assertTrue(error(b, "-1K").contains("out of range"));
        assertTrue(error(b, "99999999999G").contains("too large"));
        Setting<Integer> small = Setting.intBytes(P, 2 << 20, 4096, "ring");
        assertEquals(2 << 20, small.parse("2M"));
        assertTrue(error(small, "4G").contains("out of range [4096, 2147483647]"));
        assertTrue(error(small, "1K").contains("out of range"));
    }

    @Test
    void durationsAreSecondsOrCarryAUnit() {
        Setting<Duration> d = Setting.duration(P, Duration.ofSeconds(5), "interval");
        assertEquals(Duration.ofSeconds(5), d.parse("5"));
        assertEquals(Duration.ofMillis(500), d.parse("0.5"));
        assertEquals(Duration.ofMillis(1500), d.parse("1500ms"));
        assertEquals(Duration.ofSeconds(2), d.parse("2S"));
        assertEquals(Duration.ZERO, d.parse("off"));
        assertEquals(Duration.ZERO, d.parse("0"));
        assertTrue(error(d, "soon").startsWith("setting rc.test.settings.value: 'soon' is not a valid duration"));
        assertTrue(error(d, "-1").contains("at least 0"));
    }

    @Test
    void pathsStringsAndChoices() {
        assertEquals(Path.of("/tmp/x"), Setting.path(P, null, "dir").parse("/tmp/x"));
        assertEquals("DETAIL", Setting.string(P, null, "level").parse("DETAIL"));
        Setting<String> c = Setting.choice(P, "auto", "binding", "auto", "false", "off");
        assertEquals("off", c.parse("OFF"));
        assertEquals("`auto` / `false` / `off`", c.type());
        assertEquals("setting rc.test.settings.value: 'yes' is not one of auto / false / off", error(c, "yes"));
    }

    @Test
    void thePropertyComesFirstThenTheVariableThenTheDefault() {
        Setting<Integer> s = Setting.integer(P, 7, 0, 100, "n").env("RC_TEST_SETTINGS_VALUE");
        assertEquals(7, s.get(Map.of()));
        assertFalse(s.isSet(Map.of()));
        assertEquals(8, s.get(Map.of("RC_TEST_SETTINGS_VALUE", "8")));
        assertEquals(7, s.get(Map.of("RC_TEST_SETTINGS_VALUE", "  ")), "a blank variable is unset");
        System.setProperty(P, "9");
        assertEquals(9, s.get(Map.of("RC_TEST_SETTINGS_VALUE", "8")));
        assertTrue(s.isSet(Map.of()));
        System.setProperty(P, " ");
        assertEquals(8, s.get(Map.of("RC_TEST_SETTINGS_VALUE", "8")), "a blank property is unset");
        System.setProperty(P, "x");
        assertEquals("setting rc.test.settings.value (system property): 'x' is not a valid "
                + "int, 0-100", assertThrows(IllegalArgumentException.class, s::get).getMessage());
        System.clearProperty(P);
        assertEquals("setting rc.test.settings.value (environment variable RC_TEST_SETTINGS_VALUE): '200' is not a "
                        + "valid int, 0-100: out of range [0, 100]",
                assertThrows(IllegalArgumentException.class, () -> s.get(Map.of("RC_TEST_SETTINGS_VALUE", "200")))
                        .getMessage());
    }

    @Test
    void aNameWithoutADotIsAVariableOnly() {
        Setting<String> v = Setting.string("RC_TEST_SETTINGS_ONLY", "0.0.0.0", "bind");
        assertNull(v.property());
        assertEquals("RC_TEST_SETTINGS_ONLY", v.environment());
        assertEquals("RC_TEST_SETTINGS_ONLY", v.name());
        assertEquals("10.0.0.1", v.get(Map.of("RC_TEST_SETTINGS_ONLY", "10.0.0.1")));
        assertEquals("0.0.0.0", v.get(Map.of()));
        Setting<String> p = Setting.string(P, null, "x");
        assertEquals(P, p.property());
        assertNull(p.environment());
        assertEquals("unset", p.defaultText());
    }

    @Test
    void computedDefaultsAndTheirText() {
        Setting<Integer> t = Setting.integer(P, 1, 1, 1000, "threads").defaultsTo(() -> 42, "max(4, processors)")
                .typeText("int");
        assertEquals(42, t.get(Map.of()));
        assertEquals(42, t.defaultValue());
        assertEquals("max(4, processors)", t.defaultText());
        assertEquals("int", t.type());
        assertEquals("threads", t.description());
    }
}
