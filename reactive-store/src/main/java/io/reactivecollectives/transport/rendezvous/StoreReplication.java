package io.reactivecollectives.transport.rendezvous;

import java.util.concurrent.CompletableFuture;

/**
 * A replicated log under a {@link TcpStoreServer}: with one, the server is one replica of a store
 * that several processes hold together, so that losing any one of them (a minority of them) loses
 * nothing. Every write a client sends is {@linkplain #commit committed} to the log first and applied,
 * in the log's order, by every replica (so each replica's keys, counters and waiters move through
 * the same states); a read is served by the replica the client is connected to once that replica has
 * applied everything committed before the read ({@link #readBarrier()}), so that a client never reads
 * older state than a write it, or anyone, saw acknowledged. Implementations come from a
 * {@link StoreReplicationProvider} ({@code reactive-store-raft}: Apache Ratis).
 *
 * <p>All methods are non-blocking; futures complete on the implementation's threads.
 */
public interface StoreReplication extends AutoCloseable {

    /**
     * Commits {@code command} to the log; it completes, once a majority of replicas hold it, with
     * what applying it returned on the replica that applied it first (the leader). This replica
     * applies it in its turn: a read here waits for that ({@link #readBarrier()}).
     *
     * @param command an opaque write command (the server's: the write's frame body)
     * @return the result of applying it (the server's: the response frame), or an error when no
     *         majority could be reached in time
     */
    CompletableFuture<byte[]> commit(byte[] command);

    /**
     * Completes once this replica has applied every command committed before the call (a linearizable
     * read point); fails when no majority could be reached in time.
     *
     * @return a future completing when reads here see every acknowledged write
     */
    CompletableFuture<Void> readBarrier();

    /** Stops this replica (the others go on without it while they are a majority). */
    @Override
    void close();
}
