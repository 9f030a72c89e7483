package io.reactivecollectives.transport;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.core.observe.CollectiveMetrics;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.settings.SettingsRegistry;
import io.reactivecollectives.core.settings.UnknownSettings;
import io.reactivecollectives.transport.failure.AbortProtocol;
import io.reactivecollectives.transport.group.RemoteAbortException;
import io.reactivecollectives.transport.mesh.Connections;
import io.reactivecollectives.transport.mesh.MeshChannels;
import io.reactivecollectives.transport.ops.OpFamilies;
import io.reactivecollectives.transport.runtime.CollectiveRunner;
import io.reactivecollectives.transport.runtime.DataPathDirectives;
import io.reactivecollectives.transport.runtime.GroupLifecycle;
import io.reactivecollectives.transport.runtime.GroupRuntime;
import io.reactivecollectives.transport.runtime.InboundFrames;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;

/**
 * A {@link ProcessGroup} over a full mesh of links, one per pair of ranks: TCP connections (Reactor
 * Netty) between hosts, Unix domain sockets or shared-memory rings between ranks of one host.
 * (Called {@code TcpProcessGroup} before; that name stays, deprecated, as its superclass for one
 * release.)
 *
 * <h2>Starting a rank</h2>
 * Every rank calls {@link #connect(Store, int, int, GroupOptions)} with the same store (a
 * {@code TcpStore} across processes, a {@code HashStore} inside one JVM), its rank and the world
 * size; the {@code Mono} emits the group once all ranks are connected, or fails after
 * {@link GroupOptions#connectTimeout()} naming the ranks that never appeared. While it waits, and
 * while a collective or a receive waits for a peer, the rank says whom it waits for every
 * {@link Diagnostics#waitReportInterval()} (5 s by default; see {@code WaitReports}). For N ranks
 * in one JVM use {@link LocalCluster}.
 *
 * <h2>Collectives</h2>
 * Every collective is a cold {@code Mono}: on subscription the arguments are checked, the collective
 * takes the group's next sequence number, and the algorithm runs on the connections' event loops.
 * It emits the tensor(s) it wrote in place, or an error: {@link IllegalArgumentException} for bad
 * arguments (nothing is sent but a notice that tells the other ranks' copies of this collective to
 * fail, so the ranks stay in step), {@link CollectiveTimeoutException} past the timeout (per call
 * or the group's default), {@link PeerFailureException} when a peer's connection closes
 * ({@code allReduce[seq=41] rank 2: peer 3 closed the connection}),
 * {@link CollectiveMismatchException} when the ranks disagree on the collective,
 * {@link RemoteAbortException} when the collective failed or was cancelled on another rank.
 * Cancelling a subscription aborts that collective on every rank and leaves the group usable.
 * Point-to-point operations ({@link #send}, {@link #recv}, {@link #recvAnySource}) do not take
 * sequence numbers; they match by (source, tag) in order.
 *
 * <h2>Algorithms</h2>
 * Chosen once per call, as its arguments are checked, by the collective's table in
 * {@code transport.decision} (size, world size and hosts; the switch points at 2 ranks
 * are {@link GroupOptions#smallAllReduceBytes()} and {@link GroupOptions#smallBroadcastBytes()}):
 * all-reduce recursive doubling or pipelined ring; broadcast binomial tree or pipelined chain;
 * reduce segmented binomial tree; gather/scatter binomial tree up to
 * {@link GroupOptions#smallBroadcastBytes()} in all, direct above; all-gather and
 * reduce-scatter ring; all-to-all pairwise; barrier dissemination. Every op takes
 * {@link CollectiveOptions}: a timeout, and {@link CollectiveOptions#algorithm()} to force one.
 *
 * <p>Underneath: {@code runtime} (the collective lifecycle, {@code CollectiveRunner}; the group's
 * shared state, {@code GroupRuntime}; the algorithms' view, {@code CollectiveChannel}; the inbound
 * router, {@code InboundFrames}), {@code ops} (one class per op family), {@code failure} (peer
 * failures, abort notices, shrink planning), {@code algorithms}, {@code decision} (which algorithm
 * a call runs), {@code frame}, {@code mesh}.
 */
