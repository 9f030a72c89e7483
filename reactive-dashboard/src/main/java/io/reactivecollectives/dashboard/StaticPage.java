package io.reactivecollectives.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The job page's files (HTML, script, style), read once from the class path: a fixed list, so that
 * no request path ever reaches the class path or the file system.
 */
final class StaticPage {

    private static final String BASE = "/io/reactivecollectives/dashboard/page/";

    /**
     * A file as served.
     *
     * @param contentType its media type
     * @param bytes       its contents
     */
    record File(String contentType, byte[] bytes) {
    }

    private static volatile Map<String, File> files;

    private StaticPage() {
    }

    /** The page's files by request path; reads the class path on first use (call off the event loops). */
    static Map<String, File> files() {
        Map<String, File> f = files;
        if (f == null) {
            File index = read("index.html", "text/html; charset=utf-8");
            f = Map.of("/", index, "/index.html", index,
                    "/app.js", read("app.js", "text/javascript; charset=utf-8"),
                    "/style.css", read("style.css", "text/css; charset=utf-8"));
            files = f;
        }
        return f;
    }

    private static File read(String name, String type) {
        try (InputStream in = StaticPage.class.getResourceAsStream(BASE + name)) {
            if (in == null) {
                throw new IllegalStateException("dashboard: " + BASE + name + " is missing from the class path");
            }
            return new File(type, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("dashboard: cannot read " + BASE + name, e);
        }
    }
}
