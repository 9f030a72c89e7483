package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import io.reactivecollectives.transport.frame.FrameDecoders;
import io.reactivecollectives.transport.shm.ShmLinks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.util.retry.Retry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The full mesh of connections between the ranks of a group (gloo's connectFullMesh): every rank
 * binds a Reactor Netty TCP server on an ephemeral port, claims the store key
 * {@code rc/<group>/mesh/addr/<rank>} for its {@code host:port} ({@link RankClaim}: a second process
 * started as the same rank fails at once, and so does the first), learns the others' addresses from
 * the one key rank 0 gathers them into ({@link MeshAddressBook}), connects to every lower rank and
 * accepts a connection from every higher one, so each pair of ranks shares one connection, or
 * {@link MeshOptions#connectionsPerPeer()} TCP connections (stripes, see {@link PeerStripes} and
 * {@link SocketLink}); the mesh is up once every stripe to every peer passed its handshake. Frames
 * to a peer go through its {@link PeerLink}: the socket link, or, between ranks of one host that
 * agreed on a shared-memory segment, a {@link SharedMemoryLink} that replaced it
 * ({@link MeshSharedMemory}).
 * Each connection opens with the handshake of {@link MeshHandshake}; a rejected one is closed after
 * the reason was sent back. Sockets ({@link MeshSockets}): Unix domain sockets between ranks of one
 * host (see {@link LocalSockets}), else TCP with TCP_NODELAY; NIO event loops
 * ({@link MeshEventLoops}), optional buffer sizes, and Netty's pooled allocator (the one tensors
 * use) for inbound buffers: Netty 4.2's default adaptive allocator takes a {@code StampedLock} that
 * can park an event loop under contention. The listener hears of every closed connection once, with
 * a typed cause ({@link PeerSilentException}, {@link PeerClosedException}, {@link PeerProtocolException}).
 */
