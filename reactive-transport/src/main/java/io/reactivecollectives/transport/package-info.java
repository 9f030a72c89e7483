/**
 * The TCP transport: {@link io.reactivecollectives.transport.TcpProcessGroup} (collectives over a
 * full mesh of Reactor Netty connections), {@link io.reactivecollectives.transport.LocalCluster}
 * (N ranks in one JVM), {@link io.reactivecollectives.transport.GroupOptions}, and underneath:
 * {@code frame} (the wire format and decoder), {@code mesh} (connections and handshake),
 * {@code group} (demultiplexing of inbound frames to collectives), {@code algorithms} (one
 * algorithm per file, written against {@link io.reactivecollectives.transport.algorithms.Peers}).
 *
 * <h2>Launching one rank per process</h2>
 * Every process needs the same store, its rank and the world size:
 * <pre>{@code
 * // rank 0 (or a separate process) runs the store server; every rank connects to it
 * TcpStoreServer server = rank == 0 ? TcpStoreServer.builder().port(storePort).start().block() : null;
 * Store store = TcpStore.connect(TcpStoreOptions.of(storeHost, storePort)).block();
 * // (processes on one machine may share a FileStore instead: new FileStore(Path.of("/tmp/job-store")))
 * TcpProcessGroup group = TcpProcessGroup.connect(store, rank, worldSize,
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
 * <h2>Transport choices, as measured</h2>
 * Netty's native epoll transport is used when its jar is on the class path ({@code -Pepoll}); the
 * registry this build uses does not serve it, so the default build runs on NIO. Unix domain
 * sockets need epoll in Reactor Netty and were therefore not measured. Segment size and pipeline
 * depth (2 MiB x 8 by default, segments shrunk to fill the pipeline down to 64 KiB) were chosen
 * with {@code bench/AllReduceTiming} in the tests; socket buffers are left to the kernel's
 * auto-tuning ({@link io.reactivecollectives.transport.GroupOptions#socketBufferBytes()} sets
 * them), which measured no worse than 4 MiB buffers.
 */
package io.reactivecollectives.transport;
