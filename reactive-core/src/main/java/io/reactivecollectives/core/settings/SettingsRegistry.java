package io.reactivecollectives.core.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Every setting of the modules on the class path (each module's {@link SettingsProvider}), and
 * the project's own {@code rc.*} system properties that are no settings (build and test switches).
 * The first call of {@link #all()} also warns, once per JVM, about {@code rc.*} system properties
 * no setting reads ({@link UnknownSettings}).
 */
public final class SettingsRegistry {

    /**
     * {@code rc.*} system properties of the project that are no settings of the library, with what
     * they are: the unknown-setting warning leaves them alone.
     */
    public static final Map<String, String> NON_SETTINGS = Map.ofEntries(
            Map.entry("rc.build.dir", "the build folder, passed by the bin/ scripts and the build"),
            Map.entry("rc.library.classpath", "the launcher's library class path, set by bin/ scripts"),
            Map.entry("rc.native.skip", "Maven: build no JNI libraries (reduction kernels, shared-memory waits)"),
            Map.entry("rc.sources.skip", "Maven: build no sources jars"),
            Map.entry("rc.dashboard.screenshot", "a test's copy of its screenshot"),
            Map.entry("rc.segment", "a test benchmark's segment size"),
            Map.entry("rc.depth", "a test benchmark's pipeline depth"),
            Map.entry("rc.sockbuf", "a test benchmark's socket buffers"),
            Map.entry("rc.op", "a test benchmark's operation"),
            Map.entry("rc.iters", "a test benchmark's iterations"),
            Map.entry("rc.warm", "a test benchmark's warm-up iterations"),
            Map.entry("rc.cycles.uniqueGroups", "a test benchmark's group names"),
            Map.entry("rc.cycles.holdMillis", "a test benchmark's hold between cycles"),
            Map.entry("rc.soak", "runs the soak tests"),
            Map.entry("rc.soak.iterations", "the soak tests' iterations"));

    /** Prefixes of {@code rc.*} system properties that are no settings: the tests' own switches. */
    public static final List<String> NON_SETTING_PREFIXES = List.of("rc.test.");

    private SettingsRegistry() {
    }

    private static final class Loaded {
        static final Map<String, List<Setting<?>>> BY_MODULE = load();

        private static Map<String, List<Setting<?>>> load() {
            Map<String, List<Setting<?>>> out = new LinkedHashMap<>();
            List<SettingsProvider> providers = new ArrayList<>();
            ServiceLoader.load(SettingsProvider.class, SettingsRegistry.class.getClassLoader()).forEach(providers::add);
            providers.sort(Comparator.comparingInt(SettingsProvider::order).thenComparing(SettingsProvider::module));
            if (providers.stream().noneMatch(p -> p instanceof CoreSettings)) {
                providers.add(0, new CoreSettings());  // a class path without this jar's services file
            }
            for (SettingsProvider p : providers) {
                out.computeIfAbsent(p.module(), m -> new ArrayList<>()).addAll(p.settings());
            }
            out.replaceAll((m, l) -> List.copyOf(l));
            return Collections.unmodifiableMap(out);
        }
    }

    /**
     * Every setting, core's first, then by module ({@link SettingsProvider#order()}).
     *
     * @return the settings
     */
    public static List<Setting<?>> all() {
        List<Setting<?>> out = new ArrayList<>();
        byModule().values().forEach(out::addAll);
        UnknownSettings.warnOnce(out);
        return out;
    }

    /**
     * The settings of each module on the class path, core's first.
     *
     * @return module name to its settings
     */
    public static Map<String, List<Setting<?>>> byModule() {
        return Loaded.BY_MODULE;
    }

    /**
     * Parses every setting that is set (its system property or environment variable), so that a bad
     * value fails here, naming the setting and the value, before any class that reads it once
     * (an event loop's thread count, a kernel's block size) is first loaded on some other thread,
     * where the error would not reach the caller. Logs nothing and blocks on nothing.
     *
     * @throws IllegalArgumentException for the first value set that does not parse
     */
    public static void requireValid() {
        Map<String, String> env = System.getenv();
        for (List<Setting<?>> module : byModule().values()) {
            for (Setting<?> s : module) {
                if (s.isSet(env)) {
                    s.get(env);
                }
            }
        }
    }

    /**
     * The setting with {@code name} (its property or variable).
     *
     * @param name a system property or environment variable
     * @return the setting, or empty
     */
    public static Optional<Setting<?>> find(String name) {
        return all().stream().filter(s -> name.equals(s.property()) || name.equals(s.environment())).findFirst();
    }

    /**
     * Whether {@code property} is one of the project's {@code rc.*} properties that is no setting.
     *
     * @param property a system property
     * @return whether the unknown-setting warning leaves it alone
     */
    public static boolean isNonSetting(String property) {
        return NON_SETTINGS.containsKey(property) || NON_SETTING_PREFIXES.stream().anyMatch(property::startsWith);
    }
}