public final class Mesh implements Connections, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Mesh.class);
    /** The longest an accepted connection may take to complete its handshake (see {@link #handshakeTime()}). */
    public static final Duration MAX_HANDSHAKE_TIME = Duration.ofSeconds(10);

    private final Store store;
    private final int rank;
    private final int world;
    private final MeshOptions options;
    private final int groupHash;
    /** Where the links deliver: the group's listener, and the subgroups' carried over this mesh. */
    private final GroupRouter listener;
    /** Which ranks this rank connects to. */
    private final MeshPeers peers;
    /** The link to each peer, its stripes while they come up, the shared-memory links. */
    private final MeshLinks links;
    /** Where each peer is: published addresses, host identities, connect errors. */
    private final MeshDirectory directory;
    private final AtomicInteger missing;
    private final Sinks.Empty<Void> connected = Sinks.empty();
    private final Sinks.Empty<Void> startFailed = Sinks.empty();
    private final MeshSockets sockets;
    /** Handshake time, the cap on connections in their handshake, and the log of refusals. */
    private final MeshAdmission admission;
    private volatile boolean started;
    private volatile boolean closed;
    /**
     * What the connections report their end to: the listener, with closes of shared-memory peers
     * after their frames (frames go to the listener straight).
     */
    private final LinkEnd closes;
    /** The connections made on demand ({@link #connect}). */
    private final MeshDials dials = new MeshDials(this);
    /** Closes idle connections made on demand over the limit (where a limit is set). */
    private final MeshIdle idle;

    private Mesh(Store store, int rank, int world, MeshOptions options, MeshPeers peers, FrameListener listener) {
        this.store = store;
        this.rank = rank;
        this.world = world;
        this.options = options;
        this.groupHash = options.groupId().hashCode();
        this.listener = new GroupRouter(groupHash, world, listener);
        this.peers = peers;
        this.links = new MeshLinks(world);
        this.directory = new MeshDirectory(world, rank);
        this.closes = MeshSharedMemory.closesAfterFrames(this, this.listener);
        this.missing = new AtomicInteger(peers.count(rank, world));
        this.sockets = new MeshSockets(options, rank);
        this.admission = new MeshAdmission(options, world, this::describe, log);
        this.idle = MeshIdle.of(this, options.role() == MeshRole.DATA);
    }

    /** Who may hold this rank's port before its handshake, and for how long. */
    MeshAdmission admission() {
        return admission;
    }


    /** Store key under which {@code rank} publishes its address. */
    public static String addressKey(String groupId, int rank) {
        return "rc/" + groupId + "/mesh/addr/" + rank;
    }

    /**
     * Connects this rank to all others. Emits the mesh once every peer is connected and has passed
     * the handshake; fails at once with a {@link MeshStartException} when a peer has another world
     * size or a second process started as this rank, and after {@link MeshOptions#connectTimeout()}
     * naming the ranks that never appeared; whatever was opened is closed on failure.
     */
    public static Mono<Mesh> start(Store store, int rank, int world, MeshOptions options, FrameListener listener) {
        return start(store, rank, world, options, listener, Duration.ZERO);
    }

    /**
     * {@link #start(Store, int, int, MeshOptions, FrameListener)} that, every {@code reportEvery}
     * until it ends, says which ranks it still waits for ({@link MeshWaits}); zero for no reports.
     */
    public static Mono<Mesh> start(Store store, int rank, int world, MeshOptions options, FrameListener listener,
                                   Duration reportEvery) {
        return start(store, rank, world, options, MeshPeers.ALL, listener, reportEvery);
    }

    /**
     * {@link #start(Store, int, int, MeshOptions, FrameListener, Duration)} connecting this rank to
     * {@code peers} only (a heartbeat ring, {@link MeshPeers}): it reads their addresses from their
     * own keys (no address book), dials the lower ones and waits for the higher ones.
     */
    public static Mono<Mesh> start(Store store, int rank, int world, MeshOptions options, MeshPeers peers,
                                   FrameListener listener, Duration reportEvery) {
        return Mono.defer(() -> {
            Mesh mesh = new Mesh(store, rank, world, options, peers, listener);
            if (world == 1) {
                mesh.started = true;
                return Mono.just(mesh);
            }
            Mono<Void> join = mesh.sockets.bind(mesh::onAccepted)
                    .then(Mono.defer(() -> RankClaim.claim(store, mesh)))
                    .then(Mono.when(mesh.connectToLowerRanks(), mesh.connected.asMono()))
                    .then(Mono.defer(() -> MeshSharedMemory.attach(mesh, store)));
            reactor.core.Disposable report = MeshWaits.start(mesh, store, reportEvery);
            return join.or(mesh.startFailed.asMono()).or(MeshWaits.storeClosed(mesh, store))
                    .timeout(options.connectTimeout())
                    .onErrorMap(e -> e instanceof TimeoutException || e instanceof StoreTimeoutException,
                            e -> new MeshStartException(mesh.describeMissing(), e))
                    .thenReturn(mesh)
                    .doOnNext(m -> m.started = true)
                    .doOnError(e -> mesh.close())
                    .doOnCancel(mesh::close)
                    .doFinally(s -> report.dispose());
        });
    }

    /** {@code group '<id>' rank <r>}, the prefix of this rank's messages. */
    String describe() {
        return "group '" + options.groupId() + "' rank " + rank;
    }

    private String describeMissing() {
        return describe() + ": " + directory.missing(rank, p -> links.link(p) != null || !expects(p),
                options.connectTimeout().toMillis());
    }

    /**
     * A peer showed that the group cannot form ({@code why}: another world size, a second process of
     * this rank): the start fails at once. A mesh already started carries on and only logs.
     */
    void failStart(String why, boolean duplicate) {
        if (started || closed) {
            log.warn("{}: refused a connection: {}", describe(), why);
            return;
        }
        if (duplicate) {
            RankClaim.markRefused(store, this, why);
        }
        startFailed.tryEmitError(new MeshStartException(describe() + ": " + why, null));
    }

    /**
     * An inbound connection (TCP or local): decoder, handshake check with a deadline (cancelled when
     * the handshake ends or the connection closes: a pending task would hold the closed channel,
     * and through its handler this mesh, until the deadline), reading on.
     */
    private void onAccepted(Connection conn) {
        Channel ch = conn.channel();
        if (closed) {
            ch.close();
            return;
        }
        if (!admission.admit(ch)) {
            ch.close();
            return;
        }
        conn.addHandlerLast("rc-decoder", FrameDecoders.handshake());
        conn.addHandlerLast("rc-accept", new MeshHandshake.Accept(this));  // with its deadline; counts the end
        ch.config().setAutoRead(true);
        ch.read();
    }

    /**
     * Rank 0 gathers the address book ({@link MeshAddressBook}); any other rank connects to rank 0,
     * then to the other lower ranks at the addresses of the book.
     */
    private Mono<Void> connectToLowerRanks() {
        if (peers.onDemand(world)) {
            return rank == 0 ? MeshAddressBook.gather(store, this) : MeshAddressBook.readAll(store, this).flatMap(book -> Flux.range(0, rank)
                    .filter(this::expects)
                    .map(p -> connectTo(p, p < book.length && !book[p].isEmpty() ? book[p] : null))
                    .collectList().flatMap(Mono::when));
        }
        if (!peers.all(world)) {
            return Flux.range(0, rank).filter(this::expects).map(p -> connectTo(p, null)).collectList().flatMap(Mono::when);
        }
        if (rank == 0) {
            return MeshAddressBook.gather(store, this);
        }
        return connectTo(0, null).then(Mono.defer(() -> rank == 1 ? Mono.<Void>empty()
                : MeshAddressBook.read(store, options.groupId(), directory.address(0), options.connectTimeout())
                        .flatMap(book -> Flux.range(1, rank - 1)
                                .map(p -> connectTo(p, p < book.length && !book[p].isEmpty() ? book[p] : null))
                                .collectList().flatMap(Mono::when))));
    }

    /**
     * Whether this mesh connects to some peers only when first needed ({@link MeshPeers#onDemand}):
     * a collective then calls {@link #connect} before its first frame to such a peer.
     *
     * @return true for a mesh that connects on demand
     */
    public boolean connectsOnDemand() {
        return peers.onDemand(world);
    }

    /**
     * Connects to {@code peer} unless connected ({@link MeshDials#connect}): completes once frames to
     * it can be written; fails after the connect timeout, and at once for a mesh that does not
     * connect on demand or is closed.
     *
     * @param peer a rank
     * @return completes once frames to {@code peer} can be written
     */
    public Mono<Void> connect(int peer) {
        return dials.connect(peer);
    }

    /** Whether this rank is dialling {@code peer} on demand now. */
    boolean dialing(int peer) {
        return dials.dialing(peer);
    }

    /** The address {@code peer} published in its key, waiting for it. */
    Mono<String> readAddress(int peer) {
        return store.get(addressKey(options.groupId(), peer), options.connectTimeout())
                .map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    /** Connects to {@code peer} at {@code known} (from the book; null: read its key), reading its key again on a retry. */
    Mono<Void> connectTo(int peer, String known) {
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(known != null);
        return Mono.defer(() -> first.getAndSet(false) ? Mono.just(known) : readAddress(peer))
                .publishOn(BlockingScheduler.get())  // the local socket's file is looked at
                .flatMap(published -> {
                    if (published.startsWith(RankClaim.REFUSED)) {
                        return Mono.error(new MeshStartException(describe() + ": rank " + peer + " cannot be reached: "
                                + published.substring(RankClaim.REFUSED.length()), null));
                    }
                    noteAddress(peer, published);
                    String unusable = LocalSockets.loopbackFromAnotherNode(published.split(";"));
                    if (unusable != null) {
                        return Mono.error(new MeshStartException(describe() + ": rank " + peer + " " + unusable, null));
                    }
                    int k = sockets.connectionsTo(published);  // its stripes, each with its handshake
                    return Flux.range(0, k).flatMap(s -> {
                        MeshHandshake.Connect hs = new MeshHandshake.Connect(this, peer, s, k);
                        return sockets.dial(published, hs, c -> c.channel().writeAndFlush(hs.hello(c.channel())))
                                .then(hs.done.asMono());
                    }, k).then();
                })
                // refused: the key (or the book) still holds the address of an earlier process of that
                // rank that its new process is about to take over; read its key again
                .doOnError(e -> directory.noteError(peer, e.getMessage()))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(20)).maxBackoff(Duration.ofMillis(250))
                        .filter(e -> e instanceof java.net.ConnectException));
    }

    /** The sockets: servers, dials, accepted connections. */
    MeshSockets sockets() {
        return sockets;
    }

    /** The connections to {@code peer}, made for {@code count} stripes by the first one's handshake. */
    PeerStripes stripesOf(int peer, int count) {
        return links.stripesOf(peer, () -> new PeerStripes(peer, count, listener, closes, idle.active() ? idle : null));
    }

    /** Whether connection {@code stripe} of {@code count} to {@code peer} is connected already (or the count differs). */
    boolean stripeTaken(int peer, int stripe, int count) {
        return links.stripeTaken(peer, stripe, count);
    }

    /**
     * Connection {@code stripe} to {@code peer} passed its handshake: heartbeats on it (each stripe
     * heartbeats, so one that carries no data is not taken for silent), and the link once every
     * stripe is there.
     */
    void register(int peer, int stripe, Channel ch, PeerStripes link) {
        if (closed) {   // a dial on demand that ended after the close: nothing may stay open
            ch.close();
            return;
        }
        Channel[] all = link.add(stripe, ch);
        if (options.role().heartbeats()) {
            Liveness.start(ch, peer, groupHash, rank, options.heartbeatInterval(), options.missedHeartbeats());
        }
        if (all != null && links.put(peer, new SocketLink(peer, rank, groupHash, all, link))) {
            if (expects(peer) && missing.decrementAndGet() == 0) {   // a peer connected on demand is not counted
                connected.tryEmitEmpty();
            }
            listener.linkChanged(peer);
            dials.arrived(peer);
            idle.arrived();
        }
    }

    /** Takes {@code link} out of the tables ({@link MeshIdle}); false when it is not the peer's link. */
    boolean detach(SocketLink link) {
        return links.detach(link);
    }

    /** Completes once no close of an idle link to {@code peer} is pending here ({@link MeshIdle}). */
    Mono<Void> settled(int peer) {
        return idle.settled(peer);
    }

    int rank() {
        return rank;
    }

    /** Which ranks this rank connects to. */
    MeshPeers peers() {
        return peers;
    }

    /** Whether {@code peer} is one this rank connects to ({@link MeshPeers}). */
    boolean expects(int peer) {
        return peers.includes(rank, peer, world);
    }

    /** The last error connecting to {@code peer}, or null. */
    String lastError(int peer) {
        return directory.lastError(peer);
    }

    /**
     * Notes the address {@code peer} published (its host identity is part of it); a peer whose
     * settings give it another set of peers ({@link MeshPeers#code}) fails the start at once, naming
     * the settings.
     */
    void noteAddress(int peer, String published) {
        directory.noteAddress(peer, published);
        String why = peers.mismatch(published, world, peer, rank, options.role() == MeshRole.LIVENESS);
        if (why != null) {
            failStart(why, false);
        }
    }

    /**
     * Each rank's host identity (the kernel's boot id with the host name), as the peers published
     * it; null for a peer that published none. Complete once the mesh started.
     */
    public String[] hostIds() {
        return directory.hostIds();
    }

    /** The address {@code peer} published (this process's own for this rank): unique to its process. */
    String addressOf(int peer) {
        return peer == rank ? publishedAddress() : directory.address(peer);
    }

    MeshOptions options() {
        return options;
    }

    int groupHash() {
        return groupHash;
    }

    /** Where the links deliver frames (their ends are reported through {@link MeshSharedMemory#closesAfterFrames}). */
    GroupRouter listener() {
        return listener;
    }

    /** The shared-memory links to the ranks of this host, or null. */
    ShmLinks sharedMemory() {
        return links.sharedMemory();
    }

    /**
     * From now on frames to the local peers go through {@code replacing}, over {@code shm} (see
     * {@link MeshSharedMemory}); each replaces the peer's socket link, which stays open underneath.
     */
    void useSharedMemory(ShmLinks shm, java.util.List<SharedMemoryLink> replacing) {
        links.useSharedMemory(shm);
        for (SharedMemoryLink l : replacing) {
            links.replace(l);
        }
        if (closed) {
            shm.close(new IllegalStateException(describe() + ": closed"));
        }
    }

    String publishedAddress() {
        return sockets.publishedAddress() + ";peers=" + peers.code(world);
    }

    /**
     * How this rank reaches {@code peer}: {@code "shm"} (shared memory, same host, see
     * {@link MeshSharedMemory}), {@code "unix"} (a Unix domain socket, same host), {@code "tcp"}, or
     * {@code "none"} (itself, or not connected).
     */
    public String transportTo(int peer) {
        return links.transportTo(peer);
    }

    /**
     * The link frames to {@code peer} go through.
     *
     * @param peer a rank
     * @return its link, or null (this rank, out of range, not connected)
     */
    public PeerLink link(int peer) {
        return links.link(peer);
    }

    /**
     * The live table of the links frames go through, indexed by peer ({@link #link} of each): null
     * for this rank and a peer not connected; an entry changes when a peer's socket link is replaced
     * by a {@link SharedMemoryLink} ({@link MeshSharedMemory}), so read it per frame, never cache an
     * entry. For a sender's per-frame path, which then does not call through the mesh. Read only:
     * the mesh alone writes it.
     *
     * @return the table, one entry per rank
     */
    public java.util.concurrent.atomic.AtomicReferenceArray<PeerLink> linkTable() {
        return links.table();
    }

    /**
     * The socket connection to {@code peer}: its link, or the one kept open under its shared-memory
     * link.
     *
     * @param peer a rank
     * @return its socket link, or null (this rank, out of range, not connected)
     */
    public SocketLink socketLink(int peer) {
        return links.socket(peer);
    }

    /** Number of ranks. */
    public int world() {
        return world;
    }

    /** The port this rank's server listens on (-1 for a world of one). */
    public int port() {
        return sockets.port();
    }

    /**
     * Stops reading from every connection, every stripe (back-pressure). Counted: the group and each
     * subgroup carried here pause on their own, and reading resumes once none holds a pause.
     */
    public void pauseReading() {
        links.pause();
    }

    /** Resumes reading from every connection, every stripe, once no other pause is held. */
    public void resumeReading() {
        links.resume();
    }

    @Override
    public Connections carry(String groupId, int rank, int[] members, FrameListener subgroup) {
        int hash = groupId.hashCode();
        CarriedGroup carried = new CarriedGroup(this, hash, rank, members, subgroup);
        return !closed && listener.add(hash, members, subgroup, carried) ? carried : null;
    }

    /** The frames of the subgroup {@code groupHash} are dropped from now on ({@link CarriedGroup#close}). */
    void retire(int groupHash) {
        listener.retire(groupHash);
    }

    /**
     * Closes the connection to {@code peer} because of {@code why}, which the listener hears as that
     * connection's cause (a {@link MeshRole#LIVENESS} mesh found the peer silent). Never blocks.
     */
    public void closeLink(int peer, Throwable why) {
        PeerLink l = links.link(peer);
        if (l != null) {
            l.closeWith(why);
        } else if (connectsOnDemand() && peer != rank && peer >= 0 && peer < world && !closed) {
            listener.onClosed(peer, why);   // never connected: what waits for its frames hears the same end
        }
    }

    /** Whether the mesh is closed. */
    public boolean isClosed() {
        return closed;
    }

    /** Closes every connection and the servers; never blocks (the socket file is deleted on another thread). */
    @Override
    public void close() {
        closed = true;
        idle.close();
        admission.flush();
        links.closeStripes(false);  // every link, and the stripes of those still coming up
        sockets.close();
        links.closeSharedMemory(new IllegalStateException(describe() + ": closed"));
    }

    /**
     * Closes in order: on every connection {@code lastWords} writes a last frame (a GOODBYE goes on
     * every stripe, see {@link SocketLink}); once that write (and so every write queued before it)
     * reached the socket, the connection sends its end of stream and closes when the peer closed it
     * in turn ({@link PeerLink#endGracefully}: no reset cuts what the peer has not read yet), or
     * after {@code grace} in all; Netty's {@code close()} drops writes still queued. The servers stop accepting at
     * once. Never blocks; a JVM exiting meanwhile waits for it ({@link ExitHold}).
     */
    public void closeGracefully(java.util.function.Function<PeerLink, Mono<Void>> lastWords, java.time.Duration grace) {
        closed = true;
        idle.close();
        admission.flush();
        sockets.closeServers();
        java.util.List<Mono<Void>> all = new java.util.ArrayList<>();
        for (int p = 0; p < world; p++) {
            PeerLink l = links.link(p);
            if (l != null) {
                // endGracefully reports the close at once (shared memory then fails queued writes): after the last words
                all.add(Mono.defer(() -> l.isActive() ? lastWords.apply(l).then(Mono.defer(l::endGracefully)) : Mono.<Void>empty())
                        .timeout(grace, Mono.empty())
                        .onErrorResume(e -> Mono.empty())
                        .doFinally(s -> l.closeWith(PeerClosedException.closedHere(l.peer()))));
            }
        }
        Runnable release = ExitHold.hold(grace.plusMillis(500));  // the JVM waits for the last words
        Mono.when(all).doFinally(s -> {
            links.closeStripes(true);  // the stripes of a link that never came up
            sockets.closeConnections();
            links.closeSharedMemory(new IllegalStateException(describe() + ": closed"));
            release.run();
        }).subscribe();
    }
}
