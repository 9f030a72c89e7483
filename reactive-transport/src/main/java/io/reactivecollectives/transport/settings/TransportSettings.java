package io.reactivecollectives.transport.settings;

import io.reactivecollectives.core.settings.QuorumSpec;
import io.reactivecollectives.core.settings.Setting;
import io.reactivecollectives.core.settings.SettingsProvider;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The settings of {@code reactive-transport}: the event loops, Unix sockets and shared memory,
 * the result threads, the hierarchical all-reduce, the diagnostics' switches and the variables of a
 * launch's embedded store (where it binds, its TLS files, whether the launcher serves it) and what
 * {@code collectives-run} tells a restarted rank (the store's own settings, its Unix socket
 * and its secret, are reactive-store's {@code StoreSettings}). Read through {@link Setting#get()}
 * (or {@link Setting#get(java.util.Map)} with a launcher's environment); listed by
 * {@link io.reactivecollectives.core.settings.SettingsRegistry}.
 */
public final class TransportSettings implements SettingsProvider {

    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();
    private static final String HOST_TYPE = "host name or IP address";
    private static final java.util.regex.Pattern HOST_NAME = java.util.regex.Pattern.compile(
            "[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\\.?");

    /** Turns the collective check on by default ({@code DETAIL}). */
    public static final Setting<String> DISTRIBUTED_DEBUG = Setting.choice("rc.distributed.debug", null,
            "`DETAIL` turns on the collective check (whole fingerprints exchanged before every collective), as "
                    + "c10d's `TORCH_DISTRIBUTED_DEBUG`; `OFF` and `INFO` leave it off (any case; another value is refused)",
            "OFF", "INFO", "DETAIL").env("RC_DISTRIBUTED_DEBUG").defaultText("unset (`OFF`)");

    /** Every rank serves its live view: off, on, PORT or HOST:PORT ({@code DashboardOptions.parse}). */
    public static final Setting<String> DASHBOARD = Setting.of("rc.dashboard", "string", TransportSettings::dashboard, null,
                    "every rank serves its live view and the job's page ([operations](operations.md#a-live-view-of-a-running-job)); "
                            + "rank 0 on `PORT` (0 or `on`: any free port, which the log names; `collectives-run --dashboard` "
                            + "takes 8470), the others on any free port of `HOST` (default `127.0.0.1`); "
                            + "off loopback the group's secret is needed; needs `reactive-dashboard` on the class path")
            .env("RC_DASHBOARD").typeText("`off`, `on`, `PORT` or `HOST:PORT`").defaultText("off");

    /** The default of {@code GroupOptions.connectionsPerPeer}. */
    public static final Setting<Integer> CONNECTIONS_PER_PEER = Setting.integer("rc.transport.connectionsPerPeer", 1,
            1, 64, "the default of `GroupOptions.connectionsPerPeer` (TCP connections per pair of ranks)");

    /** The default of {@code GroupOptions.minQuorum}: {@code majority}, a number of ranks or a share. */
    public static final Setting<String> MIN_QUORUM = Setting.of("rc.group.minQuorum",
                    "`majority`, ranks (`2`) or share (`0.6`, `60%`)", TransportSettings::quorum, "majority",
                    "the default of `GroupOptions.minQuorum`: the members of the previous generation a `shrink()` "
                            + "must keep, else the rank fails with `QuorumLostException` (a strict majority: 3 of 4)")
            .env("RC_GROUP_MIN_QUORUM");

    /** Network event loops shared by the JVM's groups. */
    public static final Setting<Integer> IO_THREADS = Setting.integer("rc.transport.ioThreads", 4, 1,
                    Integer.MAX_VALUE, "network event loops (`rc-io-N`) shared by the JVM's groups")
            .defaultsTo(() -> Math.max(4, PROCESSORS), "max(4, processors)");

    /** Whether a rank's connections share one event loop. */
    public static final Setting<Boolean> HOME_LOOP = Setting.bool("rc.transport.homeLoop", true,
            "a rank's connections (one per peer) all run on one event loop, its home loop (ranks take the loops "
                    + "in turn), so a frame received from one peer and the frame it lets the rank send to the next "
                    + "are handled on one thread without a hand-off between loops; `false` spreads the connections "
                    + "over all loops; ranks with `connectionsPerPeer` above 1 always spread their stripes");

    /** Which Netty transport carries the mesh's connections. */
    public static final Setting<String> NATIVE = Setting.choice("rc.transport.native", "auto",
            "the Netty transport under the collectives' connections: `auto` uses native epoll where it loads "
                    + "(Linux x86-64), else NIO; `nio`: NIO everywhere", "auto", "nio");

    /** How long an event loop polls before blocking. */
    public static final Setting<Long> SPIN_MICROS = Setting.longValue("rc.transport.spinMicros", "us", 50, 0,
            "how long an event loop polls before blocking in `select`; 0 blocks at once");

    /** Whether the event loops' polling budget adapts. */
    public static final Setting<Boolean> SPIN_ADAPTIVE = Setting.bool("rc.transport.spinAdaptive", true,
            "the event loops' polling budget halves after polling in vain and doubles after polling in time");

    /** The most bytes of a large frame a socket gathers before it wakes its event loop. */
    public static final Setting<Integer> FRAME_LOW_WATER = Setting.intBytes("rc.transport.frameLowWater", 1 << 20, 0,
            "native epoll TCP: a socket receiving a large frame wakes its event loop only once this many of the frame's "
                    + "missing bytes (or all of them) have arrived (SO_RCVLOWAT), not on every arrival; under 64 KiB: off");

    /** Received pieces at least this large are reduced on Reactor's parallel scheduler. */
    public static final Setting<Long> OFFLOAD_BYTES = Setting.bytes("rc.transport.offloadBytes", 0, 0,
                    "received pieces at least this large are reduced on Reactor's parallel scheduler; 0: never")
            .defaultsTo(() -> PROCESSORS >= 4 ? 64L << 10 : 0L, "65536 with 4+ processors, else 0");

    /** Whether a group's first start adds the data path's compiler directives to the JVM's JIT. */
    public static final Setting<Boolean> JIT_DIRECTIVES = Setting.bool("rc.jit.directives", true,
                    "the first group of a JVM adds the data path's compiler directives to HotSpot's JIT (as `jcmd "
                            + "Compiler.directives_add` would: the data path's layers compiled one by one instead of "
                            + "inlined into every caller; [tuning](tuning.md#the-jit-on-ranks-collectives-run-does-not-start)), "
                            + "unless the JVM was started with `-XX:CompilerDirectivesFile` (`collectives-run` gives its "
                            + "ranks the file); `false` leaves the JIT alone")
            .env("RC_JIT_DIRECTIVES");

    /** Whether ranks of one host connect through Unix domain sockets. */
    public static final Setting<Boolean> UNIX_SOCKETS = Setting.bool("rc.transport.unixSockets", true,
            "ranks of one host connect through Unix domain sockets (and then shared memory); `false`: loopback TCP");

    /** Whether ranks of one host exchange through shared memory. */
    public static final Setting<Boolean> SHARED_MEMORY = Setting.bool("rc.transport.sharedMemory", true,
            "ranks of one host exchange through shared memory; `false` keeps the Unix sockets");

    /** Where the shared-memory segment file is made. */
    public static final Setting<Path> SHM_DIR = Setting.path("rc.transport.shmDir", Path.of("/dev/shm"),
            "where the shared-memory segment file is made").defaultText("`/dev/shm`");

    /** Each one-way ring between two local ranks. */
    public static final Setting<Integer> SHM_RING_BYTES = Setting.intBytes("rc.transport.shmRingBytes", 2 << 20, 4096,
                    "each one-way ring between two local ranks (shrunk to 256 KiB at least where the directory is small)")
            .requiring(v -> Integer.bitCount(v) == 1, "a power of two").typeText("int bytes (K/M/G), power of two >= 4096");

    /** Free space left in the shared-memory directory. */
    public static final Setting<Long> SHM_RESERVE_BYTES = Setting.bytes("rc.transport.shmReserveBytes", 8L << 20, 0,
            "free space left in the directory");

    /** Above this many ranks a group's heartbeats go over a ring instead of between all pairs. */
    public static final Setting<Integer> LIVENESS_RING_ABOVE = Setting.integer("rc.liveness.ringAbove", 32, 1,
            Integer.MAX_VALUE, "groups of more ranks than this heartbeat over a ring (each rank with "
                    + "rc.liveness.neighbours ranks on each side, O(1) per rank) instead of between every pair; the same on every rank");

    /** The largest group whose data mesh connects every pair at start. */
    public static final Setting<Integer> MESH_FULL_UP_TO = Setting.integer("rc.mesh.fullUpTo", 64, 1,
            Integer.MAX_VALUE, "groups of up to this many ranks connect every pair at start; larger ones connect each "
                    + "rank to the ranks a power of two away on the ring (at most 2 log2 N) and to any other peer when a "
                    + "collective first sends to it; the same on every rank");

    /** The most connections made on demand a rank keeps open; 0: no limit. */
    public static final Setting<Integer> MESH_ON_DEMAND_LIMIT = Setting.integer("rc.mesh.onDemandLimit", 0, 0,
            Integer.MAX_VALUE, "in a group above rc.mesh.fullUpTo ranks, the most connections made on demand a rank keeps: "
                    + "over it, those idle for rc.mesh.idleAfter are closed (by agreement with the peer, no failure), "
                    + "least recently used first, and dialled again when next used; 0: no limit, they stay open");

    /** How long a connection made on demand must sit idle before it may be closed over the limit. */
    public static final Setting<java.time.Duration> MESH_IDLE_AFTER = Setting.duration("rc.mesh.idleAfter",
            java.time.Duration.ofSeconds(2), "how long a connection made on demand must carry no frame before it "
                    + "may be closed over rc.mesh.onDemandLimit").defaultText("2 s");

    /** Whether subgroups and splits travel over their parent's connections. */
    public static final Setting<Boolean> SUBGROUPS_SHARE_CONNECTIONS = Setting.bool("rc.subgroups.shareConnections", true,
            "newGroup and split carry the subgroup's frames over the parent's connections (told apart by the group id "
                    + "in each frame): no new sockets, shared memory or heartbeats; `false`: each subgroup connects a mesh "
                    + "of its own through the store; the same on every rank");

    /** Ranks on each side a rank heartbeats with when the heartbeats go over a ring. */
    public static final Setting<Integer> LIVENESS_NEIGHBOURS = Setting.integer("rc.liveness.neighbours", 2, 1, 64,
            "ranks on each side of a rank it heartbeats with (and is watched by) when heartbeats go over a ring; "
                    + "the same on every rank");

    /** The most ring data the local ranks of a host take from the shared-memory directory. */
    public static final Setting<Long> SHM_BUDGET_BYTES = Setting.bytes("rc.transport.shmBudgetBytes", 0L, 0,
            "the most ring data the ranks of a group on one host take in all; a ring's memory is taken when its sender "
                    + "first writes to it, and a pair whose ring the budget cannot hold keeps its Unix socket; 0: what "
                    + "the directory has free beyond rc.transport.shmReserveBytes");

    /** How long the shared-memory reader polls after the last traffic; -1: chosen per host. */
    public static final Setting<Long> SHM_SPIN_MICROS = Setting.longValue("rc.transport.shmSpinMicros", "us", -1, -1,
                    "how long the shared-memory reader polls after the last traffic before it sleeps; -1: the default")
            .defaultText("200, or 0 with more local ranks than processors");

    /** Whether the shared-memory polling budget adapts. */
    public static final Setting<Boolean> SHM_SPIN_ADAPTIVE = Setting.bool("rc.transport.shmSpinAdaptive", true,
            "that budget adapts (down to 1/32) where sleeping pays");

    /** Whether shared-memory readers are bound to processors. */
    public static final Setting<String> SHM_BIND = Setting.choice("rc.transport.shmBind", "auto",
            "binds local rank i's shared-memory reader to the i-th processor the rank may use; `false` or `off`: "
                    + "not bound", "auto", "false", "off");

    /** Frames at least this large are reduced where they lie in the ring. */
    public static final Setting<Integer> SHM_LEND_BYTES = Setting.intBytes("rc.transport.shmLendBytes", 16 << 10, 0,
            "frames at least this large are reduced where they lie in the ring instead of copied out; 0: every "
                    + "frame copied");

    /** The part size of the hierarchical all-reduce. */
    public static final Setting<Long> HIERARCHICAL_PART_BYTES = Setting.bytes("rc.hierarchical.partBytes", 4L << 20,
            64 << 10, "the part size of the two-level (hierarchical) all-reduce");

    /** Parts of the hierarchical all-reduce in flight at once. */
    public static final Setting<Integer> HIERARCHICAL_INFLIGHT = Setting.integer("rc.hierarchical.inflight", 4,
            1, Integer.MAX_VALUE, "its parts in flight at once");

    /** Result threads of {@code ResultDelivery.LIBRARY_THREADS}. */
    public static final Setting<Integer> RESULT_THREADS = Setting.integer("rc.results.threads", 2, 1,
                    Integer.MAX_VALUE, "the result threads (`rc-results-N`) of `ResultDelivery.LIBRARY_THREADS`")
            .defaultsTo(() -> Math.max(2, PROCESSORS / 2), "max(2, processors / 2)");

    /** How long an idle result thread polls before it parks. */
    public static final Setting<Long> RESULT_SPIN_MICROS = Setting.longValue("rc.results.spinMicros", "us", 0, 0,
            "how long an idle result thread polls before it parks");

    /** The address this rank binds and publishes. */
    public static final Setting<String> HOST = Setting.of("RC_HOST", HOST_TYPE, TransportSettings::host, null,
            "the address this rank binds and publishes");

    /** The interfaces to take this rank's address from. */
    public static final Setting<String> SOCKET_IFNAME = Setting.string("RC_SOCKET_IFNAME", null,
            "the interfaces to take that address from (`eth0,ens` by prefix, `=eth0` exactly, `^lo,docker` all but)");

    /** Where rank 0's embedded store binds. */
    public static final Setting<String> STORE_BIND = Setting.of("RC_STORE_BIND", HOST_TYPE, TransportSettings::host,
            "0.0.0.0", "where rank 0's embedded store binds (an address of its host)");

    /** PEM certificate of rank 0's embedded store (TLS). */
    public static final Setting<Path> STORE_TLS_CERT = Setting.path("RC_STORE_TLS_CERT", null,
            "PEM certificate: TLS on rank 0's embedded store (with `RC_STORE_TLS_KEY`)");

    /** PKCS#8 key of rank 0's embedded store (TLS). */
    public static final Setting<Path> STORE_TLS_KEY = Setting.path("RC_STORE_TLS_KEY", null,
            "PEM PKCS#8 key of that certificate");

    /** PEM certificates the store's clients trust. */
    public static final Setting<Path> STORE_TLS_CA = Setting.path("RC_STORE_TLS_CA", null,
            "PEM certificates the store's clients trust").defaultText("`RC_STORE_TLS_CERT`");

    /**
     * Set by {@code collectives-run} when the launcher's own process serves the store (its agent
     * store): then no rank starts a store server, every rank, 0 included, is a client of it.
     */
    public static final Setting<Boolean> AGENT_STORE = Setting.of("RC_AGENT_STORE", "`1`, `true`, `0` or `false`",
                    TransportSettings::flag, false,
                    "set by `collectives-run` (`--agent-store`, `--max-restarts`): the launcher serves the store at "
                            + "`MASTER_ADDR:MASTER_PORT`, so no rank starts one and every rank, 0 included, connects to it "
                            + "(the store outlives any rank)")
            .defaultText("unset (rank 0 serves the store)");

    /** Set by {@code collectives-run} for a restarted rank: how many times that rank has been restarted. */
    public static final Setting<Integer> RESTART_COUNT = Setting.integer("RC_RESTART_COUNT", 0, 0, Integer.MAX_VALUE,
            "set by `collectives-run` for a restarted rank (`--max-restarts`): how many times this rank has been restarted "
                    + "(1 for the first restart); unset in a rank's first process");

    /** How long a join's members and joiners wait for the next generation to connect ({@code ElasticGroup}). */
    public static final Setting<Duration> ELASTIC_CONNECT_TIMEOUT = Setting.duration("rc.elastic.connectTimeout",
            Duration.ofSeconds(30), "how long the members and joiners of a join (`ElasticGroup.boundary()`) wait for the "
                    + "next generation to connect, at most the group's connect timeout; a joiner that died after its "
                    + "admission is left out after it and the members go on; 0: the group's connect timeout alone")
            .defaultText("30 s");

    /** The group id of a group joined from the environment, where the program's options leave the default. */
    public static final Setting<String> GROUP_ID = Setting.of("rc.group.id", "text, 1 to 256 characters",
                    TransportSettings::groupId, null,
                    "the group id `ProcessGroups.fromEnvironment` and `ElasticGroup.fromEnvironment` use where the "
                            + "program's `GroupOptions` leave the default (`default`): it prefixes the group's keys in the "
                            + "store, so jobs sharing one store (a stand-alone store) need one each; the same on every rank")
            .env("RC_GROUP_ID").defaultText("unset (`default`, or the program's `GroupOptions.withGroupId`)");

    /** Each collective's timeout for a group joined from the environment, where the program's options leave the default. */
    public static final Setting<Duration> GROUP_TIMEOUT = Setting.positiveDuration("rc.group.timeout", null,
                    "each collective's timeout (as torch's `init_process_group(timeout=...)`) for groups that "
                            + "`ProcessGroups.fromEnvironment` and `ElasticGroup.fromEnvironment` join, where the program's "
                            + "`GroupOptions` leave the default (5 min, `GroupOptions.withTimeout`); positive; the same on every rank")
            .env("RC_GROUP_TIMEOUT").defaultText("unset (5 min, or the program's `GroupOptions.withTimeout`)");

    /** Set by {@code collectives-run} for every rank: its {@code --max-restarts}. */
    public static final Setting<Integer> MAX_RESTARTS = Setting.integer("RC_MAX_RESTARTS", 0, 0, Integer.MAX_VALUE,
            "set by `collectives-run` for every rank: how many times a failed rank is restarted (`--max-restarts`)");

    /** {@code 1}/{@code true} or {@code 0}/{@code false}, in any case. */
    private static Boolean flag(String v) {
        String t = v.trim();
        if (t.equals("1") || t.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (t.equals("0") || t.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("expected 1, true, 0 or false");
    }

    /**
     * Checks a host's spelling without looking it up: an IPv4 address (four numbers 0-255), an IPv6
     * address (in brackets or not) or a DNS name (letters, digits, '-', '_' and dots).
     */
    private static String host(String v) {
        String t = v.trim();
        String h = t.startsWith("[") && t.endsWith("]") ? t.substring(1, t.length() - 1) : t;
        if (h.contains(":")) {
            try {
                java.net.InetAddress.getByName("[" + h + "]"); // a literal in brackets: parsed, never looked up
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("not an IPv6 address");
            }
        } else if (h.matches("[0-9.]+")) {
            String[] parts = h.split("\\.", -1);
            for (String p : parts) {
                if (parts.length != 4 || p.isEmpty() || p.length() > 3 || Integer.parseInt(p) > 255) {
                    throw new IllegalArgumentException("not an IPv4 address (four numbers 0-255 with dots)");
                }
            }
        } else if (h.length() > 253 || !HOST_NAME.matcher(h).matches()) {
            throw new IllegalArgumentException("a host name has only letters, digits, '-', '_' and dots (no spaces)");
        }
        return t;
    }

    /**
     * Checks a dashboard setting as {@code DashboardOptions.parse} reads it ({@link DashboardSpec}), so that a bad one is refused
     * with the usual one-line error, by the start-up check too (before, only {@code GroupOptions.defaults()}
     * refused it, in words of its own that named both spellings and not the one set).
     */
    private static String dashboard(String v) {
        try {
            DashboardSpec.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected off, on, PORT or HOST:PORT");
        }
        return v;
    }

    /** Checks a group id: 1 to 256 characters, no white space at its ends. */
    private static String groupId(String v) {
        String t = v.trim();
        if (t.isEmpty() || t.length() > 256) {
            throw new IllegalArgumentException("a group id has 1 to 256 characters");
        }
        return t;
    }

    /**
     * Checks a quorum's text as {@code Quorum.parse} reads it ({@link QuorumSpec}; before, {@code 1e3}
     * passed here and failed there, without the setting's name).
     */
    private static String quorum(String v) {
        try {
            QuorumSpec.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a quorum is `majority`, a whole number of ranks >= 1 or a share in (0, 1]");
        }
        return v.trim().toLowerCase(java.util.Locale.ROOT);
    }

    /** For {@link java.util.ServiceLoader}; the settings are the constants. */
    public TransportSettings() {
    }

    @Override
    public String module() {
        return "reactive-transport";
    }

    @Override
    public int order() {
        return 10;
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(DISTRIBUTED_DEBUG, DASHBOARD, CONNECTIONS_PER_PEER, MIN_QUORUM, IO_THREADS, HOME_LOOP, NATIVE, SPIN_MICROS, SPIN_ADAPTIVE, FRAME_LOW_WATER,
                OFFLOAD_BYTES, JIT_DIRECTIVES, UNIX_SOCKETS, SHARED_MEMORY, SHM_DIR, SHM_RING_BYTES, SHM_RESERVE_BYTES, SHM_BUDGET_BYTES, LIVENESS_RING_ABOVE, LIVENESS_NEIGHBOURS, MESH_FULL_UP_TO, MESH_ON_DEMAND_LIMIT, MESH_IDLE_AFTER, SUBGROUPS_SHARE_CONNECTIONS,
                SHM_SPIN_MICROS, SHM_SPIN_ADAPTIVE, SHM_BIND, SHM_LEND_BYTES, HIERARCHICAL_PART_BYTES,
                HIERARCHICAL_INFLIGHT, RESULT_THREADS, RESULT_SPIN_MICROS, HOST, SOCKET_IFNAME, STORE_BIND,
                STORE_TLS_CERT, STORE_TLS_KEY, STORE_TLS_CA, AGENT_STORE, RESTART_COUNT, MAX_RESTARTS,
                ELASTIC_CONNECT_TIMEOUT, GROUP_ID, GROUP_TIMEOUT);
    }
}
