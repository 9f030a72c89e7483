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
}
