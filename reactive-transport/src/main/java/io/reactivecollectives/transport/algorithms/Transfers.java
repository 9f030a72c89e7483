package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The fused transfer stages algorithms are built from: send a byte range of a tensor's buffer
 * (zero-copy, as a retained slice), receive a piece and reduce it into place, receive a piece and
 * copy it into place. Received payloads are released as soon as they were used, also on error and
 * cancellation.
 */
public final class Transfers {

    private Transfers() {
    }

    /**
     * Received pieces of at least this many bytes are reduced or copied into place on
     * {@link Schedulers#parallel()} instead of the connection's event loop, so the loop goes on
     * reading and writing while another core does the arithmetic (gloo likewise keeps its I/O
     * thread apart from the reducing thread). System property {@code rc.transport.offloadBytes};
     * the default is 64 KiB on hosts with 4 or more processors (so that the default 256 KiB
     * segments are offloaded; the comparison is in {@code perf/RESULTS.md}) and off (0) below, where
     * there is no spare core to hand the work to.
     */
    public static final long OFFLOAD_BYTES = TransportSettings.OFFLOAD_BYTES.get();

    /** Sends bytes {@code [index, index + length)} of {@code buf} to {@code peer}, without copying them. */
    public static Mono<Void> send(Peers p, int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return p.sendRange(peer, step, chunk, buf, index, length);
    }

    /** Receives a piece from {@code peer} and reduces its {@code count} elements into {@code dst} at {@code index}. */
    public static Mono<Void> receiveReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                           ByteBuf dst, int index, int count) {
        return new ReceiveInto(p, peer, step, chunk, op, dtype, dst, index, count, count * dtype.byteSize());
    }

    /** Receives a piece of {@code length} bytes from {@code peer} and copies it into {@code dst} at {@code index}. */
    public static Mono<Void> receiveCopy(Peers p, int peer, int step, int chunk, ByteBuf dst, int index, int length) {
        return new ReceiveInto(p, peer, step, chunk, null, null, dst, index, length, length);
    }

    /**
     * Sends bytes {@code [index, index + count * elementSize)} of {@code buf} to {@code peer} and
     * receives the peer's piece for the same range; once <em>both</em> are done (so the memory
     * being sent is no longer read), reduces the received piece into that range.
     */
    public static Mono<Void> exchangeReduce(Peers p, int peer, int step, int chunk, ReduceOp op, DType dtype,
                                            ByteBuf buf, int index, int count) {
        return new ExchangeReduce(p, peer, peer, step, chunk, op, dtype, buf, index, count);
    }

    /**
     * Sends an empty message to {@code to} and receives one from {@code from} (a barrier's round);
     * completes when both are done. A non-empty message from {@code from} is a protocol error.
     */
    public static Mono<Void> exchangeEmpty(Peers p, int to, int from, int step) {
        return new ExchangeReduce(p, to, from, step, 0, null, null, Unpooled.EMPTY_BUFFER, 0, 0);
    }
}
