package io.reactivecollectives.tools.launch;

import io.reactivecollectives.core.Version;
import io.reactivecollectives.tools.cli.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static io.reactivecollectives.tools.launch.LaunchResult.launch;
import static io.reactivecollectives.tools.launch.LaunchResult.oneRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher answers --help, --version and bad arguments of a picocli main class once, before
 * any rank is launched; it takes torchrun's spellings; it hands the ranks the terminal's width.
 */
class LauncherArgumentsTest {

    /** A picocli main that says when it was launched; {@code --mode} must be {@code a} or {@code b}. */
    @Command(name = "stub-tool", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class)
    public static final class StubTool implements Runnable, Cli.Validated {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--mode", defaultValue = "a")
        String mode;

        @Option(names = "--count", defaultValue = "1")
        int count;

        @Override
        public void validate() {
            if (!mode.equals("a") && !mode.equals("b")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--mode " + mode + " is not one of a, b");
            }
        }

        @Override
        public void run() {
            System.out.println("LAUNCHED rank " + System.getenv("RANK"));
        }

        public static void main(String[] args) {
            System.exit(Cli.execute(new StubTool(), args));
        }
    }

    /** Prints the COLUMNS it was given. */
    public static final class ColumnsChild {
        public static void main(String[] args) {
            System.out.println("columns=" + System.getenv("COLUMNS"));
        }
    }

    /** Prints the inlining limits its JVM runs with. */
    public static final class JitChild {
        public static void main(String[] args) {
            var hs = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            System.out.println("MaxInlineLevel=" + hs.getVMOption("MaxInlineLevel").getValue()
                    + " FreqInlineSize=" + hs.getVMOption("FreqInlineSize").getValue());
        }
    }

    /** Prints the compiler level it stops at and whether it was given compiler directives. */
    public static final class QuickChild {
        public static void main(String[] args) {
            var hs = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            boolean directed = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(a -> a.startsWith("-XX:CompilerDirectivesFile"));
            System.out.println("TieredStopAtLevel=" + hs.getVMOption("TieredStopAtLevel").getValue() + " directives=" + directed);
        }
    }

    /** Launches one rank of {@code main} with {@code options}; it must exit 0 having printed {@code expected} alone. */
    private static void assertRankPrints(String expected, Class<?> main, String... options) {
        LaunchResult r = oneRank(main, options);
        assertEquals(0, r.code(), r.err());
        assertEquals(expected, r.out().strip());
    }

