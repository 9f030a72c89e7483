package io.reactivecollectives.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.core.observe.CollectiveMetrics;
import io.reactivecollectives.core.observe.CollectiveObserver;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.algorithms.AlgorithmChoice;
import io.reactivecollectives.transport.algorithms.BinomialTreeBroadcast;
import io.reactivecollectives.transport.algorithms.BinomialTreeReduce;
import io.reactivecollectives.transport.algorithms.DisseminationBarrier;
import io.reactivecollectives.transport.algorithms.FingerprintCheck;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.PipelinedChainBroadcast;
import io.reactivecollectives.transport.algorithms.RecursiveDoublingAllReduce;
import io.reactivecollectives.transport.algorithms.RingAllReduce;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.group.CollectiveWatchdog;
import io.reactivecollectives.transport.group.Mailbox;
import io.reactivecollectives.transport.group.P2PMailbox;
import io.reactivecollectives.transport.group.RemoteAbortException;
import io.reactivecollectives.transport.group.RemotePeerFailureException;
import io.reactivecollectives.transport.group.RemoteTimeoutException;
import io.reactivecollectives.transport.mesh.FrameListener;
import io.reactivecollectives.transport.mesh.Mesh;
import io.reactivecollectives.transport.mesh.PeerLink;
import io.reactivecollectives.transport.mesh.PeerSilentException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * A {@link ProcessGroup} over a full mesh of TCP connections (Reactor Netty), one per pair of ranks.
 *
 * <h2>Starting a rank</h2>
 * Every rank calls {@link #connect(Store, int, int, GroupOptions)} with the same store (a
 * {@code TcpStore} across processes, a {@code HashStore} inside one JVM), its rank and the world
 * size; the {@code Mono} emits the group once all ranks are connected, or fails after
 * {@link GroupOptions#connectTimeout()} naming the ranks that never appeared. For N ranks in one
 * JVM use {@link LocalCluster}.
 *
 * <h2>Collectives</h2>
 * Every collective is a cold {@code Mono}: on subscription the arguments are checked (an
 * {@link IllegalArgumentException} naming the op, nothing sent), the collective takes the group's
 * next sequence number, and the algorithm runs on the connections' event loops. It emits the
 * tensor(s) it wrote in place, or an error: {@link CollectiveTimeoutException} past the timeout
 * (per call or the group's default), {@link PeerFailureException} when a peer's connection
 * closes ({@code allReduce[seq=41] rank 2: peer 3 closed the connection}),
 * {@link CollectiveMismatchException} when a peer sends data that does not fit (tensor sizes
 * differ between ranks), {@link RemoteAbortException} when the collective failed or was
 * cancelled on another rank. Cancelling a subscription aborts that collective on every rank and
 * leaves the group usable. Point-to-point operations ({@link #send}, {@link #recv},
 * {@link #recvAnySource}) do not take sequence numbers; they match by (source, tag) in order.
 *
 * <h2>Algorithms</h2>
 * all-reduce: recursive doubling for small tensors, chunked pipelined ring above; broadcast:
 * binomial tree for small tensors, pipelined chain above; the switch points depend on the size and
 * the world size ({@link AlgorithmChoice}: {@link GroupOptions#smallAllReduceBytes()} and
 * {@link GroupOptions#smallBroadcastBytes()} are the switch points at 2 ranks); reduce: segmented
 * binomial tree; barrier: dissemination.
 * {@link CollectiveOptions#algorithm()} forces one ({@code RING}/{@code RECURSIVE_DOUBLING} for
 * all-reduce, {@code BINOMIAL_TREE}/{@code PIPELINED_CHAIN} for broadcast, {@code BINOMIAL_TREE}
 * for reduce).
 */
public final class TcpProcessGroup implements ProcessGroup {

    private final Store store;
    private final int rank;
    private final int size;
    private final GroupOptions options;
    private final Mailbox mailbox;
    private final P2PMailbox p2p;
    /** Per peer, why it is dead (the first cause wins), or null while it lives. */
    private final AtomicReferenceArray<PeerDeath> deadPeers;
    /** Per peer, the highest sequence number of a collective's DATA frame received from it (-1: none). */
    private final java.util.concurrent.atomic.AtomicLongArray lastSeqFrom;
    private final CollectiveObserver observer;
    private volatile Mesh mesh;
    private volatile boolean closed;
    /** Why {@link #abort()} was called here, or null. */
    private volatile String abortedWhy;
    /** The group's name without its generation, and the generation ({@link #shrink()} adds one). */
    private volatile String baseId;
    private volatile int generation;
    private final java.util.concurrent.atomic.AtomicBoolean tornDown = new java.util.concurrent.atomic.AtomicBoolean();
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TcpProcessGroup.class);

    /** ABORT frame kinds (the frame's tag field): the collective failed or was cancelled on the sender. */
    private static final int ABORT_PLAIN = 0;
    /** ABORT kind: the sender saw a peer fail; the step field names that peer. */
    private static final int ABORT_PEER_FAILED = 1;
    /** ABORT kind: the collective timed out on the sender; the step field is the peer it waited for + 1 (0: none). */
    private static final int ABORT_TIMED_OUT = 2;
    private final AtomicInteger subgroups = new AtomicInteger();
    private final List<TcpProcessGroup> children = new CopyOnWriteArrayList<>();
    /** Deadlines of in-flight collectives, checked every 10 ms (no timer per collective). */
    private final CollectiveWatchdog watchdog = CollectiveWatchdog.shared();

    private TcpProcessGroup(Store store, int rank, int size, GroupOptions options) {
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.options = options;
        this.deadPeers = new AtomicReferenceArray<>(size);
        this.lastSeqFrom = new java.util.concurrent.atomic.AtomicLongArray(size);
        for (int p = 0; p < size; p++) {
            lastSeqFrom.set(p, -1);
        }
        this.baseId = options.groupId();
        this.observer = options.diagnostics().observer(options.groupId(), rank, size);
        this.mailbox = new Mailbox(options.maxUnclaimedBytes(), this::pauseReading, this::resumeReading);
        this.p2p = new P2PMailbox(rank, new P2PMailbox.FragmentReader() {
            @Override
            public int index(ByteBuf frame) {
                return FrameCodec.chunk(frame);
            }

            @Override
            public int count(ByteBuf frame) {
                return FrameCodec.step(frame);
            }

            @Override
            public ByteBuf payload(ByteBuf frame) {
                return frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
            }
        });
    }

    /**
     * Joins the group: binds this rank's server, publishes its address in {@code store}, connects to
     * every other rank and checks the handshakes. Cold; emits the connected group.
     *
     * @param store     the rendezvous store every rank of the group uses
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize number of ranks
     * @param options   settings; every rank must use the same group id, secret and thresholds
     */
    public static Mono<TcpProcessGroup> connect(Store store, int rank, int worldSize, GroupOptions options) {
        return Mono.defer(() -> {
            if (store == null || options == null) {
                throw new IllegalArgumentException("connect: store and options are required");
            }
            if (worldSize < 1 || rank < 0 || rank >= worldSize) {
                throw new IllegalArgumentException("connect: invalid rank " + rank + " for world size " + worldSize);
            }
            TcpProcessGroup g = new TcpProcessGroup(store, rank, worldSize, options);
            return Mesh.start(store, rank, worldSize, options.mesh(), g.new Listener())
                    .map(m -> {
                        g.mesh = m;
                        return g;
                    });
        });
    }

    /** {@link #connect(Store, int, int, GroupOptions)} with {@link GroupOptions#defaults()}. */
    public static Mono<TcpProcessGroup> connect(Store store, int rank, int worldSize) {
        return connect(store, rank, worldSize, GroupOptions.defaults());
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String groupId() {
        return options.groupId();
    }

    /** The options this group was made with. */
    public GroupOptions options() {
        return options;
    }

    /** The store the group met through. */
    public Store store() {
        return store;
    }

    /** The port this rank's server listens on (-1 for a world of one). */
    public int port() {
        return mesh == null ? -1 : mesh.port();
    }

    /**
     * This rank's flight recorder: every collective (scheduled, started, completed or failed, and the
     * peer it waited on); dumped automatically on a timeout or a peer failure, or on request with
     * {@link FlightRecorder#dump()}.
     */
    public FlightRecorder flightRecorder() {
        return observer.recorder();
    }

    /** This rank's meters (see {@code MetricNames}), in {@link GroupOptions#diagnostics()}'s registry. */
    public CollectiveMetrics metrics() {
        return observer.metrics();
    }

    /**
     * How this rank reaches {@code peer}: {@code "unix"} for a Unix domain socket (peers on the same
     * host, unless {@code rc.transport.unixSockets=false}), {@code "tcp"}, or {@code "none"}.
     */
    public String transportTo(int peer) {
        Mesh m = mesh;
        return m == null ? "none" : m.transportTo(peer);
    }

    /** Sequence number the next collective will take. */
    public long nextSequence() {
        return mailbox.nextSequence();
    }

    /** Bytes of inbound frames buffered before their collective asked for them (diagnostics). */
    public long unclaimedBytes() {
        return mailbox.unclaimedBytes();
    }

    /** Collectives with state in the demultiplexer (running here, or with early frames). */
    public int openCollectives() {
        return mailbox.openBoxes();
    }

    // ------------------------------------------------------------------ reductions

    @Override
    public Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions options) {
        String name = OpType.ALLREDUCE.displayName();
        return collective(name, options, () -> {
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireReduceOp(name, op, tensor.dtype());
            allReduceAlgorithm(name, options.algorithm(), tensor);
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE, seq, tensor, -1, op), ctx -> allReduceBody(ctx, tensor, op, options.algorithm()).thenReturn(tensor));
    }

    private Mono<Void> allReduceBody(Ctx ctx, Tensor tensor, ReduceOp op, Algorithm forced) {
        return Mono.defer(() -> {
            ReduceKernels.preprocess(op, tensor);
            Algorithm a = allReduceAlgorithm(ctx.op, forced, tensor);
            ctx.recordAlgorithm(a);
            Mono<Void> run = a == Algorithm.RING ? RingAllReduce.run(ctx, tensor, op)
                    : RecursiveDoublingAllReduce.run(ctx, tensor, op);
            return run.then(Mono.fromRunnable(() -> ReduceKernels.postprocess(op, tensor, size)));
        });
    }

    private Algorithm allReduceAlgorithm(String name, Algorithm forced, Tensor t) {
        switch (forced) {
            case AUTO:
                return t.nbytes() <= AlgorithmChoice.recursiveDoublingLimit(options.smallAllReduceBytes(), size)
                        ? Algorithm.RECURSIVE_DOUBLING : Algorithm.RING;
            case RING:
            case RECURSIVE_DOUBLING:
                return forced;
            default:
                throw new IllegalArgumentException(name + ": algorithm " + forced + " does not implement " + name
                        + " (use AUTO, RING or RECURSIVE_DOUBLING)");
        }
    }

    @Override
    public Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions options) {
        String name = OpType.ALLREDUCE_COALESCED.displayName();
        return collective(name, options, () -> {
            CollectiveArguments.requireNonEmpty(name, tensors, "tensors");
            DType dtype = tensors.get(0).dtype();
            for (int i = 0; i < tensors.size(); i++) {
                CollectiveArguments.requireCpu(name, tensors.get(i), "tensors[" + i + "]");
                CollectiveArguments.requireSameDtype(name, tensors.get(i), dtype, "tensors[" + i + "]");
            }
            CollectiveArguments.requireReduceOp(name, op, dtype);
            allReduceAlgorithm(name, options.algorithm(), tensors.get(0));
        }, seq -> CollectiveFingerprint.of(OpType.ALLREDUCE_COALESCED, seq, tensors, -1, op), ctx -> {
            long total = 0;
            for (Tensor t : tensors) {
                total += t.nbytes();
            }
            if (tensors.size() > 1 && total <= this.options.smallAllReduceBytes()) {
                return coalescedFlat(ctx, tensors, op, options.algorithm()).thenReturn(tensors);
            }
            return Flux.range(0, tensors.size())
                    .flatMap(i -> allReduceBody(ctx.withTag(i), tensors.get(i), op, options.algorithm()), 4)
                    .then(Mono.just(tensors));
        });
    }

    /** Small tensors: one flat buffer, one exchange. */
    private Mono<Void> coalescedFlat(Ctx ctx, List<Tensor> tensors, ReduceOp op, Algorithm forced) {
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    long numel = 0;
                    for (Tensor t : tensors) {
                        numel += t.numel();
                    }
                    Tensor flat = Tensor.empty(tensors.get(0).dtype(), numel);
                    long off = 0;
                    for (Tensor t : tensors) {
                        flat.narrow(off, t.numel()).copyFrom(t);
                        off += t.numel();
                    }
                    return flat;
                }),
                flat -> allReduceBody(ctx, flat, op, forced).then(Mono.fromRunnable(() -> {
                    long off = 0;
                    for (Tensor t : tensors) {
                        t.flatten().copyFrom(flat.narrow(off, t.numel()));
                        off += t.numel();
                    }
                })),
                flat -> Mono.fromRunnable(flat::release));
    }

    @Override
    public Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions options) {
        String name = OpType.REDUCE.displayName();
        return collective(name, options, () -> {
            CollectiveArguments.requireRoot(name, root, size);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requireReduceOp(name, op, tensor.dtype());
            if (options.algorithm() != Algorithm.AUTO && options.algorithm() != Algorithm.BINOMIAL_TREE) {
                throw new IllegalArgumentException(name + ": algorithm " + options.algorithm() + " does not implement "
                        + name + " (use AUTO or BINOMIAL_TREE)");
            }
        }, seq -> CollectiveFingerprint.of(OpType.REDUCE, seq, tensor, root, op), ctx -> Mono.defer(() -> {
            ctx.recordAlgorithm(Algorithm.BINOMIAL_TREE);
            ReduceKernels.preprocess(op, tensor);
            return BinomialTreeReduce.run(ctx, tensor, root, op)
                    .then(Mono.fromRunnable(() -> {
                        if (rank == root) {
                            ReduceKernels.postprocess(op, tensor, size);
                        }
                    }))
                    .thenReturn(tensor);
        }));
    }

    @Override
    public Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch) {
        String name = "allReduceStream";
        return Flux.defer(() -> {
            if (chunks == null) {
                throw new IllegalArgumentException(name + ": chunks is null");
            }
            if (op == null) {
                throw new IllegalArgumentException(name + ": reduce op is null");
            }
            if (prefetch < 1) {
                throw new IllegalArgumentException(name + ": prefetch must be >= 1, got " + prefetch);
            }
            CollectiveException refused = refusal(name);
            if (refused != null) {
                return Flux.error(refused);
            }
            Mailbox.Box box = mailbox.open(name);
            Ctx ctx = new Ctx(box, name, 0);
            return observer.observeMany(box.sequence(), OpType.ALLREDUCE, null, null, null, null, entry -> {
                ctx.entry = entry;
                return chunks
                    .flatMapSequential(chunk -> Mono.defer(() -> {
                        CollectiveArguments.requireCpu(name, chunk.tensor(), "chunk " + chunk.index());
                        CollectiveArguments.requireReduceOp(name, op, chunk.dtype());
                        CollectiveWatchdog.Alarm alarm = watchdog.arm(options.timeout());
                        return allReduceBody(ctx.withTag(chunk.index()), chunk.tensor(), op, Algorithm.AUTO)
                                .thenReturn(chunk)
                                .timeout(alarm.fired(), Mono.defer(() -> Mono.error(timeoutError(ctx, options.timeout()))))
                                .doFinally(x -> alarm.disarm());
                    }), prefetch, 1)
                    .onErrorMap(e -> !(e instanceof CollectiveException) && !(e instanceof IllegalArgumentException),
                            e -> new CollectiveException(name, rank, box.sequence(), CollectiveException.NO_PEER, e.toString(), e))
                    .doOnError(e -> abortOnPeers(ctx, e))
                    .doOnCancel(() -> abortOnPeers(ctx, null))
                    .doFinally(s -> mailbox.close(box));
            });
        });
    }

    // ------------------------------------------------------------------ data movement

    @Override
    public Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions options) {
        String name = OpType.BROADCAST.displayName();
        return collective(name, options, () -> {
            CollectiveArguments.requireRoot(name, root, size);
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            broadcastAlgorithm(name, options.algorithm(), tensor);
        }, seq -> CollectiveFingerprint.of(OpType.BROADCAST, seq, tensor, root, null), ctx -> {
            Algorithm a = broadcastAlgorithm(name, options.algorithm(), tensor);
            ctx.recordAlgorithm(a);
            Mono<Void> run = a == Algorithm.PIPELINED_CHAIN ? PipelinedChainBroadcast.run(ctx, tensor, root)
                    : BinomialTreeBroadcast.run(ctx, tensor, root);
            return run.thenReturn(tensor);
        });
    }

    private Algorithm broadcastAlgorithm(String name, Algorithm forced, Tensor t) {
        switch (forced) {
            case AUTO:
                return t.nbytes() <= AlgorithmChoice.binomialTreeLimit(options.smallBroadcastBytes(), size)
                        ? Algorithm.BINOMIAL_TREE : Algorithm.PIPELINED_CHAIN;
            case BINOMIAL_TREE:
            case PIPELINED_CHAIN:
                return forced;
            default:
                throw new IllegalArgumentException(name + ": algorithm " + forced + " does not implement " + name
                        + " (use AUTO, BINOMIAL_TREE or PIPELINED_CHAIN)");
        }
    }

    @Override
    public Mono<Void> barrier(CollectiveOptions options) {
        String name = OpType.BARRIER.displayName();
        return collective(name, options, () -> {
            if (options.algorithm() != Algorithm.AUTO) {
                throw new IllegalArgumentException(name + ": algorithm " + options.algorithm()
                        + " does not implement " + name + " (use AUTO)");
            }
        }, seq -> new CollectiveFingerprint(OpType.BARRIER, seq, null, List.of(), -1, null), ctx -> {
            ctx.recordAlgorithm("dissemination");
            return DisseminationBarrier.run(ctx).then(Mono.empty());
        });
    }

    @Override
    public Mono<Void> send(Tensor tensor, int dst, int tag) {
        String name = OpType.SEND.displayName();
        return Mono.defer(() -> {
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requirePeer(name, dst, size, "destination");
            if (dst == rank) {
                throw new IllegalArgumentException(name + ": rank " + rank + " cannot send to itself");
            }
            CollectiveException refused = p2pRefusal(name, dst);
            if (refused != null) {
                return Mono.error(refused);
            }
            int nbytes = (int) tensor.nbytes();
            int frag = options.maxFramePayload();
            int count = Math.max(1, (nbytes + frag - 1) / frag);
            ByteBuf[] fragments = new ByteBuf[count];
            ByteBuf buf = tensor.buffer();
            for (int i = 0; i < count; i++) {
                int from = i * frag;
                fragments[i] = buf.retainedSlice(from, Math.min(frag, nbytes - from));
            }
            return mesh.link(dst).sendFragments(tag, fragments)
                    .onErrorMap(e -> !(e instanceof CollectiveException),
                            e -> new PeerFailureException(name, rank, -1, dst, "cannot send to peer " + dst + ": " + e, e))
                    .timeout(options.timeout(), Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            dst, options.timeout(), "send to rank " + dst + " with tag " + tag + " timed out after "
                            + options.timeout().toMillis() + " ms"))));
        });
    }

    @Override
    public Mono<Tensor> recv(Tensor tensor, int src, int tag) {
        String name = OpType.RECV.displayName();
        return Mono.defer(() -> {
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveArguments.requirePeer(name, src, size, "source");
            if (src == rank) {
                throw new IllegalArgumentException(name + ": rank " + rank + " cannot receive from itself");
            }
            CollectiveException refused = p2pRefusal(name, src);
            if (refused != null) {
                return Mono.error(refused);
            }
            return p2p.receive(name, tensor, src, tag)
                    .timeout(options.timeout(), Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            src, options.timeout(), "receive from rank " + src + " with tag " + tag + " timed out after "
                            + options.timeout().toMillis() + " ms"))))
                    .thenReturn(tensor);
        });
    }

    @Override
    public Mono<Integer> recvAnySource(Tensor tensor, int tag) {
        String name = OpType.RECVANYSOURCE.displayName();
        return Mono.defer(() -> {
            CollectiveArguments.requireCpu(name, tensor, "tensor");
            CollectiveException refused = refusal(name);
            if (refused != null) {
                return Mono.error(refused);
            }
            return p2p.receiveAny(name, tensor, tag)
                    .timeout(options.timeout(), Mono.defer(() -> Mono.error(new CollectiveTimeoutException(name, rank, -1,
                            CollectiveException.NO_PEER, options.timeout(), "receive from any rank with tag " + tag
                            + " timed out after " + options.timeout().toMillis() + " ms"))));
        });
    }

    // ------------------------------------------------------------------ the full set (bodies in FullSetCollectives)

    @Override
    public Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input) {
        String name = OpType.ALLGATHER.displayName();
        return collective(name, CollectiveOptions.DEFAULT, () -> FullSetCollectives.checkAllGather(outputs, input, size),
                seq -> CollectiveFingerprint.of(OpType.ALLGATHER, seq, input, -1, null),
                ctx -> FullSetCollectives.allGather(ctx, outputs, input).thenReturn(outputs));
    }

    @Override
    public Mono<Tensor> allGatherInto(Tensor output, Tensor input) {
        String name = OpType._ALLGATHER_BASE.displayName();
        return collective(name, CollectiveOptions.DEFAULT, () -> FullSetCollectives.checkAllGatherInto(output, input, size),
                seq -> CollectiveFingerprint.of(OpType._ALLGATHER_BASE, seq, input, -1, null),
                ctx -> FullSetCollectives.allGatherInto(ctx, output, input).thenReturn(output));
    }

    @Override
    public Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs) {
        String name = OpType.ALLGATHER_COALESCED.displayName();
        return collective(name, CollectiveOptions.DEFAULT,
                () -> FullSetCollectives.checkAllGatherCoalesced(outputs, inputs, size),
                seq -> CollectiveFingerprint.of(OpType.ALLGATHER_COALESCED, seq, inputs, -1, null),
                ctx -> FullSetCollectives.allGatherCoalesced(ctx, outputs, inputs).thenReturn(outputs));
    }

    @Override
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root) {
        return gather(outputs, input, root, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #gather(List, Tensor, int)} with per-call options: {@code BINOMIAL_TREE} or
     * {@code DIRECT} forces the algorithm (by default the tree up to
     * {@link GroupOptions#smallBroadcastBytes()} gathered in all, direct above). Emits the outputs
     * on the root, an empty list elsewhere.
     */
    public Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root, CollectiveOptions options) {
        String name = OpType.GATHER.displayName();
        return collective(name, options,
                () -> FullSetCollectives.checkGather(outputs, input, root, rank, size, options.algorithm()),
                seq -> CollectiveFingerprint.of(OpType.GATHER, seq, input, root, null),
                ctx -> FullSetCollectives.gather(ctx, outputs, input, root, FullSetCollectives.rootedAlgorithm(name,
                                options.algorithm(), input.nbytes() * size, this.options.smallBroadcastBytes()))
                        .thenReturn(rank == root ? outputs : List.<Tensor>of()));
    }

    @Override
    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root) {
        return scatter(output, inputs, root, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #scatter(Tensor, List, int)} with per-call options: {@code BINOMIAL_TREE} or
     * {@code DIRECT} forces the algorithm (by default the tree up to
     * {@link GroupOptions#smallBroadcastBytes()} scattered in all, direct above).
     */
    public Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root, CollectiveOptions options) {
        String name = OpType.SCATTER.displayName();
        return collective(name, options,
                () -> FullSetCollectives.checkScatter(output, inputs, root, rank, size, options.algorithm()),
                seq -> CollectiveFingerprint.of(OpType.SCATTER, seq, output, root, null),
                ctx -> FullSetCollectives.scatter(ctx, output, inputs, root, FullSetCollectives.rootedAlgorithm(name,
                                options.algorithm(), output.nbytes() * size, this.options.smallBroadcastBytes()))
                        .thenReturn(output));
    }

    @Override
    public Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
        String name = OpType.REDUCE_SCATTER.displayName();
        return collective(name, CollectiveOptions.DEFAULT, () -> FullSetCollectives.checkReduceScatter(output, inputs, op, size),
                seq -> CollectiveFingerprint.of(OpType.REDUCE_SCATTER, seq, output, -1, op),
                ctx -> FullSetCollectives.reduceScatter(ctx, output, inputs, op).thenReturn(output));
    }

    @Override
    public Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
        String name = OpType._REDUCE_SCATTER_BASE.displayName();
        return collective(name, CollectiveOptions.DEFAULT,
                () -> FullSetCollectives.checkReduceScatterTensor(output, input, op, size),
                seq -> CollectiveFingerprint.of(OpType._REDUCE_SCATTER_BASE, seq, input, -1, op),
                ctx -> FullSetCollectives.reduceScatterTensor(ctx, output, input, op).thenReturn(output));
    }

    @Override
    public Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        String name = "reduceScatterTensorCoalesced";
        return collective(name, CollectiveOptions.DEFAULT,
                () -> FullSetCollectives.checkReduceScatterTensorCoalesced(outputs, inputs, op, size),
                ctx -> FullSetCollectives.reduceScatterTensorCoalesced(ctx, outputs, inputs, op).thenReturn(outputs));
    }

    @Override
    public Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs) {
        String name = OpType.ALLTOALL.displayName();
        return collective(name, CollectiveOptions.DEFAULT, () -> FullSetCollectives.checkAllToAll(outputs, inputs, rank, size),
                seq -> new CollectiveFingerprint(OpType.ALLTOALL, seq, inputs.get(0).dtype(), List.of(), -1, null),
                ctx -> FullSetCollectives.allToAll(ctx, outputs, inputs).thenReturn(outputs));
    }

    @Override
    public Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits) {
        String name = OpType.ALLTOALL_BASE.displayName();
        return collective(name, CollectiveOptions.DEFAULT,
                () -> FullSetCollectives.checkAllToAllSingle(output, input, outputSplits, inputSplits, rank, size),
                seq -> new CollectiveFingerprint(OpType.ALLTOALL_BASE, seq, input.dtype(), List.of(), -1, null),
                ctx -> FullSetCollectives.allToAllSingle(ctx, output, input, FullSetCollectives.checkAllToAllSingle(
                        output, input, outputSplits, inputSplits, rank, size)).thenReturn(output));
    }

    /**
     * c10d's batch_isend_irecv: every send and receive of {@code ops} issued at once (in list
     * order, so ops to one peer with one tag match in order), completing when all have; all ops are
     * checked before any is issued.
     */
    @Override
    public Mono<Void> batchSendRecv(List<P2POp> ops) {
        return Mono.defer(() -> {
            CollectiveArguments.batchSendRecv(ops, rank, size);
            for (int i = 0; i < ops.size(); i++) {
                CollectiveArguments.requireCpu("batchSendRecv", ops.get(i).tensor(), "ops[" + i + "] tensor");
            }
            List<Mono<?>> all = new ArrayList<>(ops.size());
            for (P2POp o : ops) {
                all.add(o.type() == P2POp.Type.SEND ? send(o.tensor(), o.peer(), o.tag()) : recv(o.tensor(), o.peer(), o.tag()));
            }
            return Mono.when(all);
        });
    }

    /**
     * Rank 0 waits up to {@code timeout} for every rank (see {@code MonitoredBarrier}); the other
     * ranks wait for rank 0's release, or its failure, up to twice that or the group's timeout.
     */
    @Override
    public Mono<Void> monitoredBarrier(Duration timeout, boolean waitAllRanks) {
        String name = "monitoredBarrier";
        return Mono.defer(() -> {
            CollectiveArguments.monitoredBarrier(timeout);
            Duration twice = timeout.multipliedBy(2);
            Duration limit = rank == 0 ? timeout.plusSeconds(5)
                    : (twice.compareTo(options.timeout()) > 0 ? twice : options.timeout());
            return collective(name, CollectiveOptions.timeout(limit), () -> { },
                    ctx -> FullSetCollectives.monitoredBarrier(ctx, timeout, waitAllRanks));
        });
    }

    /**
     * A group of the given ranks (c10d's new_group), meeting through a {@link PrefixStore} of this
     * group's store under {@code <groupId>/<k>} (the k-th newGroup call of this group: every rank
     * must call it, in the same order, with the same ranks). Ranks are numbered in the new group by
     * their order in the sorted list; a rank outside gets an empty {@code Mono}. The subgroup has
     * its own connections, so its collectives run concurrently with this group's; closing this
     * group closes its subgroups.
     */
    @Override
    public Mono<ProcessGroup> newGroup(List<Integer> ranks) {
        return Mono.defer(() -> {
            int[] members = CollectiveArguments.newGroup(ranks, size);
            CollectiveException refused = refusal("newGroup");
            if (refused != null) {
                return Mono.error(refused);
            }
            String id = options.groupId() + "/" + subgroups.getAndIncrement();
            int index = Arrays.binarySearch(members, rank);
            if (index < 0) {
                return Mono.empty();
            }
            return TcpProcessGroup.connect(new PrefixStore(id, store), index, members.length, options.withGroupId(id))
                    .doOnNext(children::add)
                    .map(g -> (ProcessGroup) g);
        });
    }

    @Override
    public Mono<SparseTensor> allReduceSparse(SparseTensor tensor, ReduceOp op) {
        String name = OpType._ALLREDUCE_SPARSE.displayName();
        return collective(name, CollectiveOptions.DEFAULT, () -> CollectiveArguments.allReduceSparse(tensor, op),
                ctx -> FullSetCollectives.allReduceSparse(ctx, tensor));
    }

    // ------------------------------------------------------------------ lifecycle

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
        return Mono.defer(() -> {
            if (closed) {
                return Mono.empty();
            }
            String why = "abort() called on rank " + rank;
            abortedWhy = why;
            mailbox.failAll(b -> new GroupAbortedException(b.opName(), rank, b.sequence(), CollectiveException.NO_PEER,
                    "the group was aborted"));
            p2p.close(new GroupAbortedException("recv", rank, -1, CollectiveException.NO_PEER, "the group was aborted"));
            Mesh m = mesh;
            List<Mono<Void>> notices = new ArrayList<>();
            byte[] text = why.getBytes(StandardCharsets.UTF_8);
            for (int p = 0; m != null && p < size; p++) {
                PeerLink l = p == rank ? null : m.link(p);
                if (l != null && l.isActive()) {
                    notices.add(l.send(FrameType.GROUP_ABORT, -1, 0, 0, 0, Unpooled.wrappedBuffer(text))
                            .onErrorResume(e -> Mono.empty()));
                }
            }
            return Mono.when(notices)
                    .timeout(Duration.ofSeconds(1), Mono.empty())
                    .doFinally(s -> close());
        });
    }

    /**
     * Recovery without a restart: forms a new group of the surviving ranks and closes this one.
     * Every surviving rank calls it (after its collectives failed with a peer failure); each
     * publishes in the store which peers it saw die, reads the views of the peers it believes alive
     * (waiting up to {@link GroupOptions#connectTimeout()}), and the survivors are the ranks nobody saw
     * die, renumbered in their old order (rank 0, 1, 3 of a world of 4 become 0, 1, 2). The new group
     * is the next generation: its id is {@code <group>@gen<N>}, its keys live under a new store prefix
     * and its handshakes and frames carry that id (frames: its hash), so no address, handshake or
     * frame of an older generation is ever taken for one of the new group. Work continues in the same
     * processes. Emits the new group; fails when this rank is not among the survivors (another rank saw
     * it die), or when a rank believed alive publishes no view in time.
     * <p>Survivors must agree on who died (as they do after a process dies: every connection to it
     * closes); ranks that disagree do not form a group.
     */
    @Override
    public Mono<ProcessGroup> shrink() {
        return Mono.defer(() -> {
            int gen = generation + 1;
            String base = baseId;
            String newId = base + "@gen" + gen;
            String viewPrefix = "rc/" + options.groupId() + "/shrink/view/";
            StringBuilder mine = new StringBuilder();
            List<Integer> believedAlive = new ArrayList<>();
            for (int p = 0; p < size; p++) {
                if (p != rank && deadPeers.get(p) != null) {
                    mine.append(mine.length() == 0 ? "" : ",").append(p);
                } else if (p != rank) {
                    believedAlive.add(p);
                }
            }
            boolean[] dead = new boolean[size];
            for (int p = 0; p < size; p++) {
                dead[p] = p != rank && deadPeers.get(p) != null;
            }
            // a rank another survivor saw die is not waited for (this rank may not have noticed yet)
            reactor.core.publisher.Sinks.Many<Integer> seenDead = reactor.core.publisher.Sinks.many().replay().all();
            return store.set(viewPrefix + rank, mine.toString().getBytes(StandardCharsets.UTF_8))
                    .thenMany(Flux.fromIterable(believedAlive)
                            .flatMap(p -> Mono.firstWithSignal(store.get(viewPrefix + p, options.connectTimeout())
                                            .onErrorMap(e -> new PeerFailureException("shrink", rank, -1, p,
                                                    "shrink: rank " + p + " published no view of the survivors within "
                                                            + options.connectTimeout().toMillis() + " ms", e)),
                                    seenDead.asFlux().filter(d -> d == p).next().then(Mono.<byte[]>empty()))))
                    .doOnNext(bytes -> {
                        String v = new String(bytes, StandardCharsets.UTF_8);
                        for (String r : v.isEmpty() ? new String[0] : v.split(",")) {
                            int d = Integer.parseInt(r.trim());
                            if (d >= 0 && d < size && !dead[d]) {
                                dead[d] = true;
                                seenDead.tryEmitNext(d);
                            }
                        }
                    })
                    .then(Mono.defer(() -> {
                        if (dead[rank]) {
                            return Mono.error(new PeerFailureException("shrink", rank, -1, CollectiveException.NO_PEER,
                                    "shrink: another rank saw rank " + rank + " die; it is not among the survivors", null));
                        }
                        int newSize = 0;
                        int newRank = -1;
                        for (int p = 0; p < size; p++) {
                            if (!dead[p]) {
                                if (p == rank) {
                                    newRank = newSize;
                                }
                                newSize++;
                            }
                        }
                        close();
                        int nr = newRank;
                        int ns = newSize;
                        return TcpProcessGroup.connect(new PrefixStore("rc/" + newId + "/", store), nr, ns,
                                        options.withGroupId(newId))
                                .doOnNext(g -> {
                                    g.baseId = base;
                                    g.generation = gen;
                                    log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(), rank,
                                            newId, nr, ns);
                                });
                    }))
                    .map(g -> (ProcessGroup) g);
        });
    }

    /** The generation: 0 for a group made by {@code connect}, one more for each {@link #shrink()}. */
    public int generation() {
        return generation;
    }

    /** Closes the connections; in-flight collectives fail with {@link GroupAbortedException}. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        mailbox.failAll(b -> new GroupAbortedException(b.opName(), rank, b.sequence(), CollectiveException.NO_PEER,
                "the group was closed"));
        p2p.close(new GroupAbortedException("recv", rank, -1, CollectiveException.NO_PEER, "the group was closed"));
        observer.metrics().close();
        Mesh m = mesh;
        if (m != null) {
            m.close();
        }
        mailbox.clear();
        children.forEach(TcpProcessGroup::close);
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "TcpProcessGroup[" + options.groupId() + " rank " + rank + "/" + size + ", port " + port() + "]";
    }

    // ------------------------------------------------------------------ machinery

    private <T> Mono<T> collective(String name, CollectiveOptions opts, Runnable validate, Function<Ctx, Mono<T>> body) {
        return collective(name, opts, validate, seq -> new CollectiveFingerprint(opType(name), seq, null, List.of(), -1, null),
                body);
    }

    private static OpType opType(String name) {
        for (OpType t : OpType.values()) {
            if (t.displayName().equals(name)) {
                return t;
            }
        }
        return OpType.UNKNOWN;
    }

    /**
     * Runs one collective: checks, sequence number, flight recorder and meters (through the
     * observer), the optional fingerprint check, the timeout, and the abort on peers on failure.
     *
     * @param describe the collective's fingerprint for its sequence number (op, dtype, shapes, root,
     *                 reduce op): recorded, and exchanged when {@link Diagnostics#checkCollectives()} is on
     */
    private <T> Mono<T> collective(String name, CollectiveOptions opts, Runnable validate,
                                   LongFunction<CollectiveFingerprint> describe, Function<Ctx, Mono<T>> body) {
        return Mono.defer(() -> {
            if (opts == null) {
                throw new IllegalArgumentException(name + ": options is null");
            }
            validate.run();
            CollectiveException refused = refusal(name);
            if (refused != null) {
                return Mono.error(refused);
            }
            Mailbox.Box box = mailbox.open(name);
            CollectiveException pending = mailbox.pendingAbort(box);
            if (pending != null) {
                mailbox.close(box);
                return Mono.error(pending);
            }
            Ctx ctx = new Ctx(box, name, 0);
            Duration timeout = opts.timeout() != null ? opts.timeout() : options.timeout();
            CollectiveFingerprint fp = describe.apply(box.sequence());
            long[][] shapes = fp.shapes().toArray(new long[0][]);
            return observer.observe(box.sequence(), fp.op(), fp.dtype(), shapes, shapes, null, entry -> {
                ctx.entry = entry;
                Mono<T> run = Mono.defer(() -> body.apply(ctx));
                CollectiveWatchdog.Alarm alarm = watchdog.arm(timeout);
                if (options.diagnostics().checkCollectives()) {
                    run = FingerprintCheck.verify(ctx, fp).then(run);
                }
                return run
                    .timeout(alarm.fired(), Mono.defer(() -> Mono.error(timeoutError(ctx, timeout))))
                    .onErrorMap(e -> !(e instanceof CollectiveException),
                            e -> new CollectiveException(name, rank, box.sequence(), CollectiveException.NO_PEER,
                                    e.toString(), e))
                    .doOnError(e -> {
                        abortOnPeers(ctx, e);
                        tearDownIfAsked(e);
                    })
                    .doOnCancel(() -> abortOnPeers(ctx, null))
                    .doFinally(s -> {
                        alarm.disarm();
                        mailbox.close(box);
                    });
            });
        });
    }

    private CollectiveTimeoutException timeoutError(Ctx ctx, Duration timeout) {
        int peer = ctx.box.waitingOn();
        String what = ctx.box.waitingWhat();
        CollectiveTimeoutException e = new CollectiveTimeoutException(ctx.op, rank, ctx.box.sequence(), peer, timeout,
                "timed out after " + timeout.toMillis() + " ms" + (peer >= 0 ? " waiting for rank " + peer
                        + (what != null ? " (" + what + ")" : "") : "") + "; " + peersProgress());
        mailbox.fail(ctx.box, e);
        return e;
    }

    /** Why {@code peer} died (a GROUP_ABORT it sent, or a connection or protocol failure). */
    private record PeerDeath(String why, boolean groupAbort) {
    }

    /** Records {@code peer}'s death unless one is recorded already; returns the recorded one. */
    private PeerDeath markDead(int peer, String why, boolean groupAbort) {
        PeerDeath mine = new PeerDeath(why, groupAbort);
        return deadPeers.compareAndSet(peer, null, mine) ? mine : deadPeers.get(peer);
    }

    /** Why {@code peer} died, or null while it lives. */
    private String deathOf(int peer) {
        PeerDeath d = deadPeers.get(peer);
        return d == null ? null : d.why();
    }

    /**
     * What this rank knows of the others' progress: the latest collective each peer sent data for,
     * the furthest behind first (at most 8 peers named), e.g. {@code last data from rank 2: seq 1,
     * rank 1: seq 2}. Peers an algorithm never receives from show their last exchange with this rank.
     */
    private String peersProgress() {
        List<long[]> seen = new ArrayList<>();
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                seen.add(new long[] {lastSeqFrom.get(p), p});
            }
        }
        seen.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        StringBuilder sb = new StringBuilder("last data from ");
        for (int i = 0; i < Math.min(8, seen.size()); i++) {
            long[] x = seen.get(i);
            sb.append(i == 0 ? "" : ", ").append("rank ").append(x[1]).append(": ")
                    .append(x[0] < 0 ? "none" : "seq " + x[0]);
        }
        if (seen.size() > 8) {
            sb.append(", ... (").append(seen.size() - 8).append(" more)");
        }
        return sb.toString();
    }

    /** Tells every peer that this collective failed or was cancelled here, unless a peer told us. */
    private void abortOnPeers(Ctx ctx, Throwable cause) {
        if (cause instanceof RemoteAbortException || cause instanceof RemotePeerFailureException
                || cause instanceof RemoteTimeoutException
                || FingerprintCheck.seenByAll(cause) || closed || abortedWhy != null) {
            return;
        }
        String reason = cause == null ? "cancelled on rank " + rank : cause.getMessage();
        // a peer failure seen here: ABORT_PEER_FAILED and the failed peer in the step field;
        // a timeout here: ABORT_TIMED_OUT and (the peer waited for + 1) in the step field
        int failedPeer = cause instanceof PeerFailureException pf && pf.peer() >= 0 && pf.peer() < size
                && pf.peer() != rank ? pf.peer() : -1;
        int kind = ABORT_PLAIN;
        int step = 0;
        if (failedPeer >= 0) {
            kind = ABORT_PEER_FAILED;
            step = failedPeer;
        } else if (cause instanceof CollectiveTimeoutException te) {
            kind = ABORT_TIMED_OUT;
            step = te.peer() >= 0 && te.peer() < size ? te.peer() + 1 : 0;
        }
        if (kind != ABORT_PLAIN && reason != null && reason.indexOf(": ") > 0) {
            reason = reason.substring(reason.indexOf(": ") + 2);
        }
        Mesh m = mesh;
        if (m == null) {
            return;
        }
        byte[] text = (reason == null ? "failed" : reason).getBytes(StandardCharsets.UTF_8);
        for (int p = 0; p < size; p++) {
            PeerLink l = p == rank ? null : m.link(p);
            if (l != null && l.isActive()) {
                l.sendAndForget(FrameType.ABORT, ctx.box.sequence(), kind, step, 0,
                        Unpooled.wrappedBuffer(text));
            }
        }
    }

    /** {@link ErrorHandling.Mode#TEAR_DOWN}: log, then exit through the hook on a fresh thread (once). */
    private void tearDownIfAsked(Throwable e) {
        ErrorHandling eh = options.errorHandling();
        if (eh.mode() != ErrorHandling.Mode.TEAR_DOWN || !(e instanceof CollectiveException)
                || !tornDown.compareAndSet(false, true)) {
            return;
        }
        log.error("group '{}' rank {}: tearing the process down (error handling TEAR_DOWN) after: {}",
                options.groupId(), rank, e.getMessage(), e);
        Thread t = new Thread(() -> eh.exitHook().accept(ErrorHandling.EXIT_STATUS), "rc-teardown");
        t.setDaemon(false);
        t.start();
    }

    private CollectiveException refusal(String name) {
        String why = abortedWhy;
        if (why != null) {
            return new GroupAbortedException(name, rank, -1, CollectiveException.NO_PEER,
                    "the group was aborted (" + why + ") and takes no new work; shrink() or make a new group");
        }
        if (closed) {
            return new GroupAbortedException(name, rank, -1, CollectiveException.NO_PEER, "the group is closed");
        }
        for (int p = 0; p < size; p++) {
            String dead = deathOf(p);
            if (dead != null) {
                return new PeerFailureException(name, rank, -1, p, dead, null);
            }
        }
        return null;
    }

    private CollectiveException p2pRefusal(String name, int peer) {
        if (abortedWhy != null || closed) {
            CollectiveException r = refusal(name);
            if (r != null && !(r instanceof PeerFailureException)) {
                return r;
            }
        }
        if (closed) {
            return new GroupAbortedException(name, rank, -1, CollectiveException.NO_PEER, "the group is closed");
        }
        String dead = deathOf(peer);
        return dead == null ? null : new PeerFailureException(name, rank, -1, peer, dead, null);
    }

    private void pauseReading() {
        Mesh m = mesh;
        if (m != null) {
            m.pauseReading();
        }
    }

    private void resumeReading() {
        Mesh m = mesh;
        if (m != null) {
            m.resumeReading();
        }
    }

    /** Inbound frames and closed connections. */
    private final class Listener implements FrameListener {
        @Override
        public void onFrame(int peer, ByteBuf frame) {
            FrameType type = FrameCodec.type(frame);
            switch (type) {
                case DATA: {
                    ByteBuf payload = frame.slice(frame.readerIndex() + FrameCodec.HEADER, FrameCodec.payloadLength(frame));
                    long dataSeq = FrameCodec.sequence(frame);
                    if (dataSeq > lastSeqFrom.get(peer)) {   // one connection per peer: one writer
                        lastSeqFrom.lazySet(peer, dataSeq);
                    }
                    String violation = mailbox.deliver(dataSeq, FrameCodec.tag(frame),
                            FrameCodec.step(frame), FrameCodec.chunk(frame), peer, payload);
                    if (violation != null) {
                        protocolViolation(peer, violation);
                    }
                    break;
                }
                case ABORT: {
                    long seq = FrameCodec.sequence(frame);
                    int kind = FrameCodec.tag(frame);
                    int failed = kind == ABORT_PEER_FAILED ? FrameCodec.step(frame) : -1;
                    int waitedFor = kind == ABORT_TIMED_OUT ? FrameCodec.step(frame) - 1 : -1;
                    String reason;
                    try {
                        int len = Math.min(FrameCodec.payloadLength(frame), 4096);
                        reason = frame.toString(frame.readerIndex() + FrameCodec.HEADER, len, StandardCharsets.UTF_8);
                    } finally {
                        frame.release();
                    }
                    if (failed >= 0 && failed < size && failed != rank && failed != peer) {
                        mailbox.abortFromPeer(seq, b -> new RemotePeerFailureException(b.opName(), rank, seq,
                                failed, reason + " (reported by rank " + peer + ")"));
                    } else if (kind == ABORT_TIMED_OUT) {
                        // blame the peer this rank waits for; else the one the sender waited for
                        int theirs = waitedFor >= 0 && waitedFor < size && waitedFor != rank ? waitedFor
                                : CollectiveException.NO_PEER;
                        mailbox.abortFromPeer(seq, b -> {
                            int mine = b.waitingOn();
                            return new RemoteTimeoutException(b.opName(), rank, seq, mine >= 0 ? mine : theirs,
                                    b.elapsed(), "timed out group-wide: rank " + peer + " " + reason
                                    + (mine >= 0 ? "; this rank was waiting for rank " + mine : ""));
                        });
                    } else {
                        mailbox.abortFromPeer(seq, b -> new RemoteAbortException(b.opName(), rank, seq, peer,
                                "aborted by rank " + peer + ": " + reason));
                    }
                    break;
                }
                case P2P:
                    p2p.deliver(peer, FrameCodec.tag(frame), frame);
                    break;
                case GROUP_ABORT: {
                    String reason;
                    try {
                        int len = Math.min(FrameCodec.payloadLength(frame), 4096);
                        reason = frame.toString(frame.readerIndex() + FrameCodec.HEADER, len, StandardCharsets.UTF_8);
                    } finally {
                        frame.release();
                    }
                    String why = "peer " + peer + " aborted the group (" + reason + ")";
                    String dead = markDead(peer, why, true).why();
                    mailbox.failAll(b -> new RemoteAbortException(b.opName(), rank, b.sequence(), peer, dead));
                    p2p.failSource(peer, dead);
                    break;
                }
                default:
                    ReferenceCountUtil.release(frame);
                    protocolViolation(peer, "unexpected " + type + " frame");
            }
        }

        private void protocolViolation(int peer, String what) {
            markDead(peer, "peer " + peer + " broke the protocol: " + what, false);
            Mesh m = mesh;
            if (m != null && m.link(peer) != null) {
                m.link(peer).channel().close();
            }
        }

        @Override
        public void onClosed(int peer, Throwable cause) {
            if (closed) {
                return;
            }
            String detail = cause instanceof PeerSilentException ? cause.getMessage()
                    : "peer " + peer + " closed the connection" + (cause == null ? "" : " (" + cause.getMessage() + ")");
            PeerDeath death = markDead(peer, detail, false);
            String why = death.why();
            // the peer's GROUP_ABORT, handled on another connection's loop, may not have failed the
            // in-flight collectives yet: they fail as that abort, whichever handler gets there first
            mailbox.failAll(b -> death.groupAbort()
                    ? new RemoteAbortException(b.opName(), rank, b.sequence(), peer, why)
                    : new PeerFailureException(b.opName(), rank, b.sequence(), peer, why, cause));
            p2p.failSource(peer, why);
        }
    }

    private static final String[] ALGORITHM_NAMES = java.util.Arrays.stream(Algorithm.values())
            .map(a -> a.name().toLowerCase(java.util.Locale.ROOT)).toArray(String[]::new);

    /**
     * {@code b} in one memory region: a payload the decoder left as the socket reads it came in
     * (see {@code FrameDecoder}) is copied together, and {@code b} released.
     */
    private static ByteBuf contiguous(ByteBuf b) {
        if (b.hasMemoryAddress() || !b.isDirect()) {
            return b;
        }
        try {
            ByteBuf flat = b.alloc().directBuffer(b.readableBytes(), b.readableBytes());
            flat.writeBytes(b, b.readerIndex(), b.readableBytes());
            return flat;
        } finally {
            b.release();
        }
    }

    /** One collective's view of the group, handed to the algorithms. */
    private final class Ctx implements Peers {
        final Mailbox.Box box;
        final String op;
        final int tag;
        volatile FlightRecorder.Entry entry;  // set before the body runs; shared by withTag copies

        Ctx(Mailbox.Box box, String op, int tag) {
            this.box = box;
            this.op = op;
            this.tag = tag;
        }

        Ctx withTag(int t) {
            Ctx c = new Ctx(box, op, t);
            c.entry = entry;
            return c;
        }

        void recordAlgorithm(Algorithm a) {
            recordAlgorithm(ALGORITHM_NAMES[a.ordinal()]);
        }

        void recordAlgorithm(String name) {
            FlightRecorder.Entry e = entry;
            if (e != null) {
                e.algorithm(name);
            }
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public String op() {
            return op;
        }

        @Override
        public long sequence() {
            return box.sequence();
        }

        @Override
        public int segmentBytes() {
            return options.segmentBytes();
        }

        @Override
        public int pipelineDepth() {
            return options.pipelineDepth();
        }

        @Override
        public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
            Mesh m = mesh;
            PeerLink link = peer == rank || peer < 0 || peer >= size || m == null ? null : m.link(peer);
            if (link == null) {
                ReferenceCountUtil.safeRelease(payload);
                return Mono.error(new CollectiveException(op, rank, box.sequence(), peer, "no connection to rank " + peer, null));
            }
            if (payload.readableBytes() > options.maxFramePayload()) {
                ReferenceCountUtil.safeRelease(payload);
                return Mono.error(new IllegalStateException(op + ": payload of " + payload.readableBytes()
                        + " bytes over the frame limit " + options.maxFramePayload()));
            }
            observer.metrics().bytesSent(payload.readableBytes());
            return link.send(FrameType.DATA, box.sequence(), tag, step, chunk, payload)
                    .onErrorMap(e -> !(e instanceof CollectiveException),
                            e -> {
                                String dead = deathOf(peer);
                                if (dead == null && (e instanceof java.io.IOException || !link.isActive())) {
                                    dead = "peer " + peer + " closed the connection (" + e.getMessage() + ")";
                                }
                                return new PeerFailureException(op, rank, box.sequence(), peer,
                                        dead != null ? dead : "cannot send to peer " + peer + ": " + e, e);
                            });
        }

        @Override
        public Mono<ByteBuf> receive(int peer, int step, int chunk) {
            return receiveScattered(peer, step, chunk).map(TcpProcessGroup::contiguous);
        }

        @Override
        public Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
            FlightRecorder.Entry e = entry;
            CollectiveMetrics m = observer.metrics();
            return mailbox.receive(box, tag, step, chunk, peer)
                    .doOnSubscribe(s -> {
                        if (e != null) {
                            e.waitingFor(peer);
                        }
                    })
                    .doOnNext(b -> m.bytesReceived(b.readableBytes()));
        }

        @Override
        public CollectiveException protocolError(int peer, String detail) {
            return new CollectiveMismatchException(op, rank, box.sequence(), peer, detail);
        }
    }
}
