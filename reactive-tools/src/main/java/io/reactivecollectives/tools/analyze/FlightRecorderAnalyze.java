package io.reactivecollectives.tools.analyze;

import io.reactivecollectives.core.observe.ChromeTrace;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Report;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * Reads the flight-recorder dumps of all ranks ({@code flight-recorder-<group>-rank<r>.json}, as
 * written by {@code FlightRecorder} into its job's directory {@code flight-recorder-<job>/}; given the
 * dump directory itself, the newest job's, saying which on the error stream: {@code reading job
 * flight-recorder-20261128-231634-9eee81 (newest of 3 in /tmp; pass its directory to pick another)})
 * and says in plain words who is behind and what does not match:
 * <pre>
 * $ collectives-analyze /tmp/dumps
 * [default] rank 3 never started allReduce seq 42; ranks 0-2 are waiting for it
 *   rank 3: last recorded broadcast seq 41 COMPLETED
 *   rank 0: started 30.012 s before its dump, waiting for rank 3 (recv step 0)
 * </pre>
 * Exit code: 0 when every rank completed every recorded collective, 1 when something is behind,
 * stuck, failed, mismatched or missing, 2 when the dumps cannot be read.
 *
 * <p>With {@code --trace OUT.json} it writes the dumps it read (as {@code --group} selects them) as a
 * Chrome trace ({@link ChromeTrace}: a track per rank, a slice per collective, a flow through the
 * ranks of each collective) for {@code ui.perfetto.dev} or {@code chrome://tracing} instead of the
 * report, says in one line where it went and what it holds, and exits 0; 2 when the dumps cannot be
 * read or the file cannot be written.
 */
@Command(name = "collectives-analyze", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = {"Says which rank is behind, from the flight-recorder dumps of all ranks.",
            "With --trace, writes them as a trace for ui.perfetto.dev or chrome://tracing instead, and says where "
                    + "in one line."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank completed every collective; with --trace: the trace was written",
            "1:something is behind, stuck, failed, mismatched or missing",
            "2:bad usage, no dump, a dump that cannot be read, a trace that cannot be written"})
public final class FlightRecorderAnalyze implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "PATH",
            description = "dump files, or directories holding flight-recorder-*.json files (a job's directory; "
                    + "the dump directory gives its newest job)")
    List<Path> paths = new ArrayList<>();

    @Option(names = "--group", description = "only this group's dumps")
    String group;

    @Option(names = "--trace", paramLabel = "OUT.json",
            description = "write the dumps as a Chrome trace (a track per rank, a slice per collective, a flow "
                    + "linking each collective's ranks in the order they started it) to this file instead of "
                    + "printing the report; open it in ui.perfetto.dev or chrome://tracing")
    Path trace;

    private final PrintStream out;
    private final PrintStream err;

    /** An analyzer that prints to the standard streams. */
    public FlightRecorderAnalyze() {
        this(System.out, System.err);
    }

    /**
     * An analyzer that prints to the given streams.
     *
     * @param out where the report goes
     * @param err where errors go
     */
    public FlightRecorderAnalyze(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        List<FlightRecorderDump> dumps;
        try {
            dumps = FlightRecorderAnalyzer.readAll(paths, err::println);
        } catch (IOException e) {
            err.println(e.getMessage());
            return 2;
        }
        if (group != null) {
            dumps.removeIf(d -> !group.equals(d.groupId()));
        }
        if (dumps.isEmpty()) {
            err.println("no flight-recorder dump found in " + paths + (group != null ? " for group " + group : ""));
            return 2;
        }
        if (trace != null) {
            return writeTrace(dumps);
        }
        Report report = FlightRecorderAnalyzer.analyze(dumps);
        out.print(report.text());
        boolean clean = report.findings().stream().allMatch(f -> f.kind() == Kind.ALL_COMPLETED);
        return clean ? 0 : 1;
    }

    /** Writes the trace to {@link #trace} and says where, in one line: 0, or 2 when it cannot be written. */
    private int writeTrace(List<FlightRecorderDump> dumps) {
        ChromeTrace.Counts c;
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(trace), 1 << 16)) {
            c = ChromeTrace.write(dumps, os);
        } catch (IOException e) {
            err.println("cannot write the trace to " + trace + ": " + why(e));
            return 2;
        }
        out.println("trace of " + count(c.ranks(), "rank") + missing(dumps) + " (" + count(c.collectives(), "collective") + ", "
                + count(c.slices(), "slice") + ", " + count(c.flows(), "flow") + ") written to " + trace
                + "; open it in ui.perfetto.dev or chrome://tracing");
        return 0;
    }

    /**
     * The ranks with no dump: {@code " of 3 (no dump from rank 2)"} for one group, {@code
     * " (no dump from rank 2 of 3 in group train)"} per group for several; empty when none is missing.
     */
    private static String missing(List<FlightRecorderDump> dumps) {
        Map<String, TreeSet<Integer>> have = new TreeMap<>();
        Map<String, Integer> world = new TreeMap<>();
        for (FlightRecorderDump d : dumps) {
            have.computeIfAbsent(d.groupId(), g -> new TreeSet<>()).add(d.rank());
            world.merge(d.groupId(), d.worldSize(), Math::max);
        }
        List<String> notes = new ArrayList<>();
        world.forEach((g, w) -> {
            List<Integer> none = new ArrayList<>();
            for (int r = 0; r < w; r++) {
                if (!have.get(g).contains(r)) {
                    none.add(r);
                }
            }
            if (!none.isEmpty()) {
                notes.add(have.size() == 1 ? " of " + w + " (no dump from " + FlightRecorderAnalyzer.ranks(none) + ")"
                        : "no dump from " + FlightRecorderAnalyzer.ranks(none) + " of " + w + " in group " + g);
            }
        });
        return notes.isEmpty() ? "" : have.size() == 1 ? notes.get(0) : " (" + String.join("; ", notes) + ")";
    }

    /** The file system's reason ({@code Is a directory}), else what went wrong. */
    private static String why(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "its directory does not exist";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the dump files or directories and options (see {@code --help})
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command with the given streams.
     *
     * @param args the dump files or directories and options (see {@code --help})
     * @param out  where the report goes
     * @param err  where errors go
     * @return 0 when every rank completed every collective (with {@code --trace}: the trace was
     *         written), 1 when the report has findings, 2 for bad usage, no dump, or a trace that cannot
     *         be written
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.commandLine(new FlightRecorderAnalyze(out, err), out, err).execute(args);
    }
}
