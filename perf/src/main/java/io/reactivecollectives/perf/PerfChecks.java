package io.reactivecollectives.perf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The benchmark's checks of files and tunings named on its command line, made before any rank
 * starts: each problem is one line naming the flag (exit 2), not a stack trace after the run.
 */
final class PerfChecks {

    private PerfChecks() {
    }

    /**
     * Why {@code file} (given with {@code flag}) cannot be written, or null when it can (it need not
     * exist yet; its directory must).
     */
    static String outputFile(String flag, String file) {
        if (file == null) {
            return null;
        }
        Path p = Paths.get(file).toAbsolutePath();
        Path dir = p.getParent();
        if (Files.isDirectory(p)) {
            return flag + " " + file + " is a directory, not a file";
        }
        if (dir == null || !Files.isDirectory(dir)) {
            return flag + " " + file + ": the directory " + dir + " does not exist";
        }
        if (!Files.isWritable(dir) || (Files.exists(p) && !Files.isWritable(p))) {
            return flag + " " + file + " cannot be written (permissions)";
        }
        return null;
    }

    /** Why {@code --tls-dir dir} cannot be used (no readable cert.pem and key.pem in it), or null. */
    static String tlsDir(String dir) {
        if (dir == null || dir.isEmpty()) {
            return null;
        }
        Path d = Paths.get(dir);
        if (!Files.isDirectory(d)) {
            return "--tls-dir " + dir + " is not a directory";
        }
        for (String f : new String[] {"cert.pem", "key.pem"}) {
            if (!Files.isReadable(d.resolve(f))) {
                return "--tls-dir " + dir + " has no readable " + f + " (it needs cert.pem and key.pem)";
            }
        }
        return null;
    }

    /** The first problem with the tunings: a negative pipeline depth or settle time. */
    static String tunings(int depth, long settleTimeMs) {
        if (depth < 0) {
            return "--depth must be >= 0 (0: the group's own), got " + depth;
        }
        if (settleTimeMs < 0) {
            return "--settle-time-ms must be >= 0, got " + settleTimeMs;
        }
        return null;
    }
    /**
     * The settings registry's one-line error for a setting the rank JVMs would read and refuse: a
     * {@code -Dname=value} of {@code RC_RANK_JAVA_OPTS} naming a setting's property, or a setting's
     * environment variable (the ranks inherit this process's); null when all parse. Before, each rank
     * failed its start with a stack trace of some thirty lines.
     */
    static String rankSettings(java.util.Map<String, String> env) {
        String opts = PerfSettings.RANK_JAVA_OPTS.get(env);
        java.util.Set<String> given = new java.util.HashSet<>();
        java.util.List<io.reactivecollectives.core.settings.Setting<?>> all = io.reactivecollectives.core.settings.SettingsRegistry.all();
        for (String o : opts == null ? new String[0] : opts.trim().split("\\s+")) {
            int eq = o.indexOf('=');
            for (io.reactivecollectives.core.settings.Setting<?> s : all) {
                String value = eq > 2 && o.startsWith("-D") && o.substring(2, eq).equals(s.property())
                        ? o.substring(eq + 1).replace("{rank}", "0") : "";
                if (!value.isBlank()) {
                    given.add(s.property());
                    try {
                        s.parse(value);
                    } catch (IllegalArgumentException e) {
                        return "RC_RANK_JAVA_OPTS: " + e.getMessage();
                    }
                }
            }
        }
        for (io.reactivecollectives.core.settings.Setting<?> s : all) {
            String v = s.environment() == null || given.contains(s.property()) ? null : env.get(s.environment());
            if (v != null && !v.isBlank()) {
                try {
                    s.parse(v);
                } catch (IllegalArgumentException e) {
                    return "environment variable " + s.environment() + " (the ranks inherit it): " + e.getMessage();
                }
            }
        }
        return null;
    }
}
