package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import reactor.core.publisher.Mono;

/**
 * What an algorithm sees of the group while it runs one collective: the ranks, and point-to-point
 * transfers addressed by {@code (peer, step, chunk)} within this collective. Sockets, frames,
 * sequence numbers and tags stay behind this interface, so an algorithm is a pure function of its
 * rank and the messages it receives.
 *
 * <p>A message sent with {@code send(p, step, chunk, ...)} on rank {@code r} is received by
 * {@code receive(r, step, chunk)} on rank {@code p}; each (peer, step, chunk) may be used once per
 * collective in each direction. Messages may arrive in any order and before the receive is
 * subscribed; they are buffered until asked for.
 */
public interface Peers {

    /** This rank. */
    int rank();

    /** Number of ranks. */
    int size();

    /** The collective's name, for messages ({@code allReduce}). */
    String op();

    /** The collective's sequence number. */
    long sequence();

    /** Bytes per pipelined piece (the group's tuned segment size). */
    int segmentBytes();

    /** Pieces in flight at once. */
    int pipelineDepth();

    /**
     * Sends {@code payload} to {@code peer}; takes ownership of one reference of {@code payload}
     * (released once written, or on failure). Completes when the bytes were handed to the socket,
     * after which the memory {@code payload} views may be reused; errors with a
     * {@link CollectiveException} when the connection fails or the collective was aborted. Cold: the
     * write happens on subscription, and a payload given to a send that is never subscribed leaks,
     * so build it inside the subscription ({@link Transfers} does).
     */
    Mono<Void> send(int peer, int step, int chunk, ByteBuf payload);

    /**
     * Sends bytes {@code [index, index + length)} of {@code buf} to {@code peer} without copying
     * them: a retained slice made on each subscription, sent as by {@link #send}. Unlike
     * {@link #send}, nothing leaks when the result is never subscribed.
     */
    default Mono<Void> sendRange(int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return Mono.defer(() -> send(peer, step, chunk, buf.retainedSlice(index, length)));
    }

    /**
     * Emits the payload {@code peer} sent with this (step, chunk); the subscriber must release it.
     * Errors with a {@link CollectiveException} when the peer fails, the collective is aborted on
     * any rank, or it times out.
     */
    Mono<ByteBuf> receive(int peer, int step, int chunk);

    /**
     * {@link #receive} for a consumer that reads the payload only through {@code ByteBuf} accessors
     * and {@code ReduceKernels.reduceIntoScattered}: a large payload may then come as the socket
     * reads it arrived in (a composite, not contiguous), which saves copying it together.
     */
    default Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
        return receive(peer, step, chunk);
    }

    /**
     * {@link #receiveScattered} for a subscriber that requests on subscribe and finishes with the
     * payload, releasing it, before its {@code onNext} returns (never keeps it, never hands it to
     * another thread): the payload may then be the transport's own memory (a shared-memory ring),
     * lent for that call, which saves copying it out.
     */
    default Mono<ByteBuf> receiveLent(int peer, int step, int chunk) {
        return receiveScattered(peer, step, chunk);
    }

    /** Which host each rank runs on (every rank on one host unless the group learnt otherwise). */
    default Topology topology() {
        return Topology.singleHost(size());
    }

    /** An error for something a peer sent that does not fit this collective (wrong size, ...). */
    CollectiveException protocolError(int peer, String detail);
}
