package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.transport.decision.AllGatherDecision;
import io.reactivecollectives.transport.decision.AllReduceDecision;
import io.reactivecollectives.transport.decision.AllToAllDecision;
import io.reactivecollectives.transport.decision.BarrierDecision;
import io.reactivecollectives.transport.decision.BroadcastDecision;
import io.reactivecollectives.transport.decision.DecisionTable;
import io.reactivecollectives.transport.decision.GatherDecision;
import io.reactivecollectives.transport.decision.ReduceDecision;
import io.reactivecollectives.transport.decision.ReduceScatterDecision;
import io.reactivecollectives.transport.decision.ScatterDecision;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The benchmark CLI, with NVIDIA nccl-tests' flags and output, line for line ({@link NcclTestsFormat}):
 * the {@code #} header, a row per size with {@code size count type redop root} and the out-of-place
 * and in-place {@code time algbw busbw #wrong}, then {@code # Out of bounds values} and
 * {@code # Avg bus bandwidth}; {@code --extended} adds our own {@code #} lines.
 *
 * <p>Run without {@code --rank}, it is the launcher: it checks every option, starts an embedded TCP
 * store, launches {@code --world} rank JVMs of itself on this host, relays rank 0's table and exits
 * with the first failing rank's exit code (1 when a check found wrong values). Each rank times
 * {@code -n} back-to-back collectives per size and place (a tenth of them, at least 5, from 1 MiB
 * up, as the peers' scripts do) after warm-up, in batches until {@code --min-time-ms}, and {@code -a}
 * says how the ranks' times combine (default the mean, as nccl-tests). busbw uses nccl-tests' bus
 * factors. {@code -c} checks the results.
 */
@Command(name = "collectives-perf", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        sortOptions = false,
        description = {"Collective benchmarks with nccl-tests' flags and output, line for line, so that its parsers read ours:"
                + " its # header, a row per size (size count type redop root, then time algbw busbw #wrong out of place"
                + " and in place) and its footer. --extended adds our own # lines.",
                "In place: all_gather's input is its output's slot, reduce_scatter's output its input's slot (gather,"
                + " scatter: at the root); all_reduce, broadcast, reduce (one tensor) and all_to_all: the one call both times.",
                "The collective is the first argument (all_reduce for all_reduce_perf) or --collective; the world size"
                + " is --world (nccl-tests takes it from mpirun -np; -n is the iteration count, as there).",
                "RC_RANK_JAVA_OPTS adds options to every rank JVM ({rank} becomes the rank). Exit code 0; 1 when a"
                + " rank fails or -c finds a wrong value; 2 for a bad option, before any rank starts.", ""})
public final class CollectivesPerf implements Callable<Integer>, Cli.Validated {

    /** The reductions {@code -o} takes, as nccl-tests names them. */
    static final List<String> REDUCTIONS = List.of("sum", "prod", "min", "max", "avg");

    @Parameters(index = "0", arity = "0..1", paramLabel = "COLLECTIVE",
            description = "all_reduce, broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter or barrier (default all_reduce)")
    String collectiveArg;

    @Option(names = "--collective", description = "the collective, as the first argument")
    String collectiveOption;

    @Option(names = {"-o", "--op"}, defaultValue = "sum",
            description = "reduction: sum, prod, min, max or avg (default ${DEFAULT-VALUE}); a collective's name here selects the collective, as before")
    String op;

    @Option(names = {"--world", "-np", "--np"}, defaultValue = "2", description = "rank processes (default ${DEFAULT-VALUE})")
    int world;

    @Option(names = {"-b", "--minbytes", "--min"}, defaultValue = "4", description = "smallest size in bytes, K/M/G suffixes allowed (default ${DEFAULT-VALUE})")
    String min;

    @Option(names = {"-e", "--maxbytes", "--max"}, defaultValue = "64M", description = "largest size in bytes (default ${DEFAULT-VALUE})")
    String max;

    @Option(names = {"-f", "--stepfactor", "--step"}, description = "size multiplication factor (default 4 unless -i)")
    Integer stepFactor;

    @Option(names = {"-i", "--stepbytes"}, description = "fixed size increment in bytes instead of -f")
    String stepBytes;

    @Option(names = {"-d", "--datatype", "--dtype"}, defaultValue = "float32",
            description = "element type: float (float32), half (float16), bfloat16, double (float64), int8, uint8, int32, int64 (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = {"-r", "--root"}, defaultValue = "0", description = "root of broadcast, reduce, gather, scatter (default ${DEFAULT-VALUE})")
    int root;

    @Option(names = {"-n", "--iters"}, defaultValue = "200", description = "collectives in the first batch below 1 MiB, a tenth (>= 5) from 1 MiB; a batch under 50 ms calibrates (not timed, the next ten times as long) (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = {"-w", "--warmup_iters", "--warmup-iters", "--warmup"}, defaultValue = "5", description = "warm-up iterations per round (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = {"-c", "--check"}, defaultValue = "1", description = "check the results this many times per size and place, "
            + "after timing it; #wrong counts the wrong elements; 0: no check, #wrong N/A (default ${DEFAULT-VALUE})")
    int check;

    @Option(names = {"-a", "--average"}, defaultValue = "1",
            description = "time reported: 0 rank 0's, 1 the mean, 2 the least, 3 the greatest of the ranks' (default ${DEFAULT-VALUE}, as nccl-tests)")
    int average;

    @Option(names = {"-z", "--blocking"}, defaultValue = "0",
            description = "0 or 2: each call waits for the one before (a Mono has no stream to queue on); 1: and a barrier after "
                    + "each, timed; 3: and a barrier after each, not timed (default ${DEFAULT-VALUE})")
    int blocking;

    @Option(names = {"-t", "--nthreads"}, defaultValue = "1", description = "threads per process: 1 (a rank is a JVM)")
    int nthreads;

    @Option(names = {"-g", "--ngpus"}, defaultValue = "1", description = "devices per thread: 1")
    int ngpus;

    @Option(names = {"-F", "--csv"}, paramLabel = "FILE", description = "also write the rows, both places, as CSV to FILE")
    String csvFile;

    @Option(names = {"-J", "--output_file", "--json"}, paramLabel = "FILE",
            description = "also write the run and its rows as JSON to FILE (our fields, not nccl-tests' JSON)")
    String jsonFile;

    @Option(names = "--extended", description = "also print our own # lines: the transport, algorithm, JVM and timing "
            + "(after the nThread line), and how long the first size warmed up")
    boolean extended;

    @Option(names = "--algorithm", defaultValue = "AUTO", description = "force an algorithm: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    Algorithm algorithm;

    @Option(names = "--repeat", defaultValue = "1", description = "time each size this many times and report the median (default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--min-time-ms", defaultValue = "500",
            description = "each timing runs batches until the timed ones (50 ms or longer) add up to at least this long (default ${DEFAULT-VALUE})")
    long minTimeMs;

    @Option(names = "--segment", defaultValue = "default",
            description = "the group's pipelined segment size in bytes, K/M suffixes allowed (default: the group's own)")
    String segment;

    @Option(names = "--depth", defaultValue = "0", description = "the group's pipeline depth (default: the group's own)")
    int depth;

    @Option(names = "--socket-buffer", defaultValue = "default",
            description = "SO_SNDBUF/SO_RCVBUF in bytes, K/M suffixes allowed (default: the kernel's)")
    String socketBuffer;

    @Option(names = "--results", defaultValue = "EVENT_LOOP",
            description = "where results are delivered: EVENT_LOOP (the group's default) or LIBRARY_THREADS")
    io.reactivecollectives.transport.ResultDelivery results;

    @Option(names = "--rank", hidden = true, defaultValue = "-1")
    int rank;

    @Option(names = "--tls-dir", description = "mutual TLS between the ranks with DIR/cert.pem and DIR/key.pem "
            + "(PKCS#8; the certificate trusts itself), e.g. from openssl req -x509 (see perf/RESULTS.md)")
    String tlsDir;

    @Option(names = "--env", description = "run as one rank of a launcher's job (torchrun's RANK, WORLD_SIZE, "
            + "MASTER_ADDR, MASTER_PORT; rank 0 serves the store), as across hosts (perf/scripts/multihost_compare.sh)")
    boolean env;

    @Option(names = "--store-port", hidden = true, defaultValue = "0")
    int storePort;

    /** Caps every warm-up at this many milliseconds (a quick run: tests); -1, the default, keeps the built-in ones. */
    @Option(names = "--warmup-time-ms", hidden = true, defaultValue = "-1")
    long warmupTimeMs;

    /** The longest the first size's warm-up waits for every rank's JIT compilers to go quiet. */
    @Option(names = "--settle-time-ms", defaultValue = "30000", description = "the longest the first size's warm-up waits for "
            + "every rank's JIT compilers to go quiet, ms (default ${DEFAULT-VALUE}; many ranks per processor compile for longer)")
    long settleTimeMs;

    /** The environment {@code --env} reads (the process's; a test's own map). */
    java.util.Map<String, String> environment = System.getenv();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The collective benchmarked, once {@link #validate()} has run. */
    String collective = "all_reduce";

    public static void main(String[] args) {
        System.exit(Cli.execute(new CollectivesPerf(), args));
    }

    @Override
    public Integer call() throws Exception {
        if (env) {
            java.util.Map<String, String> vars = environment;
            try (io.reactivecollectives.transport.launch.Rendezvous rdv =
                         io.reactivecollectives.transport.launch.EnvRendezvous.connect(vars).block(Duration.ofSeconds(120))) {
                rank = rdv.rank();
                world = rdv.worldSize();
                return new PerfRank(this).run(rdv.store(), io.reactivecollectives.transport.launch.EnvRendezvous.groupHost(vars));
            }
        }
        return rank < 0 ? PerfLauncher.launch(this) : new PerfRank(this).run();
    }

    @Override
    public void validate() {
        String given = collectiveArg != null ? collectiveArg : collectiveOption;
        if (collectiveArg != null && collectiveOption != null && !collectiveArg.equals(collectiveOption)) {
            throw usage("two collectives given: " + collectiveArg + " and --collective " + collectiveOption);
        }
        if (BusFactor.known(op.toLowerCase(Locale.ROOT))) {
            // the spelling before nccl-tests' flags: --op all_reduce
            if (given != null && !given.equals(op)) {
                throw usage("two collectives given: " + given + " and --op " + op);
            }
            given = op.toLowerCase(Locale.ROOT);
            collectiveOption = given;
            op = "sum";
        }
        collective = given == null ? "all_reduce" : given.toLowerCase(Locale.ROOT);
        if (!BusFactor.known(collective)) {
            throw usage("unknown collective '" + collective + "'; expected one of " + String.join(", ", BusFactor.names()));
        }
        if (!REDUCTIONS.contains(op.toLowerCase(Locale.ROOT))) {
            throw usage("-o/--op " + op + " is not a reduction (" + String.join(", ", REDUCTIONS) + ") nor a collective ("
                    + String.join(", ", BusFactor.names()) + ")");
        }
        if (env) {
            try {
                world = io.reactivecollectives.transport.launch.EnvRendezvous.resolve(environment).worldSize();
            } catch (IllegalArgumentException e) {
                throw usage("--env: " + e.getMessage());
            }
        }
        if (world < 1) {
            throw usage("--world must be >= 1, got " + world);
        }
        String tooMany = env ? null : io.reactivecollectives.tools.launch.RankJvmAccess.tooManyRanks("--world", world,
                io.reactivecollectives.tools.launch.RankJvmAccess.hostMemoryBytes());
        if (tooMany != null) {   // all --world ranks start on this host
            throw usage(tooMany);
        }
        if (nthreads != 1 || ngpus != 1) {
            throw usage("-t/--nthreads and -g/--ngpus must be 1 (one rank per JVM; --world sets the ranks), got -t " + nthreads
                    + " -g " + ngpus);
        }
        if (blocking < 0 || blocking > 3) {
            throw usage("-z/--blocking must be 0, 1, 2 or 3, got " + blocking);
        }
        if (root < 0 || root >= world) {
            throw usage("-r/--root " + root + " is not a rank of --world " + world);
        }
        if (stepFactor != null && stepBytes != null) {
            throw usage("give -f/--stepfactor or -i/--stepbytes, not both");
        }
        if (stepFactor != null && stepFactor < 2) {
            throw usage("-f/--stepfactor must be >= 2, got " + stepFactor);
        }
        String bound = iters < 1 ? "-n/--iters must be >= 1, got " + iters
                : warmup < 0 ? "-w/--warmup_iters must be >= 0, got " + warmup
                : check < 0 ? "-c/--check must be >= 0, got " + check
                : repeat < 1 ? "--repeat must be >= 1, got " + repeat
                : minTimeMs < 0 ? "--min-time-ms must be >= 0, got " + minTimeMs : null;
        if (bound != null) {
            throw usage(bound);
        }
        if (average < 0 || average > 3) {
            throw usage("-a/--average must be 0 (rank 0), 1 (mean), 2 (least) or 3 (greatest), got " + average);
        }
        DType dt;
        try {
            dt = DType.parse(dtype);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        long lo = size("-b/--minbytes", min);
        long hi = size("-e/--maxbytes", max);
        if (stepBytes != null) {
            size("-i/--stepbytes", stepBytes);
        }
        if (!"default".equals(segment)) {
            size("--segment", segment);
        }
        if (!"default".equals(socketBuffer)) {
            size("--socket-buffer", socketBuffer);
        }
        if (lo > hi) {
            throw usage("-b/--minbytes " + min + " is larger than -e/--maxbytes " + max);
        }
        if (Sizes.tensorBytes(hi, dt.byteSize()) > Sizes.MAX_TENSOR_BYTES) {
            throw usage("-e/--maxbytes " + max + " is over the 2 GiB limit of one tensor (at most " + Sizes.MAX_TENSOR_BYTES
                    + " bytes)");
        }
        if (dt.isBool()) {
            throw usage("-d/--datatype bool is not benchmarked; use int8, uint8, int32, int64, half, bfloat16, float or double");
        }
        if (reduces()) {
            try {
                reduction().validate(collective, dt);
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        for (String problem : new String[] {PerfChecks.outputFile("-J/--json", jsonFile), PerfChecks.outputFile("-F/--csv", csvFile),
                PerfChecks.tlsDir(tlsDir), PerfChecks.tunings(depth, settleTimeMs),
                rank < 0 && !env ? PerfChecks.rankSettings(environment) : null}) {
            if (problem != null) {
                throw usage(problem);
            }
        }
        try {
            decisionTable(collective).check(opType(collective), algorithm);
        } catch (IllegalArgumentException e) {
            throw usage("--algorithm " + algorithm + " does not run " + collective + ": " + e.getMessage());
        }
    }

    /** {@code value} of {@code flag} in bytes, or the usage error naming the flag. */
    private long size(String flag, String value) {
        try {
            return Sizes.parse(value);
        } catch (IllegalArgumentException e) {
            throw usage(flag + ": " + e.getMessage());
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec != null ? spec.commandLine() : new CommandLine(this), message);
    }

    /** Whether the collective reduces (takes {@code -o}). */
    boolean reduces() {
        return collective.equals("all_reduce") || collective.equals("reduce") || collective.equals("reduce_scatter");
    }

    ReduceOp reduction() {
        return ReduceOp.parse(op);
    }

    /** The size multiplication factor: {@code -f}, else 4 (none when {@code -i} is given). */
    int factor() {
        return stepFactor != null ? stepFactor : 4;
    }

    /** {@code -i} in bytes, 0 when not given. */
    long increment() {
        return stepBytes == null ? 0 : Sizes.parse(stepBytes);
    }

    /** The table of algorithms that implement {@code collective} (the group's decision for it). */
    static DecisionTable<?> decisionTable(String collective) {
        switch (collective) {
            case "all_reduce": return AllReduceDecision.TABLE;
            case "broadcast": return BroadcastDecision.TABLE;
            case "barrier": return BarrierDecision.TABLE;
            case "reduce": return ReduceDecision.TABLE;
            case "all_gather": return AllGatherDecision.TABLE;
            case "reduce_scatter": return ReduceScatterDecision.TABLE;
            case "all_to_all": return AllToAllDecision.TABLE;
            case "gather": return GatherDecision.TABLE;
            case "scatter": return ScatterDecision.TABLE;
            default: throw new IllegalArgumentException("unknown collective " + collective);
        }
    }

    /** The op type the group records for the call benchmarked as {@code collective}. */
    static OpType opType(String collective) {
        switch (collective) {
            case "all_reduce": return OpType.ALLREDUCE;
            case "broadcast": return OpType.BROADCAST;
            case "barrier": return OpType.BARRIER;
            case "reduce": return OpType.REDUCE;
            case "all_gather": return OpType._ALLGATHER_BASE;
            case "reduce_scatter": return OpType._REDUCE_SCATTER_BASE;
            case "all_to_all": return OpType.ALLTOALL_BASE;
            case "gather": return OpType.GATHER;
            case "scatter": return OpType.SCATTER;
            default: throw new IllegalArgumentException("unknown collective " + collective);
        }
    }
}
