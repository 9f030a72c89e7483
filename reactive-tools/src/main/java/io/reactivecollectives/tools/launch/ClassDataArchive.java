package io.reactivecollectives.tools.launch;

import io.reactivecollectives.tools.ToolsSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The class-data archive the launcher keeps for a class path and JDK, so that ranks start with
 * their classes already parsed, verified and linked instead of loading four thousand of them from
 * jars, and (on JDK 25 and later) with the method profiles of an earlier run, so that the JIT
 * compiles the data path sooner.
 *
 * <p>JDK 17 to 24: a dynamic CDS archive ({@code -XX:ArchiveClassesAtExit} on one rank of the first
 * run, {@code -XX:SharedArchiveFile} from then on). JDK 25 and later: an ahead-of-time cache (JEP 483
 * and 515) in two steps: local rank 0 of the first run records its configuration
 * ({@code -XX:AOTMode=record}), and once it has exited normally the launcher creates the cache from it
 * ({@code -XX:AOTMode=create}, its output kept off the terminal); from then on every rank uses it
 * ({@code -XX:AOTCache}). The one-step {@code -XX:AOTCacheOutput} is not used: its assembly, a
 * child JVM of rank 0, prints seven lines that {@code -Xlog:aot*=off} does not silence (one of them
 * the whole class path). Either way the first run records on local rank 0 only (the others run as
 * before) and the archive is moved into place once that rank has exited normally; a rank killed or
 * failing leaves nothing behind. HotSpot's one line on the recording rank's output that it recorded
 * the configuration ({@link #isRecordingNotice}) is dropped by the launcher. The archive's name is
 * a hash of the JDK, the class path and each entry's size and modification time, so a rebuilt jar
 * or another JDK gets a new archive; the JVM checks the archive again when it opens it and runs
 * without it if it does not match. Archives live under {@code $RC_CLASS_DATA_DIR}, else
 * {@code $XDG_CACHE_HOME/reactive-collectives/class-data}, else
 * {@code ~/.cache/reactive-collectives/class-data}; the {@value #KEEP} newest are kept.
 *
 * <p>CDS archives only classes from jars: with a directory on the class path there is no archive.
 */
final class ClassDataArchive {

    /** How many archives the cache directory keeps (each is 15-40 MB). */
    static final int KEEP = 6;

    /** How long the launcher waits for an AOT cache to be created before giving up on it. */
    static final long CREATE_TIMEOUT_SECONDS = 300;

    private final Path archive;
    private final Path recording;
    private final Path configuration;
    private final int jdkFeature;
    private final Path javaHome;
    private final String classpath;

    private ClassDataArchive(Path archive, int jdkFeature, Path javaHome, String classpath) {
        this.archive = archive;
        this.recording = archive.resolveSibling(archive.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        this.configuration = recording.resolveSibling(recording.getFileName() + ".config");
        this.jdkFeature = jdkFeature;
        this.javaHome = javaHome;
        this.classpath = classpath;
    }

    /**
     * The archive for children running {@code javaHome}'s JVM (of major version {@code jdkFeature})
     * on {@code classpath}, or empty when the class path holds a directory or no cache directory can
     * be made.
     */
    static Optional<ClassDataArchive> of(String classpath, Path javaHome, String jvmVersion, int jdkFeature,
                                         Map<String, String> env) {
        if (jdkFeature < 17) {
            return Optional.empty();
        }
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update((javaHome + "\n" + jvmVersion + "\n").getBytes(StandardCharsets.UTF_8));
            for (String entry : classpath.split(java.io.File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                Path p = Paths.get(entry);
                if (Files.isDirectory(p)) {
                    return Optional.empty();
                }
                long size = Files.exists(p) ? Files.size(p) : -1;
                long modified = Files.exists(p) ? Files.getLastModifiedTime(p).toMillis() : -1;
                digest.update((p.toAbsolutePath() + "|" + size + "|" + modified + "\n").getBytes(StandardCharsets.UTF_8));
            }
            String key = HexFormat.of().formatHex(digest.digest()).substring(0, 24);
            Path dir = directory(env);
            Files.createDirectories(dir);
            return Optional.of(new ClassDataArchive(dir.resolve("rc-jdk" + jdkFeature + "-" + key
                    + (jdkFeature >= 25 ? ".aot" : ".jsa")), jdkFeature, javaHome, classpath));
        } catch (IOException | NoSuchAlgorithmException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    static Path directory(Map<String, String> env) {
        Path own = ToolsSettings.CLASS_DATA_DIR.get(env);
        if (own != null) {
            return own;
        }
        String xdg = env.get("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isEmpty() ? Paths.get(xdg) : Paths.get(System.getProperty("user.home"), ".cache");
        return base.resolve("reactive-collectives").resolve("class-data");
    }

    /** The archive file. */
    Path file() {
        return archive;
    }

    /** Whether the archive exists (the children use it) or is still to be recorded. */
    boolean exists() {
        return Files.isRegularFile(archive);
    }

    /**
     * The options of the child on {@code localRank}: use the archive where it exists; else record
     * it on local rank 0 (nothing for the others). Archive messages are kept off the ranks' output.
     */
    List<String> options(int localRank) {
        List<String> options = new ArrayList<>();
        boolean aot = jdkFeature >= 25;
        if (exists()) {
            options.add(aot ? "-XX:AOTCache=" + archive : "-XX:SharedArchiveFile=" + archive);
        } else if (localRank == 0 && aot) {
            options.add("-XX:AOTMode=record");
            options.add("-XX:AOTConfiguration=" + configuration);
        } else if (localRank == 0) {
            options.add("-XX:ArchiveClassesAtExit=" + recording);
        } else {
            return options;
        }
        options.add("-Xlog:cds*=off");
        if (aot) {
            options.add("-Xlog:aot*=off");
        }
        return options;
    }

    /**
     * Whether {@code line} of the recording rank's output is HotSpot's notice that it recorded this
     * launch's AOT configuration (printed whatever {@code -Xlog} says).
     */
    boolean isRecordingNotice(String line) {
        return line.strip().equals("AOTConfiguration recorded: " + configuration);
    }

    /**
     * After the children: when local rank 0 exited with {@code code} 0, creates the AOT cache from its
     * recorded configuration (JDK 25 and later; in a JVM with {@code jvmOptions}, those of the
     * ranks, its output discarded) and moves the recorded archive into place; otherwise deletes what
     * was recorded. Keeps the {@value #KEEP} newest archives.
     */
    void finish(int code, List<String> jvmOptions) {
        try {
            if (code == 0 && Files.isRegularFile(configuration)) {
                create(jvmOptions);
            }
            if (Files.isRegularFile(recording)) {
                if (code == 0 && Files.size(recording) > 0) {
                    Files.move(recording, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } else {
                    Files.deleteIfExists(recording);
                }
            }
            prune(archive.getParent());
        } catch (IOException e) {
            // a cache: the next run records again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(configuration);
            } catch (IOException e) {
                // left behind in the cache directory
            }
        }
    }

    /** Creates the AOT cache {@code recording} from {@code configuration}; a failure leaves none. */
    private void create(List<String> jvmOptions) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaHome.resolve("bin").resolve("java").toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + configuration, "-XX:AOTCache=" + recording,
                "-Xlog:cds*=off", "-Xlog:aot*=off", "-cp", classpath));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            if (!p.waitFor(CREATE_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                Files.deleteIfExists(recording);
            }
        } finally {
            p.destroyForcibly();
        }
    }

    private static void prune(Path dir) throws IOException {
        List<Path> archives = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "rc-jdk*")) {
            files.forEach(archives::add);
        }
        archives.removeIf(p -> p.getFileName().toString().contains(".tmp-"));
        if (archives.size() <= KEEP) {
            return;
        }
        archives.sort((a, b) -> Long.compare(modified(b), modified(a)));
        for (Path old : archives.subList(KEEP, archives.size())) {
            Files.deleteIfExists(old);
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
