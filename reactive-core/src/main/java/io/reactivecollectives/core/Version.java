package io.reactivecollectives.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of Reactive Collectives this class was built as (the Maven project version), as the
 * command-line tools print it for {@code --version}.
 */
public final class Version {

    private static final String VERSION = load();

    private Version() {
    }

    /**
     * The project version.
     *
     * @return e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} when built without Maven's resource filtering
     */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown").trim();
            return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the version resource of " + Version.class.getName(), e);
        }
    }
}
