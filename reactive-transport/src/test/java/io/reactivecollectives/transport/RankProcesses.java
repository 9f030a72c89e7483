package io.reactivecollectives.transport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank processes of one test: {@code world} JVMs of a main class (small heap, serial GC, C1 only,
 * logging at warn), started as {@code main <store file> <rank> <args...>} against one file store,
 * each writing to a log file of its own. Closing kills what still runs and deletes the files.
 */
final class RankProcesses implements AutoCloseable {

    private final Path dir;
    private final Path storeFile;
    private final List<Process> procs = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    private RankProcesses(String name) throws IOException {
        this.dir = Files.createTempDirectory("rc-" + name);
        this.storeFile = dir.resolve("store");
    }

    /**
     * Starts the ranks; {@code options} gives each rank's extra JVM options.
     *
     * @param name    names the temporary files
     * @param world   how many ranks
     * @param main    the class each runs
     * @param options rank -> extra JVM options
     * @param args    arguments after the store file and the rank
     */
    static RankProcesses start(String name, int world, Class<?> main, IntFunction<List<String>> options, String... args)
            throws IOException {
        RankProcesses p = new RankProcesses(name);
        try {
            for (int r = 0; r < world; r++) {
                Path log = Files.createTempFile("rc-" + name + "-rank" + r, ".log");
                p.logs.add(log);
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
                cmd.addAll(options.apply(r));
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName(),
                        p.storeFile.toString(), String.valueOf(r)));
                cmd.addAll(List.of(args));
                p.procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
        } catch (IOException | RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** Rank {@code r}'s log so far. */
    String log(int r) throws IOException {
        return Files.readString(logs.get(r), StandardCharsets.UTF_8);
    }

    /**
     * Waits up to {@code timeout} for each rank and asserts that every one exited with 0.
     *
     * @return every rank's log, each under a {@code --- rank r:} line, for messages
     */
    String assertAllSucceed(Duration timeout) throws IOException, InterruptedException {
        boolean[] exited = new boolean[procs.size()];
        for (int r = 0; r < procs.size(); r++) {
            exited[r] = procs.get(r).waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        StringBuilder all = new StringBuilder();
        for (int r = 0; r < procs.size(); r++) {
            all.append("--- rank ").append(r).append(":\n").append(log(r));
        }
        for (int r = 0; r < procs.size(); r++) {
            assertTrue(exited[r], "rank " + r + " did not finish:\n" + all);
            assertEquals(0, procs.get(r).exitValue(), "rank " + r + " failed:\n" + all);
        }
        return all.toString();
    }

    @Override
    public void close() throws IOException {
        procs.forEach(Process::destroyForcibly);
        Files.deleteIfExists(storeFile);
        Files.deleteIfExists(dir);
        for (Path l : logs) {
            Files.deleteIfExists(l);
        }
    }
}
