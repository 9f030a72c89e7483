package io.reactivecollectives.core.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One setting of the library: its name, the system property and environment variable that set it
 * (either may be absent), its type, default and a one-line description. {@link #get()} reads it:
 * the system property when set (and not blank), else the variable, else the default; a value that
 * does not parse fails with an {@link IllegalArgumentException} naming the setting and the value.
 * Each module declares its settings in one {@link SettingsProvider}; {@link SettingsRegistry} lists
 * them all.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {

    private final String name;
    private final String property;
    private final String environment;
    private final String type;
    private final Function<String, T> parser;
    private final Supplier<T> defaultValue;
    private final String defaultText;
    private final String description;

    private Setting(String name, String property, String environment, String type, Function<String, T> parser,
                    Supplier<T> defaultValue, String defaultText, String description) {
        this.name = Objects.requireNonNull(name, "name");
        this.property = property;
        this.environment = environment;
        this.type = Objects.requireNonNull(type, "type");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
        this.defaultText = Objects.requireNonNull(defaultText, "defaultText");
        this.description = Objects.requireNonNull(description, "description");
    }

    /**
     * A setting of any type. A name with a dot is a system property (add a variable with
     * {@link #env(String)}), a name without one an environment variable only.
     *
     * @param name        the system property or environment variable
     * @param type        the type as the reference page shows it
     * @param parser      reads a value (throws {@link IllegalArgumentException} or {@link NumberFormatException})
     * @param defaultValue the default, or null for none
     * @param description one line: what the setting does
     * @param <T>         the value's type
     * @return the setting
     */
    public static <T> Setting<T> of(String name, String type, Function<String, T> parser, T defaultValue,
                                    String description) {
        boolean isProperty = name.contains(".");
        return new Setting<>(name, isProperty ? name : null, isProperty ? null : name, type, parser,
                () -> defaultValue, defaultValue == null ? "unset" : String.valueOf(defaultValue), description);
    }

    /**
     * A boolean: {@code true} or {@code false} in any case.
     *
     * @param name         the property or variable
     * @param defaultValue the default
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Boolean> bool(String name, boolean defaultValue, String description) {
        return of(name, "boolean", SettingParsers::bool, defaultValue, description);
    }

    /**
     * An int in {@code [min, max]}.
     *
     * @param name         the property or variable
     * @param defaultValue the default
     * @param min          the least value
     * @param max          the greatest value
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Integer> integer(String name, int defaultValue, int min, int max, String description) {
        return of(name, SettingParsers.rangeType("int", min, max, Integer.MIN_VALUE, Integer.MAX_VALUE),
                v -> (int) SettingParsers.inRange(Long.parseLong(v.trim()), min, max), defaultValue, description);
    }

    /**
     * A long in {@code [min, max]}, in {@code unit} (shown on the page).
     *
     * @param name         the property or variable
     * @param unit         the unit, e.g. {@code us}
     * @param defaultValue the default
     * @param min          the least value
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Long> longValue(String name, String unit, long defaultValue, long min, String description) {
        return of(name, SettingParsers.rangeType("long", min, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE)
                        + (unit.isEmpty() ? "" : ", " + unit),
                v -> SettingParsers.inRange(Long.parseLong(v.trim()), min, Long.MAX_VALUE), defaultValue, description);
    }

    /**
     * A size in bytes: a number with an optional {@code K}, {@code M} or {@code G} (binary) suffix,
     * at least {@code min}.
     *
     * @param name         the property or variable
     * @param defaultValue the default
     * @param min          the least value
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Long> bytes(String name, long defaultValue, long min, String description) {
        return of(name, SettingParsers.rangeType("bytes (K/M/G)", min, Long.MAX_VALUE, 0, Long.MAX_VALUE),
                v -> SettingParsers.inRange(SettingParsers.bytes(v), min, Long.MAX_VALUE), defaultValue, description);
    }

    /**
     * A size in bytes that fits an int (see {@link #bytes}).
     *
     * @param name         the property or variable
     * @param defaultValue the default
     * @param min          the least value
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Integer> intBytes(String name, int defaultValue, int min, String description) {
        return of(name, SettingParsers.rangeType("int bytes (K/M/G)", min, Integer.MAX_VALUE, 0, Integer.MAX_VALUE),
                v -> (int) SettingParsers.inRange(SettingParsers.bytes(v), min, Integer.MAX_VALUE), defaultValue,
                description);
    }

    /**
     * A duration: seconds ({@code 5}, {@code 0.5}) or with {@code ms} or {@code s}; {@code 0} or
     * {@code off} for none (zero).
     *
     * @param name         the property or variable
     * @param defaultValue the default
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Duration> duration(String name, Duration defaultValue, String description) {
        return of(name, "duration (`5`, `0.5`, `1500ms`, `2s`; `0` or `off`: none)", SettingParsers::duration,
                defaultValue, description);
    }

    /**
     * A duration above zero ({@code 5}, {@code 0.5}, {@code 1500ms}, {@code 2s}): a timeout, which
     * "none" would not mean.
     *
     * @param name         the property or variable
     * @param defaultValue the default, or null for none
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Duration> positiveDuration(String name, Duration defaultValue, String description) {
        return of(name, "duration above 0 (`5`, `0.5`, `1500ms`, `2s`)", v -> {
            Duration d = SettingParsers.duration(v);
            if (d.isZero()) {
                throw new IllegalArgumentException("expected a duration above 0, a timeout must be positive");
            }
            return d;
        }, defaultValue, description);
    }

    /**
     * A file or directory.
     *
     * @param name         the property or variable
     * @param defaultValue the default, or null for none
     * @param description  what it does
     * @return the setting
     */
    public static Setting<Path> path(String name, Path defaultValue, String description) {
        return of(name, "path", v -> Path.of(v), defaultValue, description);
    }

    /**
     * Any text.
     *
     * @param name         the property or variable
     * @param defaultValue the default, or null for none
     * @param description  what it does
     * @return the setting
     */
    public static Setting<String> string(String name, String defaultValue, String description) {
        return of(name, "string", v -> v, defaultValue, description);
    }

    /**
     * One of {@code choices} (in any case; the value read is lower case).
     *
     * @param name         the property or variable
     * @param defaultValue the default, one of the choices
     * @param description  what it does
     * @param choices      the values allowed
     * @return the setting
     */
    public static Setting<String> choice(String name, String defaultValue, String description, String... choices) {
        return of(name, "`" + String.join("` / `", choices) + "`", v -> SettingParsers.choice(v, choices),
                defaultValue, description);
    }

    /**
     * This setting, also read from environment variable {@code variable} where the property is not set.
     *
     * @param variable the variable
     * @return the new setting
     */
    public Setting<T> env(String variable) {
        return new Setting<>(name, property, variable, type, parser, defaultValue, defaultText, description);
    }

    /**
     * This setting with a default computed on each read (from the machine, say), shown as {@code text}.
     *
     * @param value the default
     * @param text  the default as the page shows it
     * @return the new setting
     */
    public Setting<T> defaultsTo(Supplier<T> value, String text) {
        return new Setting<>(name, property, environment, type, parser, value, text, description);
    }

    /**
     * This setting with its default shown as {@code text} on the page.
     *
     * @param text the default as the page shows it
     * @return the new setting
     */
    public Setting<T> defaultText(String text) {
        return new Setting<>(name, property, environment, type, parser, defaultValue, text, description);
    }

    /**
     * This setting, refusing a value that parses but breaks a rule the type cannot say (a power of
     * two, a multiple of 8): the value is refused when read, with the usual one-line error, instead
     * of being changed quietly or failing later without the setting's name.
     *
     * @param rule whether a value is allowed
     * @param why  what an allowed value is, for the error
     * @return the new setting
     */
    public Setting<T> requiring(java.util.function.Predicate<? super T> rule, String why) {
        Function<String, T> base = parser;
        return new Setting<>(name, property, environment, type, v -> {
            T value = base.apply(v);
            if (!rule.test(value)) {
                throw new IllegalArgumentException(why);
            }
            return value;
        }, defaultValue, defaultText, description);
    }

    /**
     * This setting with its type shown as {@code text} on the page.
     *
     * @param text the type as the page shows it
     * @return the new setting
     */
    public Setting<T> typeText(String text) {
        return new Setting<>(name, property, environment, text, parser, defaultValue, defaultText, description);
    }

    /**
     * The value: the system property, else the environment variable, else the default.
     *
     * @return the value, null where unset without a default
     * @throws IllegalArgumentException when the value set does not parse, naming the setting and the value
     */
    public T get() {
        return get(System.getenv());
    }

    /**
     * The value, with the environment {@code env} (a test's own, or a launcher's).
     *
     * @param env the environment variables
     * @return the value, null where unset without a default
     * @throws IllegalArgumentException when the value set does not parse, naming the setting and the value
     */
    public T get(Map<String, String> env) {
        String v = property == null ? null : System.getProperty(property);
        if (v != null && !v.isBlank()) {
            return parse(v, "system property " + property);
        }
        v = environment == null ? null : env.get(environment);
        if (v != null && !v.isBlank()) {
            return parse(v, "environment variable " + environment);
        }
        return defaultValue.get();
    }

    /**
     * Whether the property or the variable is set (not blank).
     *
     * @param env the environment variables
     * @return whether a value is given
     */
    public boolean isSet(Map<String, String> env) {
        String p = property == null ? null : System.getProperty(property);
        String e = environment == null ? null : env.get(environment);
        return (p != null && !p.isBlank()) || (e != null && !e.isBlank());
    }

    /**
     * Reads {@code text} as this setting's value.
     *
     * @param text the value as written
     * @return the value
     * @throws IllegalArgumentException when it does not parse, naming the setting and the value
     */
    public T parse(String text) {
        return parse(text, null);
    }

    private T parse(String text, String source) {
        try {
            return parser.apply(text.trim());
        } catch (IllegalArgumentException e) {
            String why = e instanceof NumberFormatException || e.getMessage() == null ? "" : ": " + e.getMessage();
            // a type that lists the values it takes (`1`, `true`, ...) says it all: no "expected ..." after it
            boolean listed = type.startsWith("`");
            if (listed && why.startsWith(": expected")) {
                why = "";
            }
            // "(environment variable)", not "(environment variable RC_X)" again when the setting is RC_X
            String from = source == null ? "" : " (" + (source.endsWith(" " + name)
                    ? source.substring(0, source.length() - name.length() - 1) : source) + ")";
            throw new IllegalArgumentException("setting " + name + from + ": '" + text + "' is not "
                    + (listed ? "one of " : "a valid ") + type.replace("`", "") + why, e);
        }
    }

    /** {@return the default value (computed now where it depends on the machine); null for none} */
    public T defaultValue() {
        return defaultValue.get();
    }

    /** {@return the setting's name: its system property, else its environment variable} */
    public String name() {
        return name;
    }

    /** {@return the system property, or null where only a variable sets it} */
    public String property() {
        return property;
    }

    /** {@return the environment variable, or null where none} */
    public String environment() {
        return environment;
    }

    /** {@return the type, as the reference page shows it} */
    public String type() {
        return type;
    }

    /** {@return the default, as the reference page shows it} */
    public String defaultText() {
        return defaultText;
    }

    /** {@return what the setting does, one line} */
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return name;
    }
}
