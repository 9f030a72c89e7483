package io.reactivecollectives.tools.analyze;

import io.reactivecollectives.core.observe.FlightRecorderAnalyzer;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Report;
import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 */
@Command(name = "collectives-analyze", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Says which rank is behind, from the flight-recorder dumps of all ranks.")
public final class FlightRecorderAnalyze implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "PATH",
            description = "dump files, or directories holding flight-recorder-*.json files (a job's directory; "
                    + "the dump directory gives its newest job)")
    List<Path> paths = new ArrayList<>();

    @Option(names = "--group", description = "only this group's dumps")
    String group;

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
        Report report = FlightRecorderAnalyzer.analyze(dumps);
        out.print(report.text());
        boolean clean = report.findings().stream().allMatch(f -> f.kind() == Kind.ALL_COMPLETED);
        return clean ? 0 : 1;
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
     * @return 0 when every rank completed every collective, 1 when the report has findings, 2 for bad
     *         usage or no dump
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.commandLine(new FlightRecorderAnalyze(out, err), out, err).execute(args);
    }
}
