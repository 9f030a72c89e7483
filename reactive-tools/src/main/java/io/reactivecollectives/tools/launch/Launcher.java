package io.reactivecollectives.tools.launch;

import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * The analogue of {@code torchrun}: starts {@code --nproc-per-node} JVMs running a main class, each
 * with {@code RANK}, {@code LOCAL_RANK}, {@code WORLD_SIZE}, {@code LOCAL_WORLD_SIZE},
 * {@code MASTER_ADDR} and {@code MASTER_PORT} in its environment (and {@code RC_TTY=1} when the
 * launcher's own output is a terminal, so children can draw progress bars), and copies their output with every
 * line prefixed {@code [rank N] }. When a child exits non-zero (or is killed by a signal), it is
 * started again alone while it has restarts left ({@code --max-restarts}, see {@link Restarts}), the
 * others running on; otherwise the others are stopped (SIGTERM, then SIGKILL after the grace period)
 * and the launcher exits with that child's exit code. It exits 0 when all children have. With
 * {@code --agent-store} (or restarts) the launcher of node rank 0 serves the store itself, not rank 0
 * ({@link AgentStore}). The program is a main class of the launcher's class path, or of
 * the user's own class path or jar, which then replaces the launcher's ({@link ChildClassPath}).
 * Every usage error, of the launcher (an option's value, the store's port in use on this node, see
 * {@link StorePort}) or of a picocli main class ({@link MainClassCheck}), is one line on stderr and
 * exit code 2 before any rank starts.
 *
 * <p>The children run with {@code --enable-native-access=ALL-UNNAMED} (the library's native
 * kernels and raw memory use restricted methods, which JDK 22 and later warn about otherwise), and
 * on JDK 24 and later with {@code --sun-misc-unsafe-memory-access=allow} (Netty's shared-memory
 * path), unless a {@code --jvm-arg} says otherwise. Child output is read by plain daemon threads (one per
 * stream), never by an event loop.
 */
@Command(name = "collectives-run", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        customSynopsis = {"collectives-run [options] [--] <main class> [args...]",
                "   or: collectives-run [options] --classpath <app.jar:libs/*> [--] <main class> [args...]",
                "   or: collectives-run [options] <app.jar> [args...]   (main class from its manifest)"},
        description = {"Runs a program on several ranks (JVMs), as torchrun runs a script: a main class of the"
                + " launcher's class path (under bin/collectives-run: the samples and the library), a main class of"
                + " your own class path (--classpath), or your jar (its manifest's Main-Class). Everything after the"
                + " main class or jar goes to the program; a `--` before it is optional.",
                "A class path or jar of your own is used instead of the launcher's, never mixed with it; the library"
                + " (reactive-core, reactive-transport and their run-time dependencies: --library-classpath) is added"
                + " after it unless it brings reactive-core itself, as a fat jar does (then its own copy is the only one);"
                + " bin/collectives-run adds slf4j-simple with it, unless your class path brings an SLF4J binding.",
                "torchrun's spellings are accepted too (--nproc_per_node, --node_rank, --master_addr, --master_port).",
                "A usage error is one line on stderr and exit code 2, before any rank starts; otherwise the exit code"
                + " is 0, the first failing rank's, or 130/143 when SIGINT/SIGTERM stopped the launcher and its ranks.", ""})
public final class Launcher implements Callable<Integer>, Cli.Validated {

    @Option(names = {"--nproc-per-node", "--nproc_per_node"}, paramLabel = "<n>", defaultValue = "1",
            description = "processes (ranks) on this node (default ${DEFAULT-VALUE})")
    int nprocPerNode;

    @Option(names = "--nnodes", paramLabel = "<n>", defaultValue = "1", description = "number of nodes (default ${DEFAULT-VALUE})")
    int nnodes;

    @Option(names = {"--node-rank", "--node_rank"}, paramLabel = "<k>", defaultValue = "0",
            description = "this node's index in [0, nnodes) (default ${DEFAULT-VALUE})")
    int nodeRank;

    @Option(names = {"--master-addr", "--master_addr"}, paramLabel = "<host>", defaultValue = "127.0.0.1",
            description = "address of rank 0's store (default ${DEFAULT-VALUE})")
    String masterAddr;

    @Option(names = {"--master-port", "--master_port"}, paramLabel = "<port>", defaultValue = "0",
            description = {"port of rank 0's store, checked free before any rank starts on node rank 0; 0 picks a free"
                    + " one (single node only; default)"})
    int masterPort;

    @Option(names = {"--classpath", "-cp"}, paramLabel = "<path>",
            description = {"your program's class path (jars, folders, dir/* for a folder's jars) instead of the"
                    + " launcher's; with a jar as the program, added after it"})
    String classpath;

    @Option(names = "--library-classpath", paramLabel = "<path>", defaultValue = "${sys:rc.library.classpath}",
            description = {"what is added after a class path or jar of your own that lacks reactive-core (default:"
                    + " under bin/collectives-run, its build of reactive-core, reactive-transport and their run-time"
                    + " dependencies, and slf4j-simple; else the launcher's own class path; empty: nothing)"})
    String libraryClasspath;

    @Option(names = "--jvm-arg", paramLabel = "<option>", description = {"an option for the child JVMs (repeatable); "
            + "they get " + RankJvmAccess.NATIVE_ACCESS + " (and, on JDK 24 and later, " + RankJvmAccess.UNSAFE_ACCESS
            + ") unless one of these names that option"})
    List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--class-data", paramLabel = "auto|off", defaultValue = "auto",
            description = {"auto: keep a class-data archive per class path and JDK (CDS on JDK 17-24, the AOT cache on 25+),"
                    + " recorded by local rank 0 of the first run and used by every rank after; off: none (default ${DEFAULT-VALUE})"})
    String classData;

    @Option(names = "--jit", paramLabel = "<profile>", defaultValue = "auto",
            description = {"default: the JVM's own JIT settings; focused: compiler directives that keep the optimizing"
                    + " compiler off the JDK's start-up code and compile this library's data path layer by layer (only"
                    + " those methods, not yours), so that ranks reach full speed sooner; lean: the directives and less"
                    + " inlining by the optimizing compiler everywhere, for several ranks per host on few cores (it"
                    + " applies to the whole JVM: measure your own code with it); quick: the quick compiler (C1) alone"
                    + " for the whole JVM, full bandwidth within seconds but your own code stays C1-compiled (for jobs"
                    + " whose Java code only moves arrays); auto: lean when --nproc-per-node exceeds the processors,"
                    + " focused otherwise (default ${DEFAULT-VALUE})"})
    String jit;

    /** What {@code --jit} comes to on this node (set by {@link #validate()}). */
    private JitProfile jitProfile;

    /** The ranks' {@code MASTER_PORT} (set by {@link #validate()}). */
    private int port;

    /** The ranks' class path and main class (set by {@link #validate()}). */
    private ChildClassPath child;

    @Option(names = "--dashboard", paramLabel = "[HOST:]PORT", arity = "0..1", preprocessor = DashboardFlag.Value.class,
            fallbackValue = "" + io.reactivecollectives.transport.DashboardOptions.DEFAULT_PORT,
            description = {"every rank serves its live view (reactive-dashboard) and rank 0 the whole job's page on PORT"
                    + " (" + io.reactivecollectives.transport.DashboardOptions.DEFAULT_PORT + " without a value), on"
                    + " loopback unless HOST is given (then the ranks need a secret, RC_STORE_SECRET); the ranks read it from "
                    + io.reactivecollectives.transport.DashboardOptions.ENV})
    String dashboard;

    /** What {@code --dashboard} comes to (set by {@link #validate()}), or null. */
    private DashboardFlag dashboardFlag;

    @Option(names = {"--max-restarts", "--max_restarts"}, paramLabel = "<n>", defaultValue = "0",
            description = {"how many times a rank whose process fails (exits non-zero or is killed by a signal) is"
                    + " started again, alone, with the same RANK and RC_RESTART_COUNT=k (its k-th restart) while the"
                    + " others keep running; per rank: a rank failing after its n restarts stops the job, which exits"
                    + " with its code. Above 0 it turns --agent-store on (default ${DEFAULT-VALUE}: a failed rank stops"
                    + " the job)"})
    int maxRestarts;

    @Option(names = "--agent-store", description = {"the launcher (of node rank 0) serves the store on --master-port"
            + " instead of rank 0, so that the rendezvous outlives any rank; the ranks get RC_AGENT_STORE=1 (on"
            + " whenever --max-restarts is above 0)"})
    boolean agentStoreFlag;

    @Option(names = "--store-peers", paramLabel = "<host:port,...>", description = {"every node's launcher holds a"
            + " replica of the store (Raft: any minority of nodes, node 0 included, may be lost): one host:port per"
            + " node, in node rank order, where that node's ranks find the store (its replica also uses the next"
            + " port); at least 3 nodes; turns --agent-store on"})
    String storePeersSpec;

    /** What {@code --store-peers} comes to (set by {@link #validate()}), or null. */
    private StorePeers storePeers;

    @Option(names = "--grace-ms", paramLabel = "<ms>", defaultValue = "3000", description = "how long stopped children get before SIGKILL (default ${DEFAULT-VALUE})")
    long graceMillis;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MAIN_CLASS|JAR",
            description = "the main class to run on every rank, or a jar whose manifest names it")
    String mainClass;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "the program's arguments")
    List<String> args = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    private final LineSink outLine;
    private final LineSink errLine;

    /** A launcher that copies the children's output to the standard streams. */
    public Launcher() {
        this(System.out, System.err);
    }

    /**
     * A launcher that copies the children's output to {@code out} and {@code err}.
     *
     * @param out where the ranks' standard output goes, each line prefixed with its rank
     * @param err where the ranks' standard error and the launcher's messages go
     */
    public Launcher(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
        this.outLine = new LineSink(out);
        this.errLine = new LineSink(err);
    }

    /**
     * Runs the launcher and exits with its code.
     *
     * @param argv the launcher's options, {@code --}, the main class and its arguments (see {@code --help})
     */
    public static void main(String[] argv) {
        System.exit(run(argv, System.out, System.err));
    }

    /**
     * Parses {@code argv} and runs; returns the exit code (2 for bad usage, of the launcher or of the
     * main class, found before any rank is launched).
     *
     * @param argv the launcher's options, {@code --}, the main class and its arguments
     * @param out  where the ranks' standard output goes
     * @param err  where the ranks' standard error and the launcher's messages go
     * @return the exit code: 0, the first failing rank's code, or 2 for bad usage
     */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        CommandLine cl = Cli.commandLine(new Launcher(out, err), out, err);
        cl.setStopAtPositional(true); // the main class ends the launcher's options, as torchrun's script does
        CommandLine.IParameterExceptionHandler usual = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((given, rest) -> {
            CommandLine.ParameterException ex = Cli.unknownOptionFirst(given);
            if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                    && u.getUnmatched().get(0).startsWith("-")) {
                err.println(unknownOption(u.getUnmatched().get(0)));
                err.flush();
                return Cli.USAGE;
            }
            return usual.handleParseException(ex, rest);
        });
        return cl.execute(argv);
    }

    /** The one line for an option the launcher does not know, which may be the program's. */
    static String unknownOption(String option) {
        return "collectives-run: unknown option '" + option + "'; options for the program go after its main class,"
                + " or after `--`: collectives-run [options] -- <main class> [args]";
    }

    /** Starts a process of a local rank: its first ({@code restart} 0) or its {@code restart}-th restart. */
    private interface RankStart {
        void start(int local, int restart) throws java.io.IOException;
    }

    /** {@return whether a launcher serves the store: --agent-store, --max-restarts above 0, or --store-peers} */
    private boolean agentStoreOn() {
        return agentStoreFlag || maxRestarts > 0 || storePeers != null;
    }

    @Override
    public void validate() {
        if (!"auto".equals(classData) && !"off".equals(classData)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--class-data must be auto or off, got " + classData);
        }
        try {
            jitProfile = JitProfile.of(jit, nprocPerNode, Runtime.getRuntime().availableProcessors());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        String problem = LaunchNumbers.problem(nprocPerNode, nnodes, nodeRank, graceMillis, maxRestarts, masterAddr,
                masterPort, storePeersSpec != null);
        if (problem != null || (problem = RankJvmAccess.tooManyRanks("--nproc-per-node", nprocPerNode,
                RankJvmAccess.hostMemoryBytes())) != null || (problem = Restarts.quorumProblem(System.getenv())) != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
        try {
            String launcherCp = System.getProperty("java.class.path");
            child = ChildClassPath.resolve(mainClass, classpath, libraryClasspath != null ? libraryClasspath : launcherCp,
                    launcherCp);
            storePeers = StorePeers.parse(storePeersSpec, nnodes);
            port = storePeers != null ? storePeers.port(nodeRank) : StorePort.settle(masterAddr, masterPort, nodeRank, nnodes, System.getenv());
            dashboardFlag = DashboardFlag.of(dashboard, nodeRank, System.getenv());
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        Integer answered = MainClassCheck.check(child.mainClass(), args, child.own() ? child.classPath() : null, out, err);
        if (answered != null) {
            return answered;
        }
        String cp = dashboardFlag == null ? child.classPath() : dashboardFlag.classPath(child);
        java.util.Optional<ClassDataArchive> archive = classDataArchive(cp);
        CompilerDirectives directives = directives();
        int[] localZeroExit = {-1};
        // the same JVM options for every rank (and for the AOT cache's creation after local rank 0)
        List<String> jvmOptions = RankJvmAccess.childJvmOptions(jvmArgs, jitProfile, directives, Runtime.version().feature());
        Restarts restarts = new Restarts(maxRestarts);
        Integer columns = TerminalWidth.columns(System.getenv(), System.console() != null);
        RankProcesses children = new RankProcesses(outLine, errLine, graceMillis);
        RankStart start = (local, restart) -> {
            int rank = nodeRank * nprocPerNode + local;
            Predicate<String> notice = local == 0 && restart == 0 && archive.isPresent() && !archive.get().exists()
                    ? archive.get()::isRecordingNotice : null;
            children.start(rankProcess(local, restart, restarts, cp, jvmOptions, archive, columns), local, restart,
                    prefix(rank), directives != null, notice, restart > 0 ? restarts.admissionWatch(rank) : null);
        };
        Thread cleanup = new Thread(() -> {
            // Ctrl-C: end a progress line (\r-terminated) a child left open, so the shell prompt starts on its own line
            outLine.endOpenLine();
            errLine.endOpenLine();
            err.println("collectives-run: stopped by a signal; stopping the ranks (SIGTERM, SIGKILL after " + graceMillis + " ms)");
            err.flush();
            children.stopOnSignal();
        }, "collectives-run-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        AgentStore store = null;
        try {
            try {
                store = AgentStore.forNode(storePeers, agentStoreOn(), nodeRank, port, System.getenv());
            } catch (IllegalArgumentException e) {
                err.println("collectives-run: " + e.getMessage());
                return Cli.USAGE;
            }
            port = store != null ? store.port() : port;
            if (dashboardFlag != null && nodeRank == 0) {
                out.println("collectives-run: the job's dashboard: " + dashboardFlag.url() + " (served by rank 0)");
            }
            String quorumWarning = nodeRank == 0 ? restarts.quorumWarning(nnodes * nprocPerNode, System.getenv()) : null;
            if (quorumWarning != null) {
                err.println(quorumWarning);
            }
            for (int local = 0; local < nprocPerNode; local++) {
                start.start(local, 0);
            }
            int result = 0, whole = nnodes == 1 ? nprocPerNode : 0;   // whole: the job's ranks are all here
            boolean stopping = false, joinersStopped = false;
            for (int running = nprocPerNode; running > 0; ) {
                RankProcesses.Exit e = children.take();
                if (children.signalled()) {   // the launcher's SIGINT/SIGTERM stops them: no failure to report
                    running--;
                    continue;
                }
                int rank = nodeRank * nprocPerNode + e.localRank();
                restarts.exited(rank, e.restart());
                if (e.localRank() == 0 && e.restart() == 0) {
                    localZeroExit[0] = e.code();
                }
                if (e.code() == 0 || joinersStopped || (!stopping && restarts.othersFinished(rank, whole))) {
                    if (e.code() != 0 && !joinersStopped) {
                        err.println(restarts.lateLine(rank, e.code()));
                    }
                    restarts.finished(rank);
                    running--;
                    if (!joinersStopped && !stopping && restarts.onlyJoinersLeft(whole)) {
                        joinersStopped = true;
                        restarts.stopJoiners(whole, children, graceMillis, err);
                    }
                    continue;
                }
                if (!stopping && restarts.mayRestart(rank) && !restarts.noMemberLeft(rank, whole)) {
                    restarts.restart(rank);
                    err.println(restarts.restartLine(rank, e.code()));
                    err.flush();
                    start.start(e.localRank(), restarts.count(rank));
                    continue;
                }
                running--;
                if (e.code() != 0 && !stopping) {
                    stopping = true;
                    result = e.code();
                    err.println(restarts.mayRestart(rank) ? restarts.noMemberLine(rank, e.code())
                            : restarts.limitLine(rank, e.code()));
                    children.terminate();
                }
            }
            String summary = restarts.summary();
            if (summary != null) {
                err.println(summary);
            }
            children.joinPumps();
            out.flush();
            err.flush();
            return result;
        } finally {
            children.close();
            if (store != null) {
                store.close();
            }
            archive.ifPresent(a -> a.finish(localZeroExit[0], jvmOptions));
            if (directives != null) {
                directives.delete();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    /**
     * The process of local rank {@code local}: its first ({@code restart} 0) or its {@code restart}-th
     * restart, with the launch's variables, the restart variables and those of the options.
     */
    private ProcessBuilder rankProcess(int local, int restart, Restarts restarts, String cp, List<String> jvmOptions,
                                       java.util.Optional<ClassDataArchive> archive, Integer columns) {
        int rank = nodeRank * nprocPerNode + local;
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        // a restart uses the archive where it exists; only local rank 0's first process records it
        archive.ifPresent(a -> cmd.addAll(a.options(restart == 0 ? local : -1)));
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(child.mainClass());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.put("RANK", Integer.toString(rank));
        env.put("LOCAL_RANK", Integer.toString(local));
        env.put("WORLD_SIZE", Integer.toString(nnodes * nprocPerNode));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(nprocPerNode));
        env.put("GROUP_RANK", Integer.toString(nodeRank));
        env.put("MASTER_ADDR", storePeers != null ? storePeers.host(nodeRank) : masterAddr);
        env.put("MASTER_PORT", Integer.toString(port));
        env.putAll(restarts.environment(rank));
        if (agentStoreOn()) {
            env.put(AgentStore.childVariable().getKey(), AgentStore.childVariable().getValue());
        }
        if (dashboardFlag != null) {
            env.put(io.reactivecollectives.transport.DashboardOptions.ENV, dashboardFlag.spec());
        }
        // children write to pipes; tell them whether their output ends up on a terminal
        env.put("RC_TTY", System.console() != null ? "1" : "0");
        if (columns != null) {
            // what is left of the terminal's width after the prefix
            env.put("COLUMNS", Integer.toString(TerminalWidth.forChild(columns, prefix(rank))));
        }
        return pb;
    }

    private static String prefix(int rank) {
        return "[rank " + rank + "] ";
    }

    /** The compiler directives of this launch, or null (see {@link CompilerDirectives#forLaunch}). */
    private CompilerDirectives directives() {
        try {
            return CompilerDirectives.forLaunch(jitProfile, jvmArgs);
        } catch (java.io.UncheckedIOException e) {
            err.println("collectives-run: " + e.getMessage() + "; the ranks run without them");
            return null;
        }
    }

    /**
     * The class-data archive of this launch: none with {@code --class-data off}, or when the
     * children's options already choose an archive ({@code -XX:SharedArchiveFile}, {@code -XX:AOTCache}...).
     */
    private java.util.Optional<ClassDataArchive> classDataArchive(String cp) {
        boolean own = jvmArgs.stream().anyMatch(a -> a.startsWith("-XX:SharedArchiveFile") || a.startsWith("-XX:ArchiveClassesAtExit")
                || a.startsWith("-XX:AOTCache") || a.startsWith("-XX:AOTMode") || a.startsWith("-Xshare"));
        if (own || "off".equals(classData)) {
            return java.util.Optional.empty();
        }
        int feature = Runtime.version().feature();
        return recordable(ClassDataArchive.of(cp, Paths.get(System.getProperty("java.home")),
                System.getProperty("java.vm.version"), feature, System.getenv()), jitProfile, feature);
    }

    /**
     * {@code archive}, except that a {@link JitProfile#QUICK quick} launch on JDK 25 and later only uses
     * an AOT cache that exists: its ranks never profile methods, so the cache it recorded would hold no
     * method profiles for the launches after it that share the cache.
     */
    static java.util.Optional<ClassDataArchive> recordable(java.util.Optional<ClassDataArchive> archive, JitProfile jit,
                                                           int jdkFeature) {
        return jit == JitProfile.QUICK && jdkFeature >= 25 ? archive.filter(ClassDataArchive::exists) : archive;
    }
}
