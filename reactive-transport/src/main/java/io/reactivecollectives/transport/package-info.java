/**
 * The TCP transport: {@link io.reactivecollectives.transport.MeshProcessGroup} (collectives over a
 * full mesh of Reactor Netty connections, a facade), {@link io.reactivecollectives.transport.LocalCluster}
 * (N ranks in one JVM), {@link io.reactivecollectives.transport.GroupOptions}, and underneath:
 * {@code runtime} (the collective lifecycle: {@code CollectiveRunner}, {@code GroupRuntime},
 * {@code CollectiveChannel}, {@code InboundFrames}, {@code Agreement}), {@code ops} (one class per
 * op family), {@code failure} (peer failures, abort notices, shrink planning), {@code group}
 * (demultiplexing of inbound frames to collectives), {@code algorithms} (one algorithm per file,
 * written against {@link io.reactivecollectives.transport.algorithms.Peers}), {@code decision} (one
 * table per collective: which algorithms implement it, the choice, made once per call, and the
 * dispatch to the chosen body), {@code frame} (one codec per frame type), {@code mesh} (connections
 * and handshake), {@code wire} (the lent-frame marker and host:port parsing). The TCP store
 * ({@code transport.rendezvous}) is reactive-store's, as are the wire pieces the mesh shares with
 * it ({@code io.reactivecollectives.store.wire}: the length-prefixed decoder, the handshake MAC, the
 * Unix-socket files).
 *
 * <h2>Launching one rank per process</h2>
 * Every process needs the same store, its rank and the world size:
 * <pre>{@code
 * // rank 0 (or a separate process) runs the store server; every rank connects to it
 * TcpStoreServer server = rank == 0 ? TcpStoreServer.builder().port(storePort).start().block() : null;
 * Store store = TcpStore.connect(TcpStoreOptions.of(storeHost, storePort)).block();
 * // (processes on one machine may share a FileStore instead: new FileStore(Path.of("/tmp/job-store")))
 * MeshProcessGroup group = MeshProcessGroup.connect(store, rank, worldSize,
 *         GroupOptions.defaults().withGroupId("job-42")).block();   // emits once every rank is connected
 * try {
 *     group.allReduce(tensor, ReduceOp.SUM).block();
 * } finally {
 *     group.close();
 *     store.close();
 * }
 * }</pre>
 * Use a group id unique within the store (two groups in one store need different ids). Each rank
 * binds an ephemeral port on {@link io.reactivecollectives.transport.GroupOptions#host()}
 * (loopback by default: set the host to an address the other machines can reach for a multi-host
 * job). {@code RankMain} in this module's tests is a complete example, started once per rank by
 * {@code ProcessesTest}.
 *
 * <h2>Failures, abort, recovery</h2>
 * <ul>
 *   <li><b>Peer failure.</b> A connection that closes (a process killed: its sockets are reset at
 *   once), or a peer from which nothing arrives for
 *   {@link io.reactivecollectives.transport.GroupOptions#missedHeartbeats()} heartbeat intervals
 *   (a hung or stopped process), fails every in-flight and later collective of the group on every
 *   surviving rank with a {@code PeerFailureException} naming the peer:
 *   {@code allReduce[seq=41] rank 2: peer 3 closed the connection}, or
 *   {@code ... peer 3 unresponsive: nothing heard for 2.7 s (peer 3 missed 5 heartbeats)}. Heartbeats
 *   travel on connections of their own, served by an event loop of their own ({@code rc-liveness}),
 *   so neither data nor code chained after a result delays them: one each
 *   {@link io.reactivecollectives.transport.GroupOptions#heartbeatInterval()} (default 500 ms, dead
 *   after 5 silent intervals, so within 2.5 to 3 s; set both with {@code withHeartbeat}). How soon survivors learn of a killed rank is measured by
 *   {@code ReliabilityProcessesTest}; the figures are in {@code perf/RESULTS.md}.</li>
 *   <li><b>Timeouts.</b> A collective past its timeout (the group's, or the call's
 *   {@code CollectiveOptions}) fails here with {@code CollectiveTimeoutException} naming the peer it
 *   was waiting for, and an ABORT frame tells the other ranks; one whose own timer has not fired yet
 *   fails with a timeout too ({@code RemoteTimeoutException}: {@code allReduce[seq=2] rank 1: timed
 *   out group-wide: rank 0 timed out after 1500 ms waiting for rank 2 ...}), so every rank's
 *   {@code Work} reports {@code TIMEOUT} and dumps its flight recorder.</li>
 *   <li><b>{@code abort()}.</b> Fails every in-flight collective here at once
 *   ({@code GroupAbortedException}), sends a GROUP_ABORT frame to every peer (their in-flight
 *   collectives fail naming this rank, their later ones are refused as after a peer failure), closes
 *   the connections, and refuses new work with "the group was aborted".</li>
 *   <li><b>Error-handling modes</b> ({@link io.reactivecollectives.transport.ErrorHandling}, as
 *   {@code TORCH_NCCL_ASYNC_ERROR_HANDLING}): {@code FAIL_OPERATIONS} (default) only fails the
 *   operations; {@code TEAR_DOWN} logs the error and exits the process with status 3 through an
 *   injectable exit hook (never from an event loop). Argument errors never tear down.</li>
 *   <li><b>{@code shrink()}.</b> After a peer failure every survivor calls {@code shrink()}: each
 *   publishes in the store which peers it saw die and reads the others' views; the first rank done
 *   writes the next generation's members with the store's compare-and-set, and every rank adopts
 *   that one decision ({@code <group>@gen<N>}, ranks renumbered in their old order, a new store
 *   prefix; handshakes carry the generation's group id and every frame its hash). A rank left out
 *   (seen dead, or late because it was stopped) is told so and forms no group. The old group is
 *   closed; work continues in the same processes.</li>
 *   <li><b>Untrusted connections.</b> Until a connection passes the handshake (HMAC with the shared
 *   {@link io.reactivecollectives.transport.GroupOptions#secret()}), a frame may carry at most a
 *   handshake's worth of bytes and only a HELLO is accepted; anything else, or no handshake within
 *   the connect timeout, closes the connection before any collective frame is parsed.</li>
 * </ul>
 *
 * <h2>Transport choices</h2>
 * Ranks on one host connect through Unix domain sockets (JDK 16+ NIO channels), other peers
 * through TCP with {@code TCP_NODELAY}; {@code -Drc.transport.unixSockets=false} forces TCP. Once
 * connected, ranks of one host send their frames through shared memory instead (package
 * {@code transport.shm}: a ring per pair of ranks in one {@code /dev/shm} file, unlinked as soon as
 * all have mapped it, and futex wake-ups from the native library); their Unix sockets stay open to
 * see a peer's death. Without the native library, with {@code -Drc.transport.sharedMemory=false},
 * or when {@code /dev/shm} has too little room, they keep the sockets and each rank logs one line
 * saying why ({@code ShmSettings} lists the settings). The
 * mesh's event loops are NIO. Pipelined algorithms cut tensors into segments of 256 KiB with 4 in
 * flight per collective by default ({@link io.reactivecollectives.transport.GroupOptions#segmentBytes()},
 * {@link io.reactivecollectives.transport.GroupOptions#pipelineDepth()}); socket buffers are left to
 * the kernel ({@link io.reactivecollectives.transport.GroupOptions#socketBufferBytes()} sets them).
 * The measurements behind each choice are in {@code perf/RESULTS.md}.
 *
 * <h2>Public API</h2>
 * This package, {@code transport.rendezvous} (the TCP store) and {@code transport.launch} (launch
 * from the environment) are the public API, and the only packages the module exports
 * ({@code module-info}). The other packages ({@code runtime}, {@code ops},
 * {@code failure}, {@code group}, {@code algorithms}, {@code decision}, {@code frame}, {@code mesh},
 * {@code shm}, {@code wire}) are the implementation: public only so the packages can reach each other, not exported (on the class path
 * they stay reachable, with no compatibility promise), and named by no public signature of the API.
 */
package io.reactivecollectives.transport;