@SuppressWarnings("deprecation")   // the superclass is the old name, kept for one release
public final class MeshProcessGroup extends TcpProcessGroup {

    private final Store store;
    private final GroupOptions options;
    private final GroupRuntime runtime;
    private final AbortProtocol aborts;
    private final OpFamilies ops;
    private final GroupLifecycle lifecycle;
    private final Subgroups subgroups = new Subgroups();
    /** What {@link #close()} closes after the group (the store a {@link ProcessGroups} join made). */
    private final GroupResources resources = new GroupResources();
    /** This group's generation ({@link #shrink()} and joins make the next). */
    private volatile int generation;
    /** The generations (and the group's name without its generation), shared with the groups a shrink or a join makes of this one. */
    private volatile GroupLineage lineage;

    private MeshProcessGroup(Store store, int rank, int size, GroupOptions options) {
        super();
        this.store = store;
        this.options = options;
        io.reactivecollectives.core.observe.CollectiveObserver observer =
                options.diagnostics().observer(options.groupId(), rank, size);
        this.runtime = new GroupRuntime(rank, size, options.runtimeSettings(rank, observer.recorder()), observer);
        this.aborts = new AbortProtocol(rank, size, runtime::mesh);
        this.ops = new OpFamilies(new CollectiveRunner(runtime, aborts));
        this.lifecycle = new GroupLifecycle(runtime, aborts);
        this.lineage = new GroupLineage(options.groupId(), size, store);
    }

    /**
     * Joins the group: binds this rank's server, publishes its address in {@code store}, connects to
     * every other rank and checks the handshakes. Cold; emits the connected group.
     *
     * @return a cold {@code Mono} emitting the connected group, or failing with an
     *         {@link IllegalArgumentException} for a bad rank, world size or missing argument, or with the
     *         connection error
     * @param store     the rendezvous store every rank of the group uses
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize number of ranks
     * @param options   settings; every rank must use the same group id, secret and thresholds
     */
    public static Mono<MeshProcessGroup> connect(Store store, int rank, int worldSize, GroupOptions options) {
        return connect(store, rank, worldSize, options, null);
    }

    /**
     * {@link #connect(Store, int, int, GroupOptions)} for a group of the job {@code job} (a subgroup,
     * a later generation), or of the job its ranks agree on now when null (see {@link GroupJob}).
     * Every setting that is set is parsed first, on the library's bounded scheduler (the registry
     * reads the class path), so that a bad value fails the start naming it, rather than a class's
     * static initializer on another thread.
     */
    static Mono<MeshProcessGroup> connect(Store store, int rank, int worldSize, GroupOptions options, String job) {
        return Mono.defer(() -> {
            if (store == null || options == null || worldSize < 1 || rank < 0 || rank >= worldSize) {
                throw new IllegalArgumentException(store == null || options == null ? "connect: store and options are "
                        + "required" : "connect: invalid rank " + rank + " for world size " + worldSize);
            }
            return Mono.fromRunnable(SettingsRegistry::requireValid).subscribeOn(BlockingScheduler.get()).then(Mono.defer(() -> {
                MeshProcessGroup g = new MeshProcessGroup(store, rank, worldSize, options);
                FlightRecorder recorder = g.flightRecorder();
                DataPathDirectives.addOnce();   // once per JVM, off this chain
                // the native reduction kernels load here, off the event loops, before the first collective
                return ReduceKernels.loadAsync()
                        .then(UnknownSettings.done() ? Mono.empty() : Mono.fromRunnable(UnknownSettings::warnOnce).subscribeOn(BlockingScheduler.get()))
                        .then(GroupJob.before(store, options.groupId(), rank, worldSize, job))
                        .doOnNext(recorder::job)
                        .then(g.runtime.connect(store, options.mesh(), new InboundFrames(g.runtime, g.aborts), g.aborts,
                                options.diagnostics().waitReportInterval()))
                        .then(Mono.defer(() -> recorder.job() != null ? Mono.<String>empty()
                                : GroupJob.after(store, options.groupId(), options.connectTimeout()).doOnNext(recorder::job)))
                        .then(job == null ? Dashboards.open(g) : Mono.empty())
                        .thenReturn(g);
            }));
        });
    }

