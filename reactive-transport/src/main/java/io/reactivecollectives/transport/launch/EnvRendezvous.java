package io.reactivecollectives.transport.launch;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.core.HandOver;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.rendezvous.StoreAuth;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import io.reactivecollectives.transport.rendezvous.TorchTcpStore;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Launch from the environment, as c10d's {@code env://}: reads rank, world size, local rank and the
 * store's address from the first launcher whose variables are present, in this order:
 * <ol>
 *   <li>torchrun (or any {@code env://} launcher): {@code MASTER_ADDR}, {@code MASTER_PORT},
 *       {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK} (all required once {@code RANK} or
 *       {@code WORLD_SIZE} is set); without {@code LOCAL_RANK} it is a Kubeflow PyTorchJob (one
 *       process per pod, local rank 0);</li>
 *   <li>a Kubeflow TrainJob's {@code PET_NODE_RANK}, {@code PET_NNODES}, {@code PET_NPROC_PER_NODE},
 *       {@code PET_MASTER_ADDR}, {@code PET_MASTER_PORT} (see {@link KubernetesLaunch});</li>
 *   <li>a Kubernetes Indexed Job: {@code JOB_COMPLETION_INDEX} is the rank, {@code WORLD_SIZE} the
 *       number of pods, {@code MASTER_ADDR} the index-0 pod's DNS name through a headless service,
 *       port {@code MASTER_PORT} or {@value #DEFAULT_MASTER_PORT};</li>
 *   <li>Slurm: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}; the store on
 *       {@code MASTER_ADDR} or else the first host of {@code SLURM_JOB_NODELIST}
 *       ({@code SLURM_NODELIST}), port {@code MASTER_PORT} or {@value #DEFAULT_MASTER_PORT};</li>
 *   <li>Open MPI: {@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE},
 *       {@code OMPI_COMM_WORLD_LOCAL_RANK}, {@code MASTER_ADDR}, port {@code MASTER_PORT} or
 *       {@value #DEFAULT_MASTER_PORT}.</li>
 * </ol>
 * Missing, malformed or contradictory variables give an {@link IllegalArgumentException} that
 * names them. Under torchrun with {@code TORCHELASTIC_USE_AGENT_STORE=True} the agent already
 * serves a PyTorch {@code TCPStore} on {@code MASTER_PORT}: every rank connects a
 * {@link TorchTcpStore} to it (torch 1.x or 2.x wire protocol, detected), its keys under
 * {@code rc/<TORCHELASTIC_RESTART_COUNT>/}. Under {@code collectives-run} with
 * {@code RC_AGENT_STORE=1} (its {@code --agent-store}, on with {@code --max-restarts}) the launcher's
 * own process serves the {@link TcpStoreServer} on {@code MASTER_PORT}: every rank, 0 included,
 * connects a {@link TcpStore} client to it. Otherwise rank 0 embeds the {@link TcpStoreServer} (bound to {@code RC_STORE_BIND}, default
 * every interface); every rank, 0 included, connects a {@link TcpStore} client. Security, off by
 * default: {@code RC_STORE_SECRET} turns on HMAC authentication; {@code RC_STORE_TLS_CERT} and
 * {@code RC_STORE_TLS_KEY} (PEM, PKCS#8 key) turn on TLS on rank 0's server, and clients trust
 * {@code RC_STORE_TLS_CA} (PEM; default the server certificate).
 *
 * <p>The environment is a parameter ({@code System.getenv()} in production) so tests can pass
 * their own.
 */
public final class EnvRendezvous {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EnvRendezvous.class);

    /** The store port when the launcher gives none (c10d's default). */
    public static final int DEFAULT_MASTER_PORT = 29500;
    /** Set by torchrun when its agent's store serves the workers ({@code True}): every rank is a client of it. */
    public static final String AGENT_STORE_ENV = "TORCHELASTIC_USE_AGENT_STORE";
    /** The namespace of this library's keys in torch's store (under torchrun's restart count). */
    public static final String TORCH_KEY_PREFIX = "rc";
    /** Set by {@code collectives-run} when its own process serves the store ({@code 1}): every rank is a client of it. */
    public static final String AGENT_STORE_RC_ENV = "RC_AGENT_STORE";
    /** Set by {@code collectives-run} for a restarted rank: how many times it has been restarted (1 for the first). */
    public static final String RESTART_COUNT_ENV = "RC_RESTART_COUNT";
    /** Set by {@code collectives-run} for every rank: how many times a failed rank is restarted. */
    public static final String MAX_RESTARTS_ENV = "RC_MAX_RESTARTS";
    /** A Kubernetes Indexed Job's pod index ({@code JOB_COMPLETION_INDEX}). */
    public static final String INDEX_ENV = "JOB_COMPLETION_INDEX";
    /** Where rank 0's embedded store server binds (default every interface). */
    public static final String BIND_ENV = "RC_STORE_BIND";
    /** PEM certificate of rank 0's store server; with {@link #TLS_KEY_ENV} it turns on TLS. */
    public static final String TLS_CERT_ENV = "RC_STORE_TLS_CERT";
    /** PEM (PKCS#8) private key of rank 0's store server; with {@link #TLS_CERT_ENV} it turns on TLS. */
    public static final String TLS_KEY_ENV = "RC_STORE_TLS_KEY";
    /** PEM certificate(s) the store clients trust (default: the server certificate). */
    public static final String TLS_CA_ENV = "RC_STORE_TLS_CA";

    private EnvRendezvous() {
    }

    /**
     * Reads the launcher's variables; no I/O.
     *
     * @param env the environment ({@code System.getenv()})
     * @return the launcher, store address, rank, world size and local rank
     * @throws IllegalArgumentException when variables are missing, malformed or contradictory (naming them)
     */
    public static LaunchEnvironment resolve(Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        // a WORLD_SIZE alone is a PyTorchJob's, unless Slurm or Open MPI launched the process (an sbatch script may export one)
        if (present(env, "RANK") || (present(env, "WORLD_SIZE") && !present(env, INDEX_ENV)
                && !present(env, "SLURM_PROCID") && !present(env, "OMPI_COMM_WORLD_RANK"))) {
            boolean torchrun = present(env, "LOCAL_RANK");
            // collectives-run speaks torchrun's variables and gives every rank RC_MAX_RESTARTS besides
            String launcher = !torchrun ? "PyTorchJob" : present(env, MAX_RESTARTS_ENV) ? "collectives-run" : "torchrun";
            try {
                require(env, launcher, "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE");
            } catch (IllegalArgumentException e) {
                throw torchrun ? e : new IllegalArgumentException(e.getMessage() + " (no LOCAL_RANK: read as a "
                        + "Kubernetes PyTorchJob launch; torchrun and collectives-run set LOCAL_RANK)", e);
            }
            return check(new LaunchEnvironment(launcher, env.get("MASTER_ADDR").trim(), port(env, "MASTER_PORT", -1),
                    integer(env, "RANK"), integer(env, "WORLD_SIZE"), torchrun ? integer(env, "LOCAL_RANK") : 0),
                    "RANK", "WORLD_SIZE", "LOCAL_RANK");
        }
        if (present(env, "PET_NODE_RANK")) {
            return KubernetesLaunch.trainJob(env);
        }
        if (present(env, INDEX_ENV)) {
            return KubernetesLaunch.indexedJob(env);
        }
        // mpirun sets these for each process it starts; inside a Slurm allocation the SLURM_* variables it
        // leaves in place are the batch step's (one task), not this process's
        if (present(env, "OMPI_COMM_WORLD_RANK")) {
            require(env, "Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                    "MASTER_ADDR");
            return check(new LaunchEnvironment("Open MPI", env.get("MASTER_ADDR").trim(),
                    port(env, "MASTER_PORT", DEFAULT_MASTER_PORT), integer(env, "OMPI_COMM_WORLD_RANK"),
                    integer(env, "OMPI_COMM_WORLD_SIZE"), integer(env, "OMPI_COMM_WORLD_LOCAL_RANK")),
                    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK");
        }
        if (present(env, "SLURM_PROCID")) {
            require(env, "Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID");
            String addr;
            if (present(env, "MASTER_ADDR")) {
                addr = env.get("MASTER_ADDR").trim();
            } else {
                String list = present(env, "SLURM_JOB_NODELIST") ? env.get("SLURM_JOB_NODELIST") : env.get("SLURM_NODELIST");
                if (list == null || list.isBlank()) {
                    throw new IllegalArgumentException("Slurm launch: missing MASTER_ADDR and SLURM_JOB_NODELIST "
                            + "(one of them names the store's host)");
                }
                try {
                    addr = SlurmNodeList.firstHost(list);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Slurm launch: SLURM_JOB_NODELIST: " + e.getMessage(), e);
                }
            }
            return check(new LaunchEnvironment("Slurm", addr, port(env, "MASTER_PORT", DEFAULT_MASTER_PORT),
                    integer(env, "SLURM_PROCID"), integer(env, "SLURM_NTASKS"), integer(env, "SLURM_LOCALID")),
                    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID");
        }
        throw new IllegalArgumentException("no launcher environment: start the program with bin/collectives-run "
                + "or torchrun (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK), under Slurm (SLURM_PROCID, "
                + "SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_NODELIST), Open MPI (OMPI_COMM_WORLD_RANK, "
                + "OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK, MASTER_ADDR) or a Kubernetes PyTorchJob, TrainJob "
                + "or Indexed Job; in Spark, join inside a barrier stage with reactive-spark on the class path");
    }

    /**
     * Where rank 0's embedded store server binds: {@value #BIND_ENV}, else every interface.
     *
     * @param env the environment ({@code System.getenv()})
     * @return the bind address
     */
    public static String storeBind(Map<String, String> env) {
        return TransportSettings.STORE_BIND.get(env);
    }

    /**
     * The address this rank's group server should bind and publish ({@code GroupOptions.withHost}):
     * {@link HostAddress#choose} for the store this environment names. Reads interfaces; no traffic.
     *
     * @param env the environment ({@code System.getenv()})
     * @return the address for {@code GroupOptions.withHost}
     */
    public static String groupHost(Map<String, String> env) {
        LaunchEnvironment launch = resolve(env);
        try {
            return HostAddress.choose(env, launch.masterAddr(), HostAddress.origin(env, launch.launcher()),
                    launch.worldSize());
        } catch (IllegalStateException e) {
            String prefix = launch.launcher() + " launch, rank " + launch.rank() + ": ";
            java.util.Optional<String> own = KUBERNETES.contains(launch.launcher()) && e.getCause() instanceof java.net.UnknownHostException
                    ? HostAddress.ownAddress(null) : java.util.Optional.empty();
            if (own.isEmpty()) {
                throw new IllegalStateException(prefix + e.getMessage(), e);
            }
            // a headless service's pod name resolves only once that pod runs: the store connection retries it
            io.reactivecollectives.core.observe.Notices.warn(LOG, prefix
                    + "the store's host '" + launch.masterAddr() + "' does not resolve yet (its pod not up?); this rank"
                    + " publishes " + own.get() + ", the address of its first interface (set RC_HOST for another), and its"
                    + " store connection looks the name up again until the connect timeout");
            return own.get();
        }
    }

    /** The launches whose store host is a pod's name, which resolves only once that pod runs. */
    private static final java.util.Set<String> KUBERNETES = java.util.Set.of("PyTorchJob", "TrainJob", "Indexed Job");

    /**
     * {@link #connect(Map, Duration)} with c10d's default timeout.
     *
     * @param env the environment ({@code System.getenv()})
     * @return a cold {@code Mono} emitting this process's rendezvous
     */
    public static Mono<Rendezvous> connect(Map<String, String> env) {
        return connect(env, Store.DEFAULT_TIMEOUT);
    }

    /**
     * Builds the rendezvous of this process: on subscription reads {@code env} (an invalid one
     * fails with {@link IllegalArgumentException}, nothing started), on rank 0 starts the store
     * server (unless the launcher serves it: {@link #usesLauncherStore}), then connects the client (retrying until {@code timeout}) and emits the result.
     * Certificates are read on {@code Schedulers.boundedElastic()}.
     *
     * @param env     the environment ({@code System.getenv()})
     * @param timeout how long the client keeps trying to connect, and the store's default wait
     * @return a cold {@code Mono} emitting this process's rendezvous, which the caller closes
     */
    public static Mono<Rendezvous> connect(Map<String, String> env, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return Mono.defer(() -> {
            LaunchEnvironment launch = resolve(env);
            if (usesAgentStore(env)) {
                return torchAgentStore(env, launch, timeout);
            }
            boolean launcherStore = usesLauncherStore(env);
            if (launcherStore && launch.masterPort() == 0) {
                throw new IllegalArgumentException(launch.launcher() + " launch: " + AGENT_STORE_RC_ENV
                        + "=1 needs the launcher's store port in MASTER_PORT, not 0");
            }
            // rank 0 serves the store unless the launcher does (collectives-run's agent store)
            boolean serves = launch.rank() == 0 && !launcherStore;
            byte[] secret = StoreAuth.secretFrom(env);
            boolean tls = TransportSettings.STORE_TLS_CERT.isSet(env) || TransportSettings.STORE_TLS_CA.isSet(env);
            if (tls && serves) {
                require(env, "TLS", TLS_CERT_ENV, TLS_KEY_ENV);
            }
            Mono<Optional<SslContext[]>> ssl = !tls ? Mono.just(Optional.empty())
                    : Mono.fromCallable(() -> Optional.of(sslContexts(env, serves)))
                    .subscribeOn(Schedulers.boundedElastic());
            return ssl.flatMap(contexts -> {
                SslContext serverSsl = contexts.map(c -> c[0]).orElse(null);
                SslContext clientSsl = contexts.map(c -> c[1]).orElse(null);
                Mono<TcpStoreServer> server = TcpStoreServer.builder()
                        .host(storeBind(env))
                        .port(launch.masterPort())
                        .secret(secret)
                        .ssl(serverSsl)
                        .start()
                        .onErrorMap(EnvRendezvous::isBindFailure, e -> new IllegalStateException(launch.launcher()
                                + " launch: rank 0 cannot serve the store on " + storeBind(env) + ":" + launch.masterPort()
                                + " (" + rootMessage(e) + "): another job, or another store, may hold that port; give this"
                                + " job another MASTER_PORT (torchrun or collectives-run --master-port)", e));
                Function<TcpStoreServer, Mono<Rendezvous>> client = s -> {
                    int port = s != null ? s.port() : launch.masterPort();
                    TcpStoreOptions options = TcpStoreOptions.of(launch.masterAddr(), port).withTimeout(timeout)
                            .withSecret(secret).withSsl(clientSsl);
                    return TcpStore.connect(options)
                            .map(store -> new Rendezvous(store, launch.rank(), launch.worldSize(), launch.localRank(),
                                    launch.launcher(), s));
                };
                // rank 0's server is closed if the client fails or the join is cancelled before the
                // rendezvous that owns it is handed over
                return !serves ? client.apply(null)
                        : HandOver.openThen(server, client, TcpStoreServer::close);
            });
        });
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException || t instanceof reactor.netty.ChannelBindException) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /**
     * Whether torchrun's agent already serves the store at {@code MASTER_ADDR:MASTER_PORT}
     * ({@code TORCHELASTIC_USE_AGENT_STORE=True}): then every rank, 0 included, connects to it as a
     * client of torch's {@code TCPStore} instead of rank 0 starting a server on that port.
     *
     * @param env the environment ({@code System.getenv()})
     * @return whether the ranks use torch's agent store
     */
    public static boolean usesAgentStore(Map<String, String> env) {
        return "true".equalsIgnoreCase(env.getOrDefault(AGENT_STORE_ENV, "").trim());
    }

    /**
     * Whether {@code collectives-run}'s own process serves the store at {@code MASTER_ADDR:MASTER_PORT}
     * ({@value #AGENT_STORE_RC_ENV} {@code 1} or {@code true}: its {@code --agent-store}, on with
     * {@code --max-restarts}): then no rank starts a server and every rank, 0 included, connects a
     * {@link TcpStore} client to it, so the store outlives any rank.
     *
     * @param env the environment ({@code System.getenv()})
     * @return whether the launcher serves the store
     */
    public static boolean usesLauncherStore(Map<String, String> env) {
        return TransportSettings.AGENT_STORE.get(env);
    }

    /**
     * Starts the store a launcher serves for its ranks ({@value #AGENT_STORE_RC_ENV}): the server rank 0
     * would start, bound to {@code RC_STORE_BIND} (default every interface), with the ranks'
     * {@code RC_STORE_SECRET} and, when {@code RC_STORE_TLS_CERT} is set (with {@code RC_STORE_TLS_KEY}),
     * TLS. Certificates are read on {@code Schedulers.boundedElastic()}.
     *
     * @param env  the launcher's environment ({@code System.getenv()}), which its ranks inherit
     * @param port the port, or 0 for a free one
     * @param more what else the server is told (a replica of a store held by every node's launcher:
     *             {@link TcpStoreServer.Builder#replicated}), or the identity
     * @return a cold {@code Mono} emitting the listening server, which the caller closes
     */
    public static Mono<TcpStoreServer> startLauncherStore(Map<String, String> env, int port,
                                                          java.util.function.UnaryOperator<TcpStoreServer.Builder> more) {
        return Mono.defer(() -> {
            boolean tls = TransportSettings.STORE_TLS_CERT.isSet(env);
            if (tls) {
                require(env, "TLS", TLS_CERT_ENV, TLS_KEY_ENV);
            }
            Mono<Optional<SslContext>> ssl = !tls ? Mono.just(Optional.empty())
                    : Mono.fromCallable(() -> Optional.of(sslContexts(env, true)[0])).subscribeOn(Schedulers.boundedElastic());
            return ssl.flatMap(context -> more.apply(TcpStoreServer.builder()
                    .host(storeBind(env))
                    .port(port)
                    .secret(StoreAuth.secretFrom(env))
                    .ssl(context.orElse(null)))
                    .start());
        });
    }

    private static Mono<Rendezvous> torchAgentStore(Map<String, String> env, LaunchEnvironment launch,
                                                    Duration timeout) {
        if (launch.masterPort() == 0) {
            throw new IllegalArgumentException(launch.launcher() + " launch: " + AGENT_STORE_ENV
                    + "=True needs the agent store's MASTER_PORT, not 0");
        }
        boolean tls = TransportSettings.STORE_TLS_CERT.isSet(env) || TransportSettings.STORE_TLS_CA.isSet(env);
        if ((tls || StoreAuth.secretFrom(env) != null) && launch.rank() == 0) {
            io.reactivecollectives.core.observe.Notices.warn(LOG,
                    launch.launcher() + " launch: the store is torchrun's agent store (" + AGENT_STORE_ENV + "=True), torch's"
                    + " TCPStore, which takes no secret and no TLS: " + (tls ? "RC_STORE_TLS_* and " : "")
                    + "RC_STORE_SECRET do not cover the store's traffic (the ranks' own connections still use the secret);"
                    + " keep the agent store's port off untrusted networks, or launch with collectives-run, whose store"
                    + " takes both");
        }
        // torch's own keys live under other prefixes (e.g. init_process_group's "default_pg/"); an
        // elastic restart reuses the agent store, so the restart count keeps attempts apart
        String prefix = TORCH_KEY_PREFIX + "/" + env.getOrDefault("TORCHELASTIC_RESTART_COUNT", "0").trim();
        return TorchTcpStore.connect(launch.masterAddr(), launch.masterPort(), timeout)
                .map(store -> new Rendezvous(new PrefixStore(prefix, store), launch.rank(), launch.worldSize(),
                        launch.localRank(), launch.launcher(), null));
    }

    private static SslContext[] sslContexts(Map<String, String> env, boolean server) {
        SslContext serverSsl = null;
        Path cert = TransportSettings.STORE_TLS_CERT.isSet(env) ? TransportSettings.STORE_TLS_CERT.get(env) : null;
        if (server) {
            Path key = TransportSettings.STORE_TLS_KEY.get(env);
            readable(cert, "RC_STORE_TLS_CERT");
            readable(key, "RC_STORE_TLS_KEY");
            try {
                serverSsl = SslContextBuilder.forServer(cert.toFile(), key.toFile()).build();
            } catch (Exception e) {
                throw new IllegalArgumentException("rank 0's store TLS: RC_STORE_TLS_CERT " + cert + " and RC_STORE_TLS_KEY "
                        + key + " make no server certificate (" + e.getMessage() + "): the certificate must be PEM and the"
                        + " key its PEM private key in PKCS#8 (openssl pkcs8 -topk8 -nocrypt converts another)", e);
            }
        }
        boolean ca = TransportSettings.STORE_TLS_CA.isSet(env);
        Path trust = ca ? TransportSettings.STORE_TLS_CA.get(env) : cert;
        String variable = ca ? "RC_STORE_TLS_CA" : "RC_STORE_TLS_CERT";
        readable(trust, variable);
        try {
            SslContext clientSsl = SslContextBuilder.forClient().trustManager(trust.toFile()).build();
            return new SslContext[] {serverSsl, clientSsl};
        } catch (Exception e) {
            throw new IllegalArgumentException("store TLS: " + variable + " " + trust + " holds no PEM certificate to trust ("
                    + e.getMessage() + ")", e);
        }
    }

    /** Fails naming {@code variable} when {@code file} is missing, not a file or unreadable. */
    private static void readable(Path file, String variable) {
        if (file == null) {
            throw new IllegalArgumentException("store TLS: " + variable + " is not set");
        }
        if (!java.nio.file.Files.isRegularFile(file) || !java.nio.file.Files.isReadable(file)) {
            throw new IllegalArgumentException("store TLS: " + variable + "=" + file + " is "
                    + (java.nio.file.Files.isDirectory(file) ? "a directory" : java.nio.file.Files.exists(file) ? "not readable" : "missing")
                    + ", not a readable PEM file");
        }
    }

    static LaunchEnvironment check(LaunchEnvironment l, String rankVar, String sizeVar, String localVar) {
        String prefix = l.launcher() + " launch: ";
        if (l.worldSize() < 1) {
            throw new IllegalArgumentException(prefix + sizeVar + "=" + l.worldSize() + " must be at least 1");
        }
        if (l.rank() < 0 || l.rank() >= l.worldSize()) {
            throw new IllegalArgumentException(prefix + rankVar + "=" + l.rank() + " contradicts " + sizeVar + "="
                    + l.worldSize() + " (need 0 <= " + rankVar + " < " + sizeVar + ")");
        }
        if (l.localRank() < 0 || l.localRank() >= l.worldSize()) {
            throw new IllegalArgumentException(prefix + localVar + "=" + l.localRank() + " contradicts " + sizeVar + "="
                    + l.worldSize() + " (need 0 <= " + localVar + " < " + sizeVar + ")");
        }
        if (l.masterAddr().isEmpty()) {
            throw new IllegalArgumentException(prefix + "MASTER_ADDR is empty");
        }
        if (l.masterPort() == 0 && l.rank() != 0) {
            throw new IllegalArgumentException(prefix + "MASTER_PORT=0 (any free port) is valid on rank 0 only, but "
                    + rankVar + "=" + l.rank());
        }
        return l;
    }

    static boolean present(Map<String, String> env, String name) {
        String v = env.get(name);
        return v != null && !v.isBlank();
    }

    static void require(Map<String, String> env, String launcher, String... names) {
        List<String> missing = new ArrayList<>();
        for (String n : names) {
            if (!present(env, n)) {
                missing.add(n);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(launcher + " launch: missing environment variable(s) "
                    + String.join(", ", missing));
        }
    }

    static int integer(Map<String, String> env, String name) {
        String v = env.get(name).trim();
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not an integer", e);
        }
    }

    static int port(Map<String, String> env, String name, int dflt) {
        if (!present(env, name)) {
            if (dflt < 0) {
                throw new IllegalArgumentException("missing environment variable " + name);
            }
            return dflt;
        }
        int p = integer(env, name);
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException(name + "=" + p + " is not a port (0..65535)");
        }
        return p;
    }
}
