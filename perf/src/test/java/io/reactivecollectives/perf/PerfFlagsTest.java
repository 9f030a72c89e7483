package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** collectives-perf takes nccl-tests' flags, the spellings it had before, and rejects bad ones before launching. */
class PerfFlagsTest {

    private static CollectivesPerf parse(String... args) {
        CollectivesPerf o = new CollectivesPerf();
        CommandLine cl = Cli.commandLine(o, System.out, System.err);
        cl.parseArgs(args);
        o.validate();
        return o;
    }

    private record Result(int code, String out, String err) {
    }

    /** Runs the command as its main does; a usage error returns before call(), so nothing is launched. */
    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.commandLine(new CollectivesPerf(), new PrintStream(out, true), new PrintStream(err, true)).execute(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void ncclTestsFlagsMeanWhatTheyMeanThere() {
        CollectivesPerf o = parse("-b", "8", "-e", "128M", "-f", "2", "-n", "20", "-w", "3", "-c", "2", "-o", "max",
                "-d", "half", "-a", "1", "-r", "1", "--world", "4");
        assertEquals("all_reduce", o.collective);
        assertEquals("8", o.min);
        assertEquals("128M", o.max);
        assertEquals(2, o.factor());
        assertEquals(0, o.increment());
        assertEquals(20, o.iters, "-n is the iteration count, as in nccl-tests");
        assertEquals(4, o.world, "-n is no longer the world size");
        assertEquals(3, o.warmup);
        assertEquals(2, o.check);
        assertEquals("max", o.op);
        assertEquals("half", o.dtype);
        assertEquals(1, o.average);
        assertEquals(1, o.root);
        assertEquals(1, parse().average, "-a defaults to the mean of the ranks' times, as nccl-tests");
        assertEquals(0, parse().blocking);
        assertEquals(3, parse("-z", "3", "-t", "1", "-g", "1").blocking);
        assertEquals("y.json", parse("-J", "y.json").jsonFile, "-J is nccl-tests' JSON file");

        CollectivesPerf i = parse("broadcast", "-b", "1M", "-e", "4M", "-i", "1M", "-np", "3");
        assertEquals("broadcast", i.collective);
        assertEquals(1 << 20, i.increment(), "-i is the step in bytes, as in nccl-tests");
        assertEquals(3, i.world);
        assertEquals(List.of(1L << 20, 2L << 20, 3L << 20, 4L << 20), Sizes.sweep(1 << 20, 4 << 20, i.factor(), i.increment()));
        assertEquals(List.of(8L, 32L, 128L), Sizes.sweep(8, 200, 4, 0));

        CollectivesPerf long1 = parse("--collective", "reduce_scatter", "--minbytes", "64", "--maxbytes", "1K",
                "--stepfactor", "8", "--iters", "7", "--warmup_iters", "2", "--datatype", "bfloat16", "--average", "0",
                "--csv", "x.csv", "--output_file", "x.json");
        assertEquals("reduce_scatter", long1.collective);
        assertEquals(8, long1.factor());
        assertEquals("x.csv", long1.csvFile);
        assertEquals("x.json", long1.jsonFile);
    }

    @Test
    void theSpellingsBeforeNcclTestsFlagsStillWork() {
        CollectivesPerf o = parse("--op", "all_gather", "--world", "2", "--min", "4", "--max", "1M", "--step", "8",
                "--dtype", "float32", "--iters", "50", "--warmup", "2");
        assertEquals("all_gather", o.collective, "a collective's name given to --op selects it, as before");
        assertEquals("sum", o.op);
        assertEquals("4", o.min);
        assertEquals(8, o.factor());
        assertEquals(50, o.iters);
        o.validate(); // twice, as the launcher and the rank both do: same result
        assertEquals("all_gather", o.collective);
    }

    @Test
    void theRanksGetTheLaunchersOptions() {
        CollectivesPerf o = parse("reduce", "-b", "16", "-e", "1K", "-i", "64", "-n", "9", "-w", "1", "-c", "3",
                "-o", "prod", "-d", "int32", "-a", "2", "-r", "1", "--world", "3", "-F", "a.csv", "--json", "a.json",
                "--algorithm", "binomial_tree");
        List<String> args = PerfLauncher.rankArgs(o);
        CollectivesPerf r = parse(args.toArray(new String[0]));
        assertEquals(o.collective, r.collective);
        assertEquals(o.op, r.op);
        assertEquals(o.min + o.max + o.stepBytes + o.dtype, r.min + r.max + r.stepBytes + r.dtype);
        assertNull(r.stepFactor);
        assertEquals(List.of(o.iters, o.warmup, o.check, o.average, o.root, o.world),
                List.of(r.iters, r.warmup, r.check, r.average, r.root, r.world));
        assertEquals(o.algorithm, r.algorithm);
        assertEquals(o.csvFile + o.jsonFile, r.csvFile + r.jsonFile);
    }

    @Test
    void badArgumentsAreOneLineWithExitCode2BeforeAnythingIsLaunched() {
        String[][] cases = {
            {"--algorithm", "ring", "--op", "broadcast"},
            {"--dtype", "float17"},
            {"-f", "2", "-i", "1M"},
            {"-o", "xor"},
            {"-r", "2", "--world", "2"},
            {"-b", "1M", "-e", "4K"},
            {"-a", "4"},
            {"gatherer"},
            {"-b", "lots"},
            {"-n", "many"},
            {"-o", "avg", "-d", "bool"},
            {"-z", "4"},
            {"-t", "2"},
            {"-g", "8"},
            {"-J", "/nonexistent-dir/x.json"},
            {"-F", "/nonexistent-dir/x.csv"},
            {"-J", System.getProperty("java.io.tmpdir")},
            {"--tls-dir", "/nonexistent-dir"},
            {"--depth", "-1"},
            {"--settle-time-ms", "-1"},
        };
        for (String[] args : cases) {
            Result r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), String.join(" ", args) + ": " + r.err());
            assertTrue(lines.get(0).startsWith("collectives-perf: ") && lines.get(0).endsWith("(see --help)"), lines.get(0));
            assertEquals("", r.out());
        }
        assertTrue(run("-J", "/nonexistent-dir/x.json").err().contains("-J/--json /nonexistent-dir/x.json: the directory /nonexistent-dir does not exist"),
                run("-J", "/nonexistent-dir/x.json").err());
        assertTrue(run("--algorithm", "ring", "--op", "broadcast").err().contains("--algorithm RING does not run broadcast"),
                run("--algorithm", "ring", "--op", "broadcast").err());
    }

    /**
     * The audit: a setting the ranks refuse (RC_RANK_JAVA_OPTS='-Drc.transport.native=bogus', or
     * RC_DISTRIBUTED_DEBUG=loud inherited) started every rank, each of which printed a stack trace of
     * some thirty lines and exited 1; now it is one line and exit code 2 before any rank starts.
     */
    @Test
    void aSettingTheRanksWouldRefuseIsOneLineWithExitCode2BeforeAnyRankStarts() {
        String[][] cases = {
            {"RC_RANK_JAVA_OPTS", "-Xmx1g -Drc.transport.native=bogus",
                "collectives-perf: RC_RANK_JAVA_OPTS: setting rc.transport.native: 'bogus' is not one of auto / nio"},
            {"RC_DISTRIBUTED_DEBUG", "loud", "collectives-perf: environment variable RC_DISTRIBUTED_DEBUG (the ranks "
                + "inherit it): setting rc.distributed.debug: 'loud' is not one of OFF / INFO / DETAIL"}};
        for (String[] c : cases) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CollectivesPerf o = new CollectivesPerf();
            o.environment = java.util.Map.of(c[0], c[1]);
            int code = Cli.commandLine(o, new PrintStream(out, true), new PrintStream(err, true))
                    .execute("--world", "1", "-b", "4", "-e", "4", "-n", "1", "-w", "0");
            List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
            assertEquals(2, code, lines.toString());
            assertEquals(List.of(c[2] + " (see --help)"), lines);
        }
        // valid values, other JVM options, and a variable the ranks' property overrides pass
        assertNull(PerfChecks.rankSettings(java.util.Map.of("RC_RANK_JAVA_OPTS", "-Drc.transport.native=nio "
                + "-Drc.distributed.debug=DETAIL -XX:StartFlightRecording=filename=/tmp/r{rank}.jfr",
                "RC_DISTRIBUTED_DEBUG", "loud", "PATH", "/bin")));
    }

    /**
     * Each bad count or size names its flag and value, and a size over one tensor's 2 GiB is refused
     * before launching (before, -n 0 and -w -1 gave one line listing all five bounds, -b 0 a line naming
     * no flag, and -e 64G started the ranks, whose every one printed IllegalArgumentException's stack
     * trace, exit code 1).
     */
    @Test
    void eachBadCountOrSizeNamesItsFlagAndOversizedTensorsAreRefusedBeforeLaunching() {
        String[][] cases = {
            {"-n", "0", "-n/--iters must be >= 1, got 0"},
            {"-w", "-1", "-w/--warmup_iters must be >= 0, got -1"},
            {"-c", "-2", "-c/--check must be >= 0, got -2"},
            {"--repeat", "0", "--repeat must be >= 1, got 0"},
            {"--min-time-ms", "-5", "--min-time-ms must be >= 0, got -5"},
            {"-b", "0", "-b/--minbytes: size must be positive: '0'"},
            {"-e", "-4", "-e/--maxbytes: size must be positive: '-4'"},
            {"-i", "0", "-i/--stepbytes: size must be positive: '0'"},
            {"-e", "lots", "-e/--maxbytes: not a size: 'lots'"},
            {"-e", "64G", "-e/--maxbytes 64G is over the 2 GiB limit of one tensor (at most 2147483639 bytes)"},
            {"-b", "2G", "-e", "2G", "-e/--maxbytes 2G is over the 2 GiB limit of one tensor"},
            {"--world", "100000000", "--world 100000000 is more rank JVMs than this host's memory holds ("},
        };
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOf(c, c.length - 1);
            Result r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("collectives-perf: " + c[c.length - 1]), String.join(" ", args) + ": " + r.err());
        }
        assertEquals("1G", parse("-e", "1G").max, "1 GiB still runs");
    }

    /** --help names the variable benchmarks.md documents, and its paragraphs wrap as paragraphs (before: ragged pre-cut lines). */
    @Test
    void helpNamesTheRankOptionsVariable() {
        Result r = run("--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("RC_RANK_JAVA_OPTS"), r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.startsWith("and in place)")), r.out());
    }

    @Test
    void envWithoutALaunchersVariablesIsOneLineWithExitCode2() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CollectivesPerf o = new CollectivesPerf();
        o.environment = java.util.Map.of("HOME", "/root");
        int code = Cli.commandLine(o, new PrintStream(out, true), new PrintStream(err, true)).execute("--env", "-b", "4", "-e", "4");
        assertEquals(2, code, err.toString(StandardCharsets.UTF_8));
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("collectives-perf: --env: no launcher environment: start the program with bin/collectives-run"),
                lines.get(0));
        assertEquals("", out.toString(StandardCharsets.UTF_8));

        CollectivesPerf torchrun = new CollectivesPerf();
        torchrun.environment = java.util.Map.of("RANK", "1", "WORLD_SIZE", "3", "LOCAL_RANK", "1", "MASTER_ADDR", "127.0.0.1",
                "MASTER_PORT", "29500");
        CommandLine cl = Cli.commandLine(torchrun, System.out, System.err);
        cl.parseArgs("--env", "-r", "2");
        torchrun.validate();
        assertEquals(3, torchrun.world, "the world size is the launcher's, for -r's check too");
    }

    @Test
    void versionIsTheProjectVersion() {
        Result r = run("--version");
        assertEquals(0, r.code());
        assertEquals("collectives-perf " + io.reactivecollectives.core.Version.get(), r.out().strip());
    }
}