    /**
     * A subgroup of {@code members} (ranks of the parent) whose frames travel over {@code parent}, the
     * parent's connections ({@link Connections#carry}); emitted once every member carries it, so that
     * no frame reaches a rank before it can route it.
     */
    static Mono<MeshProcessGroup> carried(Connections parent, Store store, int rank, int[] members,
                                          GroupOptions options, String job) {
        return Mono.defer(() -> {
            MeshProcessGroup g = new MeshProcessGroup(store, rank, members.length, options);
            g.flightRecorder().job(job);
            Connections carried = parent.carry(options.groupId(), rank, members, new InboundFrames(g.runtime, g.aborts));
            if (carried == null) {
                return Mono.error(new IllegalStateException("newGroup: rank " + rank + " cannot carry group '"
                        + options.groupId() + "' over its parent's connections: its id's hash is another group's "
                        + "there; set rc.subgroups.shareConnections=false on every rank"));
            }
            g.runtime.over(carried, options.diagnostics().waitReportInterval());
            return Subgroups.allCarried(store, options.groupId(), rank, members, options.connectTimeout())
                    .doOnError(e -> Subgroups.giveUp(carried, g))
                    .doOnCancel(() -> Subgroups.giveUp(carried, g))
                    .thenReturn(g);
        });
    }

    /**
     * {@link #connect(Store, int, int, GroupOptions)} with {@link GroupOptions#defaults()}.
     *
     * @param store     the rendezvous store every rank of the group uses
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize number of ranks
     * @return a cold {@code Mono} emitting the connected group
     */
    public static Mono<MeshProcessGroup> connect(Store store, int rank, int worldSize) {
        return connect(store, rank, worldSize, GroupOptions.defaults());
    }

    @Override
    public int rank() {
        return runtime.rank();
    }

    @Override
    public int size() {
        return runtime.size();
    }

    @Override
    public String groupId() {
        return options.groupId();
    }

    /** {@return the options this group was made with} */
    @Override
    public GroupOptions options() {
        return options;
    }

    /** {@return the store the group met through} */
    @Override
    public Store store() {
        return store;
    }

    /** {@return the port this rank's server listens on (-1 for a world of one)} */
    @Override
    public int port() {
        io.reactivecollectives.transport.mesh.Connections m = runtime.mesh();
        return m == null ? -1 : m.port();
    }

    /**
     * This rank's flight recorder: every collective (scheduled, started, completed or failed, and the
     * peer it waited on); dumped automatically on a timeout or a peer failure, or on request with
     * {@link FlightRecorder#dump()}, into the directory of the job the ranks agreed on as they
     * connected ({@link FlightRecorder#dumpDirectory()}).
     *
     * @return the flight recorder
     */
    @Override
    public FlightRecorder flightRecorder() {
        return runtime.observer().recorder();
    }

    /**
     * This rank's meters (see {@code MetricNames}), in {@link GroupOptions#diagnostics()}'s registry.
     *
     * @return the meters
     */
    @Override
    public CollectiveMetrics metrics() {
        return runtime.observer().metrics();
    }

    /**
     * Which host each rank runs on, as the ranks learnt it while connecting.
     *
     * @return the ranks' hosts
     */
    @Override
    public HostLayout topology() {
        return HostLayout.of(runtime.shape().topology());
    }

