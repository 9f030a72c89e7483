package io.reactivecollectives.core.settings;

import io.reactivecollectives.core.observe.Notices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The warning about {@code rc.*} JVM system properties that no setting reads (a typo, or a module
 * that is not on the class path), with the nearest known name: once per JVM, through
 * {@link Notices#warn}. Only system properties are looked at; the project's non-settings
 * ({@link SettingsRegistry#isNonSetting}) are left alone.
 */
public final class UnknownSettings {

    private static final Logger LOG = LoggerFactory.getLogger(UnknownSettings.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private UnknownSettings() {
    }

    /** Warns about the JVM's unknown properties, the first time only. */
    static void warnOnce(Collection<Setting<?>> known) {
        warnOnce(WARNED, System.getProperties().stringPropertyNames(), known, line -> Notices.warn(LOG, line));
    }

    /** Sends the warnings for {@code properties} to {@code out} unless {@code done} was set; whether it sent them. */
    static boolean warnOnce(AtomicBoolean done, Set<String> properties, Collection<Setting<?>> known,
                            Consumer<String> out) {
        if (!done.compareAndSet(false, true)) {
            return false;
        }
        messages(properties, known).forEach(out);
        return true;
    }

    /**
     * Warns about the unknown {@code rc.*} system properties of this JVM unless it did already:
     * called by the first group start. Reads the modules' service files: call it where blocking is allowed.
     */
    public static void warnOnce() {
        if (!WARNED.get()) {
            SettingsRegistry.all();
        }
    }

    /**
     * Whether this JVM was checked for unknown settings already.
     *
     * @return whether {@link #warnOnce()} has nothing left to do
     */
    public static boolean done() {
        return WARNED.get();
    }

    /**
     * The warnings for {@code properties}: one line per unknown {@code rc.*} name.
     *
     * @param properties system property names
     * @param known      the settings
     * @return the lines, in name order
     */
    public static List<String> messages(Set<String> properties, Collection<Setting<?>> known) {
        Set<String> names = new TreeSet<>();
        for (Setting<?> s : known) {
            if (s.property() != null) {
                names.add(s.property());
            }
        }
        List<String> out = new ArrayList<>();
        for (String p : new TreeSet<>(properties)) {
            if (p.startsWith("rc.") && !names.contains(p) && !SettingsRegistry.isNonSetting(p)) {
                String near = nearest(p, names);
                out.add("unknown setting " + p + (near == null ? " (no setting of the modules on the class path)"
                        : " (did you mean " + near + "?)"));
            }
        }
        return out;
    }

    /** The name closest to {@code name} by edit distance, or null when none is within a third of its length. */
    static String nearest(String name, Set<String> names) {
        String best = null;
        int bestDistance = Math.max(2, name.length() / 3) + 1;
        for (String n : names) {
            int d = distance(name.toLowerCase(Locale.ROOT), n.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = n;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