    private static void assertOneLineUsageError(LaunchResult r, String startsWith) {
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).startsWith(startsWith), lines.get(0));
        assertFalse(r.out().contains("LAUNCHED") || r.out().contains("[rank") || r.err().contains("[rank"),
                "no rank launched: " + r.out() + r.err());
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aBadValueOfTheMainClassIsOneLineAndExitCode2WithNothingLaunched() {
        LaunchResult r = launch("--nproc-per-node", "2", "--", StubTool.class.getName(), "--mode", "fp32");
        assertOneLineUsageError(r, "stub-tool: --mode fp32 is not one of a, b");
        r = launch("--nproc-per-node", "2", "--", StubTool.class.getName(), "--count", "many");
        assertOneLineUsageError(r, "stub-tool: Invalid value for option '--count'");
        r = launch("--nproc-per-node", "2", "--", StubTool.class.getName(), "--bogus");
        assertOneLineUsageError(r, "stub-tool: Unknown option: '--bogus'");
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void helpAndVersionOfTheMainClassArePrintedOnceWithNothingLaunched() {
        LaunchResult help = launch("--nproc-per-node", "3", "--", StubTool.class.getName(), "--help");
        assertEquals(0, help.code(), help.err());
        assertEquals(1, help.out().split("Usage: stub-tool", -1).length - 1, help.out());
        assertFalse(help.out().contains("[rank"), help.out());
        LaunchResult version = launch("--nproc-per-node", "3", "--", StubTool.class.getName(), "--version");
        assertEquals(0, version.code(), version.err());
        assertEquals("stub-tool " + Version.get(), version.out().strip());
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void theLaunchersOwnVersionAndErrors() {
        LaunchResult version = launch("--version");
        assertEquals(0, version.code());
        assertEquals("collectives-run " + Version.get(), version.out().strip());
        assertTrue(Version.get().matches("\\d+\\.\\d+.*"), Version.get());
        assertOneLineUsageError(launch("--nproc-per-node", "0", "--", StubTool.class.getName()),
                "collectives-run: --nproc-per-node must be >= 1, got 0 (see --help)");
        assertOneLineUsageError(launch("--nnodes", "0", "--", StubTool.class.getName()),
                "collectives-run: --nnodes must be >= 1, got 0 (see --help)");
        assertOneLineUsageError(launch("--nnodes", "2", "--node-rank", "2", "--master-port", "29500", "--", StubTool.class.getName()),
                "collectives-run: --node-rank must be in [0, --nnodes 2), got 2 (see --help)");
        assertOneLineUsageError(launch("--", "no.such.Main"), "collectives-run: no main class no.such.Main");
    }

    /**
     * More ranks than this host's memory holds is a usage error, before any rank starts: before,
     * --nproc-per-node 100000000 started JVMs until the host ran out of memory or processes.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void moreRanksThanTheHostsMemoryHoldsIsOneLineAndExitCode2() {
        assertEquals("--nproc-per-node 65 is more rank JVMs than this host's memory holds (2048 MiB, at least 32 MiB a rank:"
                + " at most 64)", RankJvmAccess.tooManyRanks("--nproc-per-node", 65, 2048L << 20));
        assertEquals(null, RankJvmAccess.tooManyRanks("--nproc-per-node", 64, 2048L << 20));
        assertEquals(null, RankJvmAccess.tooManyRanks("--nproc-per-node", 8, Long.MAX_VALUE));
        assertTrue(RankJvmAccess.hostMemoryBytes() > (64L << 20), "read this host's memory");
        assertOneLineUsageError(launch("--nproc-per-node", "100000000", "--", StubTool.class.getName()),
                "collectives-run: --nproc-per-node 100000000 is more rank JVMs than this host's memory holds (");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void everyMistakeOfTheLaunchersOwnIsOneLineAndExitCode2BeforeAnyRankStarts() throws Exception {
        String main = StubTool.class.getName();
        assertOneLineUsageError(launch("--master-port", "70000", "--", main),
                "collectives-run: --master-port 70000 is not a port (0 to 65535) (see --help)");
        assertOneLineUsageError(launch("--master-port", "-1", "--", main), "collectives-run: --master-port -1 is not a port");
        assertOneLineUsageError(launch("--master-port", "http", "--", main),
                "collectives-run: Invalid value for option '--master-port': 'http' is not an int (see --help)");
        assertOneLineUsageError(launch("--nproc-per-node"),
                "collectives-run: Missing required parameter for option '--nproc-per-node' (<n>) (see --help)");
        assertOneLineUsageError(launch("--nproc-per-node", "2"), "collectives-run: Missing required parameter: 'MAIN_CLASS|JAR'");
        assertOneLineUsageError(launch("--grace-ms", "-5", "--", main), "collectives-run: --grace-ms must be >= 0, got -5 (see --help)");
        assertOneLineUsageError(launch("--max-restarts", "-1", "--", main),
                "collectives-run: --max-restarts must be >= 0, got -1 (see --help)");
        assertOneLineUsageError(launch("--max_restarts", "-2", "--", main),
                "collectives-run: --max-restarts must be >= 0, got -2 (see --help)");
        assertOneLineUsageError(launch("--max-restarts", "many", "--", main),
                "collectives-run: Invalid value for option '--max-restarts': 'many' is not an int (see --help)");
        assertOneLineUsageError(launch("--nnodes", "2", "--store-peers", "a:1,b:2", "--", main),
                "collectives-run: --store-peers needs at least 3 nodes (a store held by 2 survives no loss: a majority"
                        + " of 2 is all of them); with fewer nodes use --agent-store (see --help)");
        assertOneLineUsageError(launch("--nnodes", "3", "--store-peers", "a:1,b:2", "--", main),
                "collectives-run: --store-peers names 2 stores for --nnodes 3: one per node, in node rank order (see --help)");
        assertOneLineUsageError(launch("--nnodes", "3", "--store-peers", "a:1,b:x,c:3", "--", main),
                "collectives-run: --store-peers: 'b:x' is not host:port (a port from 1 to 65534: the replica uses the"
                        + " next one too) (see --help)");
        assertOneLineUsageError(launch("--nnodes", "3", "--store-peers", "a:1,a:1,c:3", "--", main),
                "collectives-run: --store-peers names one store twice: a:1,a:1,c:3 (see --help)");
        assertOneLineUsageError(launch("--master-addr", "no-such-host.invalid", "--", main),
                "collectives-run: --master-addr no-such-host.invalid is not a known host (see --help)");
        // an option of the program before its main class: a hint where it goes
        LaunchResult steps = launch("--nproc-per-node", "2", "--steps", "5", "--", main);
        assertOneLineUsageError(steps, Launcher.unknownOption("--steps"));
        assertEquals("collectives-run: unknown option '--steps'; options for the program go after its main class, or after `--`:"
                + " collectives-run [options] -- <main class> [args]", steps.err().strip());
        // after the main class, `--` or not, options are the program's
        assertOneLineUsageError(launch("--nproc-per-node", "2", main, "--bogus"), "stub-tool: Unknown option: '--bogus'");
        // the port of rank 0's store in use on this node: one line, before any rank starts
        try (java.net.ServerSocket taken = new java.net.ServerSocket()) {
            taken.setReuseAddress(true);
            taken.bind(new java.net.InetSocketAddress("0.0.0.0", 0));
            int port = taken.getLocalPort();
            assertOneLineUsageError(launch("--nproc-per-node", "2", "--master-port", Integer.toString(port), "--", main),
                    "collectives-run: --master-port " + port + " is in use on this host (another job's store?); stop that"
                            + " job or pick another port, or leave --master-port out for a free one (see --help)");
            assertOneLineUsageError(launch("--nnodes", "2", "--master-port", Integer.toString(port), "--", main),
                    "collectives-run: --master-port " + port + " is in use on this host (another job's store?); stop that"
                            + " job or pick another port (see --help)");
            // another node serves the store: nothing to probe here
            LaunchResult other = launch("--nnodes", "2", "--node-rank", "1", "--master-port", Integer.toString(port),
                    "--", main);
            assertEquals(0, other.code(), other.err());
            assertEquals("[rank 1] LAUNCHED rank 1", other.out().strip());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void torchrunSpellingsAreAccepted() {
        LaunchResult r = launch("--nproc_per_node", "2", "--nnodes", "2", "--node_rank", "1", "--master_addr", "127.0.0.1",
                "--master_port", "29513", "--", LauncherTest.EnvChild.class.getName());
        assertEquals(0, r.code(), r.err());
        Set<String> lines = new TreeSet<>(r.out().lines().toList());
        assertEquals(Set.of(
                "[rank 2] rank=2 local=0 world=4 addr=127.0.0.1 port=29513 args=",
                "[rank 3] rank=3 local=1 world=4 addr=127.0.0.1 port=29513 args="), lines);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theRanksGetTheTerminalWidthLessTheirPrefix() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--nproc-per-node", "1", "--", ColumnsChild.class.getName());
        pb.environment().put("COLUMNS", "60");
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        File outFile = File.createTempFile("columns", ".txt");
        outFile.deleteOnExit();
        pb.redirectOutput(outFile);
        Process p = pb.start();
        assertTrue(p.waitFor(25, TimeUnit.SECONDS));
        String out = Files.readString(outFile.toPath());
        assertEquals(0, p.exitValue(), out);
        // 60 columns less "[rank 0] " (9)
        assertEquals("[rank 0] columns=51", out.strip());
    }

    @Test
    void terminalWidthAndOpenProgressLines() {
        assertEquals(120, TerminalWidth.columns(java.util.Map.of("COLUMNS", "120"), false));
        assertEquals(80, TerminalWidth.columns(java.util.Map.of(), true));
        assertEquals(null, TerminalWidth.columns(java.util.Map.of("COLUMNS", "x"), false));
        assertEquals(71, TerminalWidth.forChild(80, "[rank 0] "));
        assertEquals(TerminalWidth.MIN_CHILD, TerminalWidth.forChild(10, "[rank 12] "));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LineSink sink = new LineSink(new PrintStream(bytes, true));
        byte[] pre = "[rank 0] ".getBytes(StandardCharsets.UTF_8);
        byte[] bar = "train 10% [==   ]\r".getBytes(StandardCharsets.UTF_8);
        sink.write(pre, bar, bar.length);
        assertTrue(sink.lineOpen());
        sink.endOpenLine();
        assertFalse(sink.lineOpen());
        sink.endOpenLine(); // nothing more: the line is ended once
        assertEquals("[rank 0] train 10% [==   ]\r" + System.lineSeparator(), bytes.toString(StandardCharsets.UTF_8));
        byte[] line = "done\n".getBytes(StandardCharsets.UTF_8);
        sink.write(pre, line, line.length);
        assertFalse(sink.lineOpen());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theLeanJitProfileReachesTheRanksAndTheUsersOwnOptionWins() {
        assertRankPrints("[rank 0] MaxInlineLevel=6 FreqInlineSize=100", JitChild.class, "--jit", "lean");
        assertRankPrints("[rank 0] MaxInlineLevel=9 FreqInlineSize=100", JitChild.class, "--jit", "LEAN", "--jvm-arg=-XX:MaxInlineLevel=9");
        LaunchResult plain = oneRank(JitChild.class, "--jit", "auto");
        assertEquals(0, plain.code(), plain.err());
        assertFalse(plain.out().contains("MaxInlineLevel=6"), plain.out());
        assertOneLineUsageError(launch("--jit", "fast", "--", JitChild.class.getName()),
                "collectives-run: --jit must be auto, default, focused, lean or quick, got fast");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theQuickJitProfileStopsTheRanksAtC1WithoutDirectivesAndTheUsersOwnLevelWins() {
        assertRankPrints("[rank 0] TieredStopAtLevel=1 directives=false", QuickChild.class, "--jit", "quick");
        assertRankPrints("[rank 0] TieredStopAtLevel=2 directives=false", QuickChild.class, "--jit", "Quick", "--jvm-arg=-XX:TieredStopAtLevel=2");
        assertRankPrints("[rank 0] TieredStopAtLevel=4 directives=true", QuickChild.class, "--jit", "focused");
        assertEquals(List.of("-Drc.jit.directives=false", "-XX:TieredStopAtLevel=1"), JitProfile.QUICK.options(List.of(), null));
        assertEquals(JitProfile.QUICK, JitProfile.of("quick", 1, 16));
        assertEquals(JitProfile.QUICK, JitProfile.of("QUICK", 8, 2));
    }

    @Test
    void autoIsLeanWhenANodeRunsMoreRanksThanItHasProcessorsAndFocusedOtherwise() {
        assertEquals(JitProfile.LEAN, JitProfile.of("auto", 4, 2));
        assertEquals(JitProfile.FOCUSED, JitProfile.of("auto", 2, 2));
        assertEquals(JitProfile.FOCUSED, JitProfile.of("AUTO", 1, 16));
        assertEquals(JitProfile.LEAN, JitProfile.of("lean", 1, 16));
        assertEquals(JitProfile.FOCUSED, JitProfile.of("Focused", 8, 2));
        assertEquals(JitProfile.DEFAULT, JitProfile.of("default", 8, 2));
        assertEquals(List.of("-Drc.jit.directives=false"), JitProfile.DEFAULT.options(List.of(), null));
        assertEquals(List.of(), JitProfile.DEFAULT.options(List.of("-Drc.jit.directives=true"), null));
        assertEquals(List.of("-XX:FreqInlineSize=100", "-XX:InlineSmallCode=1000"),
                JitProfile.LEAN.options(List.of("-XX:MaxInlineLevel=12"), null));
    }

    /** JDK 24 and later keep Netty's Unsafe (and so shared memory) for the ranks; earlier JDKs do not know the flag. */
    @Test
    void ranksOnJdk24AndLaterGetUnsafeMemoryAccessUnlessTheUserSaysOtherwise() {
        assertEquals(List.of(RankJvmAccess.NATIVE_ACCESS), RankJvmAccess.childJvmOptions(List.of(), JitProfile.FOCUSED, null, 17));
        assertEquals(List.of(RankJvmAccess.NATIVE_ACCESS), RankJvmAccess.childJvmOptions(List.of(), JitProfile.FOCUSED, null, 23));
        assertEquals(List.of(RankJvmAccess.NATIVE_ACCESS, RankJvmAccess.UNSAFE_ACCESS),
                RankJvmAccess.childJvmOptions(List.of(), JitProfile.FOCUSED, null, 25));
        List<String> own = List.of("--sun-misc-unsafe-memory-access=deny", "--enable-native-access=io.reactivecollectives.core");
        assertEquals(own, RankJvmAccess.childJvmOptions(own, JitProfile.FOCUSED, null, 25), "the user's own choice, alone");
    }
}