    /**
     * How this rank reaches {@code peer}: {@code "shm"} for shared memory (peers on the same host,
     * once they agreed on a segment; see the package documentation), {@code "unix"} for a Unix domain
     * socket (peers on the same host without shared memory, unless
     * {@code rc.transport.unixSockets=false}), {@code "tcp"}, or {@code "none"}.
     *
     * @param peer the other rank
     * @return {@code "shm"}, {@code "unix"}, {@code "tcp"} or {@code "none"}
     */
    @Override
    public String transportTo(int peer) {
        io.reactivecollectives.transport.mesh.Connections m = runtime.mesh();
        return m == null ? "none" : m.transportTo(peer);
    }

    /**
     * {@link #transportTo(int)} with the Netty transport of the socket: {@code "tcp/epoll"},
     * {@code "tcp/nio"}, {@code "unix/epoll"} or {@code "unix/nio"} ({@link #socketTransport()}),
     * else {@code "shm"} or {@code "none"}.
     *
     * @param peer the other rank
     * @return how this rank reaches {@code peer}, and on which Netty transport
     */
    @Override
    public String describeTransportTo(int peer) {
        String t = transportTo(peer);
        return "tcp".equals(t) || "unix".equals(t) ? t + "/" + socketTransport() : t;
    }

    /**
     * The Netty transport of the collectives' sockets in this JVM (every group's): {@code "epoll"}
     * where native epoll loads (Linux x86-64) and {@code rc.transport.native} is {@code auto} (the
     * default), else {@code "nio"}.
     *
     * @return {@code "epoll"} or {@code "nio"}
     */
    public static String socketTransport() {
        return MeshChannels.name();
    }

    /** {@return the sequence number the next collective will take} */
    @Override
    public long nextSequence() {
        return runtime.mailbox().nextSequence();
    }

    /**
     * Bytes of inbound frames buffered before their collective asked for them (diagnostics).
     *
     * @return the buffered bytes
     */
    @Override
    public long unclaimedBytes() {
        return runtime.mailbox().unclaimedBytes();
    }

    /**
     * Collectives with state in the demultiplexer (running here, or with early frames).
     *
     * @return the number of such collectives
     */
    @Override
    public int openCollectives() {
        return runtime.mailbox().openBoxes();
    }

    // ------------------------------------------------------------------ collectives (bodies in ops/)

    @Override
    public Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions options) {
        return ops.allReduce.allReduce(tensor, op, options);
    }

    @Override
    public Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions options) {
        return ops.allReduce.allReduceCoalesced(tensors, op, options);
    }

    @Override
    public Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch) {
        return ops.allReduce.allReduceStream(chunks, op, prefetch);
    }

    @Override
    public Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions options) {
        return ops.reduce.reduce(tensor, root, op, options);
    }

    @Override
    public Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions options) {
        return ops.broadcast.broadcast(tensor, root, options);
    }

    @Override
    public Mono<Void> barrier(CollectiveOptions options) {
        return ops.barrier.barrier(options);
    }

    /**
     * Rank 0 waits up to {@code timeout} for every rank (see {@code MonitoredBarrier}); the other
     * ranks wait for rank 0's release, or its failure, up to twice that or the group's timeout.
     */
    @Override
    public Mono<Void> monitoredBarrier(Duration timeout, boolean waitAllRanks) {
        return ops.barrier.monitoredBarrier(timeout, waitAllRanks);
    }

    @Override
    public Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input, CollectiveOptions options) {
        return ops.allGather.allGather(outputs, input, options);
    }

    @Override
    public Mono<Tensor> allGatherInto(Tensor output, Tensor input, CollectiveOptions options) {
        return ops.allGather.allGatherInto(output, input, options);
    }

    @Override
    public Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs,
                                                       CollectiveOptions options) {
        return ops.allGather.allGatherCoalesced(outputs, inputs, options);
    }

    /**
     * {@link ProcessGroup#gather(List, Tensor, int, CollectiveOptions) ProcessGroup's gather} with
     * per-call options; emits the outputs on the root, an empty list elsewhere.
     *
     * @param outputs on {@code root} one tensor per rank, overwritten with that rank's input; elsewhere empty
     * @param input   this rank's contribution (only read)
     * @param root    the root rank
     * @param options per-call options: a timeout, a forced algorithm
     * @return a cold {@code Mono} emitting {@code outputs} on the root, an empty list elsewhere
     */
    @Override
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root, CollectiveOptions options) {
        return ops.gatherScatter.gather(outputs, input, root, options);
    }

    @Override
    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root, CollectiveOptions options) {
        return ops.gatherScatter.scatter(output, inputs, root, options);
    }

    @Override
    public Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op, CollectiveOptions options) {
        return ops.reduceScatter.reduceScatter(output, inputs, op, options);
    }

    @Override
    public Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op, CollectiveOptions options) {
        return ops.reduceScatter.reduceScatterTensor(output, input, op, options);
    }

    @Override
    public Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op,
                                                           CollectiveOptions options) {
        return ops.reduceScatter.reduceScatterTensorCoalesced(outputs, inputs, op, options);
    }

    @Override
    public Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs, CollectiveOptions options) {
        return ops.allToAll.allToAll(outputs, inputs, options);
    }

    @Override
    public Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                       CollectiveOptions options) {
        return ops.allToAll.allToAllSingle(output, input, outputSplits, inputSplits, options);
    }

    @Override
    public Mono<SparseTensor> allReduceSparse(SparseTensor tensor, ReduceOp op, CollectiveOptions options) {
        return ops.sparse.allReduceSparse(tensor, op, options);
    }

    @Override
    public Mono<Void> send(Tensor tensor, int dst, int tag) {
        return ops.p2p.send(tensor, dst, tag, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link ProcessGroup#send(Tensor, int, int, CollectiveOptions) ProcessGroup's send} with
     * per-call options: point-to-point operations take a timeout; a forced algorithm is refused.
     *
     * @param tensor  the data to send (only read)
     * @param dst     the destination rank
     * @param tag     the tag that matches a send with its receive
     * @param options per-call options: a timeout
     * @return a cold {@code Mono} completing once the tensor has been sent
     */
    @Override
    public Mono<Void> send(Tensor tensor, int dst, int tag, CollectiveOptions options) {
        return ops.p2p.send(tensor, dst, tag, options);
    }

    @Override
    public Mono<Tensor> recv(Tensor tensor, int src, int tag) {
        return ops.p2p.recv(tensor, src, tag, CollectiveOptions.DEFAULT);
    }

    @Override
    public Mono<Tensor> recv(Tensor tensor, int src, int tag, CollectiveOptions options) {
        return ops.p2p.recv(tensor, src, tag, options);
    }

    @Override
    public Mono<Integer> recvAnySource(Tensor tensor, int tag) {
        return ops.p2p.recvAnySource(tensor, tag, CollectiveOptions.DEFAULT);
    }

    @Override
    public Mono<Integer> recvAnySource(Tensor tensor, int tag, CollectiveOptions options) {
        return ops.p2p.recvAnySource(tensor, tag, options);
    }

    @Override
    public Mono<Void> batchSendRecv(List<P2POp> batch) {
        return ops.p2p.batchSendRecv(batch);
    }

    // ------------------------------------------------------------------ groups and lifecycle

    /**
     * A group of the given ranks (c10d's new_group) with its own connections, meeting through a
     * {@code PrefixStore} of this group's store under {@code <groupId>/<k>} for the k-th call (every
     * rank calls it, in the same order, with the same ranks); a rank outside gets an empty
     * {@code Mono}. Closing this group closes its subgroups.
     */
    @Override
    public Mono<ProcessGroup> newGroup(List<Integer> ranks) {
        return subgroups.newGroup(runtime, store, options, ranks, MeshProcessGroup::connect, MeshProcessGroup::carried);
    }

    /**
     * Aborts the group on this rank: every in-flight collective and receive fails at once with
     * {@link GroupAbortedException}, a GROUP_ABORT frame tells every peer (whose in-flight collectives
     * then fail with {@link RemoteAbortException} naming this rank, and whose later collectives are
     * refused with a peer failure naming it), and the connections are closed. Later work on this
     * group is refused with a {@link GroupAbortedException} saying that the group was aborted. The
     * {@code Mono} completes once the abort frames were written (at most one second), and is idempotent.
     */
    @Override
    public Mono<Void> abort() {
        return lifecycle.abort(this::close);
    }

    /**
     * Recovery without a restart: the survivors decide the next generation's members once, through
     * the store, and connect as {@code <group>@gen<N>}, renumbered in their old order; this group is
     * closed. A rank left out (seen dead, or late) fails with a {@link PeerFailureException} naming
     * who excluded it and forms no group; a store that does not answer fails it naming the store.
     */
    @Override
    public Mono<ProcessGroup> shrink() {
        return GroupShrink.shrink(this, flightRecorder().job(), options, runtime.peerFailures().deadView(),
                        this::leave, MeshProcessGroup::connect, lineage, MeshProcessGroup::continues)
                .map(g -> (ProcessGroup) g);
    }

    /**
     * Makes this group the newest generation of {@code lineage}, owning {@code resources} (what the
     * generation before would have closed after itself).
     */
    void continues(GroupLineage lineage, List<AutoCloseable> resources) {
        this.lineage = lineage;
        this.generation = lineage.newest();
        resources.forEach(this::closeAfterGroup);
    }

    /** Closes this group for the generation that replaces it; returns what it would have closed after itself. */
    List<AutoCloseable> leave() {
        List<AutoCloseable> taken = resources.takeAll();
        close();
        return taken;
    }

    /**
     * The generations of this group on this rank: START, then one SHRINK per {@link #shrink()}, the
     * same stream on every generation's group (see {@link ProcessGroup#generations()}). Completes when
     * the newest generation is closed other than by a shrink.
     */
    @Override
    public Flux<GenerationEvent> generations() {
        return lineage.events();
    }

    /**
     * The generation: 0 for a group made by {@code connect}, one more for each {@link #shrink()}.
     *
     * @return the generation
     */
    @Override
    public int generation() {
        return generation;
    }

    /** Closes the connections; in-flight collectives fail with {@link GroupAbortedException}. */
    @Override
    public void close() {
        if (runtime.isClosed()) {
            return;
        }
        subgroups.closeAll();   // first: their last words go over this group's connections
        if (lifecycle.close()) {
            lineage.closed(generation);
            GroupResources.closeAll(resources.takeAll());
        }
    }

    /**
     * Ties {@code resource} to this group: {@link #close()} closes it after the group's connections
     * (closed at once when the group already is).
     */
    void closeAfterGroup(AutoCloseable resource) {
        resources.add(resource, this::isClosed);
    }

    /** {@return the generations this group belongs to} */
    GroupLineage lineage() {
        return lineage;
    }

    /**
     * A read-only live view of this rank (what runs, whom it waits for, what it knows of its peers),
     * as a dashboard serves it.
     *
     * @return the view
     */
    @Override
    public GroupView view() {
        return new GroupView(this, runtime);
    }

    /** {@return whether {@link #close()} was called} */
    @Override
    public boolean isClosed() {
        return runtime.isClosed();
    }

    @Override
    public String toString() {
        return "MeshProcessGroup[" + options.groupId() + " rank " + rank() + "/" + size() + ", port " + port() + ", " + socketTransport() + "]";
    }
}
